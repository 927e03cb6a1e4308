// The re-plan's node and rack queues of a large job, kept between ticks.

package tmar

import (
	"slices"

	"github.com/rmsidecar/rmsidecar/cluster"
)

// minQueuedBatch is the least batch whose queues the re-plan keeps between
// ticks: below it making them costs about what checking them does.
const minQueuedBatch = 512

// jobQueues is a job's batch of maps as a re-plan made its queues
// (mapQueues) and what they were made from: the reservations in order
// (univ), their MapTasks, the node index (gen) and the model's machines.
// A later re-plan whose batch is univ less the maps started since, with
// the same MapTasks, plans over these queues with those maps marked done
// (planQueued), instead of making the queues again: a job of 65,889 maps
// (FB-2009 job969) made 200,000 queue entries at each of its ~60 re-plans.
type jobQueues struct {
	gen      uint64
	machines int
	univ     []*reservation
	mts      []MapTask
	rk       []int // the machines' dense rack numbers (denseRacks)
	sc       planScratch
	// nodeQ0 and rackQ0 are the queues as made; nodeQ and rackQ the
	// copies planQueued advances.
	nodeQ0, rackQ0 [][]int
	nodeQ, rackQ   [][]int
	done           []bool // univ's maps not in the batch, then planned
	pos            []int  // univ index -> index in the batch
	used           bool   // by the re-plan under way
}

// planBatch is planMaps(&p.planSc, ms, rack, mts, ready, exec, p.tie())
// for one job's batch of maps (mts their MapTasks), over the queues kept
// for the job when they are (replanQueues): the same placements
// (TestPlanBatchSameAsPlanMaps), valid until the next call.
func (p *Plugin) planBatch(batch []*reservation, mts []MapTask, ms []Machine, rack []int, ready float64, exec func(int) float64) []Placement {
	q := p.replanQueues(batch, mts, len(ms), rack)
	if q == nil {
		return planMaps(&p.planSc, ms, rack, mts, ready, exec, p.tie())
	}
	copy(q.nodeQ, q.nodeQ0)
	copy(q.rackQ, q.rackQ0)
	pls := planQueued(&p.planSc, ms, q.rk, len(q.rackQ0), q.nodeQ, q.rackQ, q.mts, q.done, len(batch), ready, exec, p.tie())
	for k := range pls {
		pls[k].Task = q.pos[pls[k].Task] // univ's index -> the batch's
	}
	return pls
}

// replanQueues is the queues of batch (one job's maps in the re-plan's
// order, mts their MapTasks) over the first machines of the model (rack
// p.rackIx, which the node index's generation p.idxGen names), kept
// from the re-plan before when the batch is its maps less some (done) and
// made again otherwise; nil for a batch too small to keep.
func (p *Plugin) replanQueues(batch []*reservation, mts []MapTask, machines int, rack []int) *jobQueues {
	if len(batch) < minQueuedBatch {
		return nil
	}
	app := batch[0].task.App
	if p.jobQ == nil {
		p.jobQ = map[*cluster.App]*jobQueues{}
	}
	q := p.jobQ[app]
	if q != nil && q.gen == p.idxGen && q.machines == machines && len(batch)*2 >= len(q.univ) && q.match(batch, mts) {
		q.used = true
		return q
	}
	if q == nil {
		q = &jobQueues{}
		p.jobQ[app] = q
	}
	q.gen, q.machines, q.used = p.idxGen, machines, true
	clear(q.univ) // no reservation kept from the last batch
	q.univ = append(q.univ[:0], batch...)
	q.mts = append(q.mts[:0], mts...)
	rk, nr := q.sc.denseRacks(rack[:machines])
	q.rk = append(q.rk[:0], rk...)
	q.nodeQ0, q.rackQ0 = q.sc.queues(machines, q.rk, nr, q.mts)
	q.nodeQ = grown(q.nodeQ, len(q.nodeQ0))
	q.rackQ = grown(q.rackQ, len(q.rackQ0))
	q.done = grown(q.done, len(batch))
	q.pos = grown(q.pos, len(batch))
	for k := range q.pos {
		q.pos[k] = k
	}
	return q
}

// match tells whether batch is q.univ less some of its maps, in the same
// order and with the same MapTasks, and marks those left out done.
func (q *jobQueues) match(batch []*reservation, mts []MapTask) bool {
	q.done = grown(q.done, len(q.univ))
	q.pos = grown(q.pos, len(q.univ))
	j := 0
	for k, r := range batch {
		for j < len(q.univ) && q.univ[j] != r {
			q.done[j] = true
			j++
		}
		if j == len(q.univ) || !sameMapTask(q.mts[j], mts[k]) {
			return false
		}
		q.pos[j] = k
		j++
	}
	for ; j < len(q.univ); j++ {
		q.done[j] = true
	}
	return true
}

// sameMapTask compares two MapTasks' replicas and read costs (a NaN cost
// is never the same).
func sameMapTask(a, b MapTask) bool {
	return a.Read == b.Read && slices.Equal(a.Local, b.Local)
}

// dropQueues forgets the queues of the jobs the last re-plan did not
// plan (started, finished or left with a small batch).
func (p *Plugin) dropQueues() {
	for app, q := range p.jobQ {
		if !q.used {
			delete(p.jobQ, app)
			continue
		}
		q.used = false
	}
}
