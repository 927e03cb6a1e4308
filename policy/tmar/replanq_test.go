package tmar

import (
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/rmsidecar/rmsidecar/cluster"
)

// TestPlanBatchSameAsPlanMaps re-plans one large job tick after tick, as
// its maps start (leave the batch), new ones come (anywhere in the order),
// a map's replicas or read costs change, and the node index or the
// model's machines change: planBatch, over the queues it keeps, plans
// exactly as planMaps over the batch (placements and core vectors), for
// Algorithm 1 and both power tie-breaks; most ticks take the kept queues.
func TestPlanBatchSameAsPlanMaps(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 17))
	pick := func(xs ...float64) float64 { return xs[rng.IntN(len(xs))] }
	hits := 0
	for iter := range 40 {
		p := &Plugin{powerAware: iter%3 > 0}
		p.cfg.TieS, p.cfg.TieMakespan = 1, iter%3 == 2
		app := &cluster.App{ID: "job"}
		nm := 2 + rng.IntN(40)
		rack := make([]int, nm)
		nracks := 1 + rng.IntN(5)
		for i := range rack {
			rack[i] = rng.IntN(nracks)
		}
		newMT := func() MapTask {
			var mt MapTask
			for range rng.IntN(4) {
				mt.Local = append(mt.Local, rng.IntN(nm+1)-rng.IntN(2))
			}
			r1 := pick(0.5, 0.5, 0.7)
			mt.Read = [3]float64{pick(0, 0, 0.2), r1, r1 + pick(0.5, 0.5+1e-10, 1)}
			return mt
		}
		type entry struct {
			r  *reservation
			mt MapTask
		}
		var live []entry
		for range minQueuedBatch + rng.IntN(400) {
			live = append(live, entry{&reservation{task: &cluster.Task{App: app}}, newMT()})
		}
		var ref planScratch
		for tick := range 14 {
			machines := nm
			if rng.IntN(6) == 0 {
				machines-- // the model may hold fewer machines
			}
			ms := make([]Machine, machines)
			execs := make([]float64, machines)
			for i := range ms {
				ms[i] = randomMachine(rng, pick)
				execs[i] = pick(2, 2, 2+1e-10, 3, 4.5)
			}
			exec := func(i int) float64 { return execs[i] }
			batch := make([]*reservation, len(live))
			mts := make([]MapTask, len(live))
			for k, e := range live {
				batch[k], mts[k] = e.r, e.mt
			}
			ready := pick(0, 1)
			a, b := cloneMachines(ms), cloneMachines(ms)
			want := slices.Clone(planMaps(&ref, a, rack, mts, ready, exec, p.tie()))
			got := p.planBatch(batch, mts, b, rack, ready, exec)
			if q := p.jobQ[app]; q != nil && len(q.univ) > len(batch) {
				hits++ // kept, some of its maps left out (made again, univ is the batch)
			}
			if !reflect.DeepEqual(a, b) {
				t.Fatalf("instance %d tick %d: core vectors differ after planning", iter, tick)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("instance %d tick %d: plan differs\n got %v\nwant %v", iter, tick, got, want)
			}
			p.dropQueues()
			// Between ticks: maps start, come, change; the index changes.
			next := live[:0:0]
			for _, e := range live {
				if rng.IntN(12) > 0 {
					next = append(next, e)
				}
			}
			for range rng.IntN(3) {
				switch k := rng.IntN(len(next) + 1); rng.IntN(4) {
				case 0:
					next = slices.Insert(next, k, entry{&reservation{task: &cluster.Task{App: app}}, newMT()})
				case 1:
					if k < len(next) {
						next[k].mt = newMT()
					}
				case 2:
					if k < len(next) { // the same replicas in a new slice
						next[k].mt.Local = slices.Clone(next[k].mt.Local)
					}
				}
			}
			if rng.IntN(8) == 0 {
				p.idxGen++
				rack[rng.IntN(nm)] = rng.IntN(nracks + 1)
			}
			live = next
		}
		// A re-plan that plans none of the job's maps forgets its queues.
		p.dropQueues()
		if len(p.jobQ) != 0 {
			t.Fatalf("instance %d: queues kept for %d jobs no re-plan planned", iter, len(p.jobQ))
		}
	}
	if hits == 0 {
		t.Fatal("no re-plan took the kept queues")
	}
	t.Logf("%d re-plans took the kept queues", hits)
}
