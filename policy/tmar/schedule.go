// Algorithm 1: the map schedule over the machines' core-available vectors.

package tmar

import (
	"math"
	"math/bits"
	"slices"
)

// tieEpsilon treats finish times this close (seconds) as equal for the
// TMaR* power tie-break.
const tieEpsilon = 1e-9

// Machine is the scheduler's model of one node.
type Machine struct {
	Name string
	// CoreFree holds when each core becomes free (seconds, absolute).
	CoreFree []float64
	// PowerIdleW and PowerMaxW parameterise eq. 2.
	PowerIdleW, PowerMaxW float64
}

// earliest returns the index and time of the core that frees first.
func (m *Machine) earliest() (int, float64) {
	best, at := -1, math.Inf(1)
	for i, t := range m.CoreFree {
		if t < at {
			best, at = i, t
		}
	}
	return best, at
}

// Placement is where one task goes and when it finishes.
type Placement struct {
	Machine int
	Task    int // PlanMaps: index of the task placed
	Start   float64
	Finish  float64
}

// horizon is the latest core-available time of the machines: the plan's
// makespan so far.
func horizon(ms []Machine) float64 {
	var h float64
	for i := range ms {
		for _, f := range ms[i].CoreFree {
			h = fmax(h, f)
		}
	}
	return h
}

// cand is one machine's offer for the next task.
type cand struct {
	machine, core, task int
	start, finish, exec float64
}

// MapSchedule is Algorithm 1 (and, with tie.Power, Algorithm 2 / TMaR*):
// repeatedly give the next unscheduled map to the core that minimises its
// finish time (line 5) and update the core-available vector (line 6). exec
// returns the job's map execution time on a machine (its Map_Matrix row);
// ready is when the tasks may start. The machines' CoreFree vectors are
// updated in place so successive calls continue the same schedule.
func MapSchedule(ms []Machine, tasks int, ready float64, exec func(machine int) float64, tie PowerTie) []Placement {
	out := make([]Placement, 0, tasks)
	cs := make([]cand, 0, len(ms))
	span := 0.0
	if tie.Power && tie.WithinMakespan {
		span = horizon(ms) // only the makespan tie reads it
	}
	for range tasks {
		cs = cs[:0]
		for i := range ms {
			core, free := ms[i].earliest()
			if core < 0 {
				continue
			}
			start := fmax(free, ready)
			e := exec(i)
			cs = append(cs, cand{machine: i, core: core, start: start, finish: start + e, exec: e})
		}
		k := tie.choose(ms, cs, span)
		if k < 0 {
			break
		}
		c := cs[k]
		ms[c.machine].CoreFree[c.core] = c.finish
		span = fmax(span, c.finish)
		out = append(out, Placement{Machine: c.machine, Start: c.start, Finish: c.finish})
	}
	return out
}

// scheduleOne is MapSchedule for one task, given each machine's earliest
// core and its time (Machine.earliest, found once by the caller): the same
// choice, and the chosen core's time is updated.
func scheduleOne(ms []Machine, cores []int, frees []float64, ready float64, exec func(machine int) float64, tie PowerTie) (Placement, bool) {
	cs := make([]cand, 0, len(ms))
	for i := range ms {
		if cores[i] < 0 {
			continue
		}
		start := fmax(frees[i], ready)
		e := exec(i)
		cs = append(cs, cand{machine: i, core: cores[i], start: start, finish: start + e, exec: e})
	}
	span := 0.0
	if tie.Power && tie.WithinMakespan {
		span = horizon(ms) // only the makespan tie reads it
	}
	k := tie.choose(ms, cs, span)
	if k < 0 {
		return Placement{}, false
	}
	c := cs[k]
	ms[c.machine].CoreFree[c.core] = c.finish
	return Placement{Machine: c.machine, Start: c.start, Finish: c.finish}, true
}

// MapTask is one unscheduled map for PlanMaps.
type MapTask struct {
	// Local lists the machines that hold the task's input (its replicas).
	Local []int
	// Read is the time to read the input node-local, rack-local and
	// off-rack (added to the machine's Map_Matrix entry).
	Read [3]float64
}

// mapQueues lists, in task order, the maps each machine holds a split of
// (nodeQ) and the maps each rack holds one of (rackQ, a map once per rack).
func mapQueues(machines int, rack []int, tasks []MapTask) (nodeQ [][]int, rackQ map[int][]int) {
	var sc planScratch
	rk, nr := sc.denseRacks(rack[:machines])
	nodeQ, byNum := sc.queues(machines, rk, nr, tasks)
	rackQ = map[int][]int{}
	for i, k := range rk {
		if len(byNum[k]) > 0 {
			rackQ[rack[i]] = byNum[k]
		}
	}
	return nodeQ, rackQ
}

// fillQueues appends the maps to the queues of mapQueues (len(nodeQ)
// machines), rackQ by dense rack number (rk, denseRacks).
func fillQueues(nodeQ, rackQ [][]int, rk []int, tasks []MapTask) {
	machines := len(nodeQ)
	var seenBuf [4]int // a map's racks so far: it has a few replicas
	for ti, t := range tasks {
		seen := seenBuf[:0]
		for _, m := range t.Local {
			if m < 0 || m >= machines {
				continue
			}
			nodeQ[m] = append(nodeQ[m], ti)
			if r := rk[m]; !slices.Contains(seen, r) {
				seen = append(seen, r)
				rackQ[r] = append(rackQ[r], ti)
			}
		}
	}
}

// denseRacks gives each machine's rack as a number below the second
// result, the same for machines of the same rack and different for
// different racks (PlanMaps only compares racks): rack itself when every
// entry is already in [0, len(rack)), else the racks numbered in order of
// first sight. The rack queues are then slices, not a map looked up at
// every step.
func (sc *planScratch) denseRacks(rack []int) ([]int, int) {
	n := len(rack)
	dense := true
	for _, r := range rack {
		if r < 0 || r >= n {
			dense = false
			break
		}
	}
	if dense {
		return rack, n
	}
	if sc.rackNum == nil {
		sc.rackNum = map[int]int{}
	}
	clear(sc.rackNum)
	sc.rk = grown(sc.rk, n)
	for i, r := range rack {
		k, ok := sc.rackNum[r]
		if !ok {
			k = len(sc.rackNum)
			sc.rackNum[r] = k
		}
		sc.rk[i] = k
	}
	return sc.rk, len(sc.rackNum)
}

// queues is mapQueues in sc's slices (emptied first), the rack queues by
// dense rack number (rk, nr: denseRacks).
func (sc *planScratch) queues(machines int, rk []int, nr int, tasks []MapTask) ([][]int, [][]int) {
	sc.nodeQ = resetQueues(sc.nodeQ, machines)
	sc.rackQ = resetQueues(sc.rackQ, nr)
	fillQueues(sc.nodeQ, sc.rackQ, rk, tasks)
	return sc.nodeQ, sc.rackQ
}

// resetQueues is qs with n empty queues, keeping their arrays.
func resetQueues(qs [][]int, n int) [][]int {
	if cap(qs) < n {
		qs = append(qs[:cap(qs)], make([][]int, n-cap(qs))...)
	}
	qs = qs[:n]
	for i := range qs {
		qs[i] = qs[i][:0]
	}
	return qs
}

// PlanMaps is Algorithm 1 over a batch of maps (with tie.Power, Algorithm
// 2): repeatedly the core that finishes a map first gets one (line 5) and
// the core-available vector is updated (line 6). Line 5 leaves open which of
// the unscheduled maps the core takes; ours takes one whose input is on the
// machine, else in its rack, else the first left, so the plan keeps maps
// data-local whenever that costs no finish time. rack gives each machine's
// rack index. The returned placements are in planning order; Task is the
// index into tasks. ms's CoreFree vectors are updated in place. exec must
// return the same value for a machine throughout the call.
//
// Each machine's offer (its earliest core, the map it would take and that
// map's finish there) is kept between steps and recomputed only when it
// changes: the machine was chosen, or the map at the head of its node, rack
// or any-map queue was taken and the next one reads at another cost. The
// earliest offer comes from a tournament tree over the machines, so a step
// costs O(log machines) instead of a pass over every machine's cores. The
// tree gives the exact minimum and the next larger finish; when that is
// within tieEpsilon, or with tie.Power, the step falls back to PowerTie.choose
// over every offer in machine order, so the plan is the one the plain
// scan makes (TestPlanMapsIncrementalSameAsScan).
func PlanMaps(ms []Machine, rack []int, tasks []MapTask, ready float64, exec func(machine int) float64, tie PowerTie) []Placement {
	return planMaps(&planScratch{}, ms, rack, tasks, ready, exec, tie)
}

// planScratch is PlanMaps' working state, reused between the calls of a
// re-plan (one per app) instead of made for each: it is O(machines) a call.
type planScratch struct {
	nodeQ        [][]int
	rackQ        [][]int // by dense rack number (denseRacks)
	rackMachines [][]int
	rk           []int       // denseRacks' numbers when it renumbers
	rackNum      map[int]int // denseRacks: rack -> number
	done         []bool
	execOn, fin  []float64
	en           []float64 // the offers' added energy (eq. 2), tmar-power only
	blocks       powerBlocks
	pres, dirty  []bool
	offers       []planOffer
	dirtyList    []int
	cs           []cand
	tree         finishTree
	placed       []Placement // planMaps' result, reused by the next call
}

// planOffer is machine i's candidate in PlanMaps: level 0 takes its node
// queue's head, 1 its rack queue's, 2 the first map left.
type planOffer struct {
	cand
	present bool
	level   int
}

// grown is s with length n, its first n entries zeroed, reusing its array.
func grown[T any](s []T, n int) []T {
	s = slices.Grow(s[:0], n)[:n]
	clear(s)
	return s
}

// planMaps is PlanMaps with its working state in sc (whatever a call
// before left there is reset); the placements returned are valid until
// the next call with sc.
func planMaps(sc *planScratch, ms []Machine, rack []int, tasks []MapTask, ready float64, exec func(machine int) float64, tie PowerTie) []Placement {
	rack, nr := sc.denseRacks(rack[:len(ms)])
	nodeQ, rackQ := sc.queues(len(ms), rack, nr, tasks)
	sc.done = grown(sc.done, len(tasks))
	return planQueued(sc, ms, rack, nr, nodeQ, rackQ, tasks, sc.done, len(tasks), ready, exec, tie)
}

// planQueued is planMaps over queues made already (mapQueues' of tasks,
// by dense rack numbers rack below nr; their heads are advanced in place,
// their arrays only read), with the tasks marked in done left out: the
// same plan as planMaps over the tasks not done, in their order, with
// Task the index into tasks (TestPlanQueuedSameAsSubset). left is how
// many are not done. The queues only ever yield their first task not
// done, and every test between tasks reads tasks that are not done, so
// a done task is as if absent.
func planQueued(sc *planScratch, ms []Machine, rack []int, nr int, nodeQ, rackQ [][]int, tasks []MapTask, done []bool, left int,
	ready float64, exec func(machine int) float64, tie PowerTie) []Placement {
	if left <= 0 {
		return sc.placed[:0] // nothing to plan (an offer needs a task to name)
	}
	sc.rackMachines = resetQueues(sc.rackMachines, nr)
	rackMachines := sc.rackMachines
	for i := range ms {
		rackMachines[rack[i]] = append(rackMachines[rack[i]], i)
	}
	anyHead := 0
	// first returns the first task of q not yet planned, dropping the
	// planned ones before it.
	first := func(q []int) ([]int, int) {
		for len(q) > 0 && done[q[0]] {
			q = q[1:]
		}
		if len(q) == 0 {
			return q, -1
		}
		return q, q[0]
	}
	firstAny := func() int {
		for anyHead < len(tasks) && done[anyHead] {
			anyHead++
		}
		return anyHead
	}
	sc.execOn = grown(sc.execOn, len(ms))
	execOn := sc.execOn
	for i := range ms {
		execOn[i] = exec(i)
	}
	type offer = planOffer
	sc.offers = grown(sc.offers, len(ms))
	offers := sc.offers
	// The offers' finishes and presence side by side, for the power
	// tie-break's passes over every machine.
	sc.fin, sc.pres = grown(sc.fin, len(ms)), grown(sc.pres, len(ms))
	fin, pres := sc.fin, sc.pres
	// The power tie-break reads every offer's added energy (eq. 2) at each
	// map, most machines finishing within its window: it is computed with
	// the offer, which changes only when the offer is recomputed (ms[i]
	// changes only for the machine chosen, whose offer is then recomputed).
	sc.en = grown(sc.en, len(ms))
	en := sc.en
	bl := &sc.blocks
	bl.reset(len(ms))
	compute := func(i int) {
		core, free := ms[i].earliest()
		if core < 0 {
			offers[i] = offer{}
			if tie.Power && pres[i] {
				bl.touch(i)
			}
			fin[i], pres[i], en[i] = 0, false, 0
			return
		}
		var ti int
		level := 0
		nodeQ[i], ti = first(nodeQ[i])
		if ti < 0 {
			level = 1
			rackQ[rack[i]], ti = first(rackQ[rack[i]])
		}
		if ti < 0 {
			level = 2
			ti = firstAny()
		}
		e := execOn[i] + tasks[ti].Read[level]
		start := fmax(free, ready)
		offers[i] = offer{cand: cand{machine: i, core: core, task: ti, start: start, finish: start + e, exec: e}, present: true, level: level}
		if tie.Power {
			// The blocks are refreshed only for an offer that changed
			// (most recomputed offers come back the same).
			was, wasF, wasP := en[i], fin[i], pres[i]
			en[i], fin[i], pres[i] = ms[i].addedEnergy(start, e), offers[i].finish, true
			if en[i] != was || fin[i] != wasF || !wasP || was != was || wasF != wasF {
				bl.touch(i)
			}
			return
		}
		fin[i], pres[i] = offers[i].finish, true
	}
	tree := &sc.tree
	tree.reset(len(ms))
	for i := range ms {
		compute(i)
		tree.set(i, offers[i].present, offers[i].finish)
	}
	tree.build()
	sc.dirty = grown(sc.dirty, len(ms))
	dirty, dirtyList := sc.dirty, sc.dirtyList[:0]
	mark := func(i int) {
		if !dirty[i] {
			dirty[i] = true
			dirtyList = append(dirtyList, i)
		}
	}
	// The placements go in sc's array: valid until the next call with sc.
	out := slices.Grow(sc.placed[:0], left)
	cs := sc.cs[:0]
	defer func() { sc.cs, sc.dirtyList, sc.placed = cs[:0], dirtyList[:0], out[:0] }()
	span := 0.0
	if tie.Power && tie.WithinMakespan {
		span = horizon(ms) // only the makespan tie reads it
	}
	for range left {
		for _, i := range dirtyList {
			dirty[i] = false
			compute(i)
			tree.update(i, offers[i].present, offers[i].finish)
		}
		dirtyList = dirtyList[:0]
		k := -1
		if m1, i1, m2 := tree.top(); !tie.Power && !math.IsInf(m1, 1) && m2 > m1+tieEpsilon {
			// A clear minimum: the scan below would pick the first machine
			// with it.
			k = i1
		} else if tie.Power {
			// PowerTie.choose over the offers in machine order, each
			// offer's energy computed once: the earliest finish (the first
			// machine with a clear minimum, else the scan's), then of the
			// offers within the tie the one adding the least power.
			best := -1
			if m1, i1, m2 := tree.top(); !math.IsInf(m1, 1) && m2 > m1+2*tieEpsilon {
				best = i1
			} else {
				for i, f := range fin {
					if pres[i] && (best < 0 || f < fin[best]-tieEpsilon) {
						best = i
					}
				}
			}
			if best >= 0 {
				limit := fin[best] + fmax(0, tie.Within) + tieEpsilon
				if tie.WithinMakespan {
					limit = fmax(limit, span+tieEpsilon)
				}
				bl.refresh(fin, en, pres)
				best = powerScan(fin, en, pres, bl, best, limit)
			}
			k = best
		} else {
			cs = cs[:0]
			for i := range offers {
				if offers[i].present {
					cs = append(cs, offers[i].cand)
				}
			}
			if j := tie.choose(ms, cs, span); j >= 0 {
				k = cs[j].machine
			}
		}
		if k < 0 {
			break
		}
		o := offers[k]
		// The head of the chosen level's queue is the map the offer named
		// (offers are refreshed whenever a head's read cost changes).
		switch o.level {
		case 0:
			nodeQ[k], o.task = first(nodeQ[k])
		case 1:
			rackQ[rack[k]], o.task = first(rackQ[rack[k]])
		default:
			o.task = firstAny()
		}
		ti := o.task
		// Which queue heads this map was, before it is marked planned.
		var headBuf [4]int
		headOf := headBuf[:0]
		for _, m := range tasks[ti].Local {
			if m < 0 || m >= len(ms) {
				continue
			}
			r := rack[m]
			// The planned maps first drops stay dropped (first skips them
			// anyway), so a rack's queue is not walked again at every map.
			q, h := first(rackQ[r])
			rackQ[r] = q
			if h == ti && !slices.Contains(headOf, r) {
				headOf = append(headOf, r)
			}
		}
		wasAny := firstAny() == ti
		done[ti] = true
		mark(k)
		// A machine holding a split of ti offered the head of its node
		// queue (ti is in it) at that head's read cost: the offer changes
		// only when the queue is left without a map or its head now reads
		// at another cost (when ti was not the head, the head is the
		// same: marking it then is only a recomputation).
		for _, m := range tasks[ti].Local {
			if m < 0 || m >= len(ms) || dirty[m] {
				continue
			}
			var h int
			nodeQ[m], h = first(nodeQ[m])
			if h < 0 || tasks[h].Read[0] != tasks[ti].Read[0] {
				mark(m)
			}
		}
		ms[k].CoreFree[o.core] = o.finish
		span = fmax(span, o.finish)
		out = append(out, Placement{Machine: k, Task: ti, Start: o.start, Finish: o.finish})
		for _, r := range headOf {
			if _, h := first(rackQ[r]); h < 0 || tasks[h].Read[1] != tasks[ti].Read[1] {
				for _, i := range rackMachines[r] {
					if offers[i].level == 1 {
						mark(i)
					}
				}
			}
		}
		if h := firstAny(); wasAny && h < len(tasks) && tasks[h].Read[2] != tasks[ti].Read[2] {
			for i := range offers {
				if offers[i].level == 2 {
					mark(i)
				}
			}
		}
	}
	return out
}

// powerScan is PowerTie.choose's pass over the offers within the tie window
// (finish no later than limit) from the earliest finish best: the one
// adding the least energy en (eq. 2), an earlier finish among equal
// energies. fin, en and pres are the offers by machine, side by side; bl
// (refreshed) holds them by block of machines, sorted by finish.
//
// A block is skipped when none of its offers within the window passes the
// comparison below: none has an energy below bestE-1e-9, and either none
// has one within bestE+1e-9 or none finishes before bestF-tieEpsilon. The
// energies are all close (the same power per core over similar times) but
// the least of them are mostly on busy machines finishing past the window,
// so a block is read by its offers within the window (a prefix of its
// finish order) and only the blocks that may hold a new best are scanned,
// in machine order as before (the comparison is not transitive). A scanned
// block reads only its offers within the window, by the machine bits of
// that prefix (powerBlocks.mask), not all of its machines.
func powerScan(fin, en []float64, pres []bool, bl *powerBlocks, best int, limit float64) int {
	bestE, bestF := en[best], fin[best]
	en, pres = en[:len(fin)], pres[:len(fin)]
	for b := range bl.n {
		if !bl.odd[b] {
			lo := b * powerBlock
			sf := bl.fin[lo : lo+bl.n[b]]
			c := bl.within(b, sf, limit) // the offers within the window: sf[:c] <= limit
			if c == 0 {
				continue
			}
			if me := bl.minE[lo+c-1]; me >= bestE-1e-9 && (me > bestE+1e-9 || sf[0] >= bestF-tieEpsilon) {
				continue
			}
			// The offers within the window are the first c in finish
			// order: their machines' bits, read lowest first, are the
			// machines the pass below would not skip, in its order.
			for m := bl.mask[lo+c-1]; m != 0; m &= m - 1 {
				i := lo + bits.TrailingZeros32(m)
				f := fin[i]
				if !pres[i] || f > limit || i == best {
					continue
				}
				if e := en[i]; e < bestE-1e-9 || (e <= bestE+1e-9 && f < bestF-tieEpsilon) {
					best, bestE, bestF = i, e, f
				}
			}
			continue
		}
		hi := min(len(fin), (b+1)*powerBlock)
		for i := b * powerBlock; i < hi; i++ {
			f := fin[i]
			if !pres[i] || f > limit || i == best {
				continue
			}
			if e := en[i]; e < bestE-1e-9 || (e <= bestE+1e-9 && f < bestF-tieEpsilon) {
				best, bestE, bestF = i, e, f
			}
		}
	}
	return best
}

// powerBlock is how many machines powerBlocks summarises together (at most
// 32: powerBlocks.mask has a bit per machine of a block).
const powerBlock = 32

// powerBlocks is, per block of powerBlock machines, the finishes of the
// offers present there in ascending order (fin, n of them from the block's
// first machine's index), the least energy of each prefix of that order
// (minE) and the machines of each prefix as bits (mask); odd when a finish
// or an energy is NaN (the block is then always scanned). A block whose
// offer changed is stale until refresh.
type powerBlocks struct {
	fin, minE  []float64 // by machine slot: block b's from b*powerBlock
	mask       []uint32  // by slot as fin: the machines of that prefix, bit i-b*powerBlock
	n          []int
	odd, stale []bool
	staleList  []int
	idx        []int // by machine slot: the block's machines in finish order
	order      []int // refresh's scratch
	// win is, per block, how many of its offers the last powerScan found
	// within its window (n after a refresh): the next window's limit is
	// mostly the same or a little later, so the count is looked for from
	// there (within) instead of by a binary search at every map.
	win []int
}

// within is how many of block b's finishes sf (ascending, no NaN) are no
// later than limit, looked for from the count the last call left in
// bl.win[b]: sf[k] <= limit holds for a prefix of sf, so a walk from any
// start finds the same count as a binary search (TestPowerWithinSameAsSearch).
func (bl *powerBlocks) within(b int, sf []float64, limit float64) int {
	c := min(bl.win[b], len(sf))
	for c > 0 && !(sf[c-1] <= limit) {
		c--
	}
	for c < len(sf) && sf[c] <= limit {
		c++
	}
	bl.win[b] = c
	return c
}

// reset sizes bl for n machines, every block stale.
func (bl *powerBlocks) reset(n int) {
	nb := (n + powerBlock - 1) / powerBlock
	bl.fin, bl.minE = grown(bl.fin, nb*powerBlock), grown(bl.minE, nb*powerBlock)
	bl.mask = grown(bl.mask, nb*powerBlock)
	bl.n = grown(bl.n, nb)
	bl.idx = grown(bl.idx, n)
	for i := range bl.idx {
		bl.idx[i] = i
	}
	bl.odd, bl.stale = grown(bl.odd, nb), grown(bl.stale, nb)
	bl.win = grown(bl.win, nb)
	bl.staleList = bl.staleList[:0]
	for b := range nb {
		bl.stale[b] = true
		bl.staleList = append(bl.staleList, b)
	}
}

// touch marks machine i's block stale.
func (bl *powerBlocks) touch(i int) {
	if b := i / powerBlock; !bl.stale[b] {
		bl.stale[b] = true
		bl.staleList = append(bl.staleList, b)
	}
}

// refresh recomputes the stale blocks from the offers.
func (bl *powerBlocks) refresh(fin, en []float64, pres []bool) {
	for _, b := range bl.staleList {
		bl.stale[b] = false
		lo := b * powerBlock
		hi := min(len(fin), lo+powerBlock)
		// The block's machines in their last finish order (all of them,
		// present or not), so the insertion sort below mostly finds them
		// in order.
		all := bl.idx[lo:hi]
		for k := 1; k < len(all); k++ {
			for j := k; j > 0 && fin[all[j]] < fin[all[j-1]]; j-- {
				all[j], all[j-1] = all[j-1], all[j]
			}
		}
		// The offers present, in that order, and the prefixes' least
		// energies and masks in the same pass: the order is a sort's but
		// where an absent machine's NaN finish stopped the sort above (in
		// planMaps an absent one's finish is 0), so only then are they
		// sorted again and the prefixes made again.
		ord, odd, sorted := bl.order[:0], false, true
		me, m, last := math.Inf(1), uint32(0), math.Inf(-1)
		for _, i := range all {
			if !pres[i] {
				continue
			}
			e, f := en[i], fin[i]
			if e != e || f != f {
				odd = true
			}
			if f < last {
				sorted = false
			}
			last = f
			k := len(ord)
			ord = append(ord, i)
			me, m = min(me, e), m|1<<(i-lo)
			bl.fin[lo+k], bl.minE[lo+k], bl.mask[lo+k] = f, me, m
		}
		bl.order = ord
		bl.odd[b], bl.n[b] = odd, len(ord)
		if odd || sorted {
			continue // an odd block's prefixes are not read
		}
		for k := 1; k < len(ord); k++ { // in order but for NaNs, none here
			for j := k; j > 0 && fin[ord[j]] < fin[ord[j-1]]; j-- {
				ord[j], ord[j-1] = ord[j-1], ord[j]
			}
		}
		me, m = math.Inf(1), 0
		for k, i := range ord {
			me, m = min(me, en[i]), m|1<<(i-lo)
			bl.fin[lo+k], bl.minE[lo+k], bl.mask[lo+k] = fin[i], me, m
		}
	}
	bl.staleList = bl.staleList[:0]
}

// finishTree is a tournament tree over machines' offers: each node holds the
// least finish below it (the leftmost machine among equals) and the next
// larger distinct finish, so the root tells whether the minimum is clear.
type finishTree struct {
	size  int
	nodes []finishNode
}

type finishNode struct {
	m1, m2 float64 // least finish and the least one above it
	i1     int     // leftmost machine with m1
}

// reset makes t a tree over n machines without offers (every finish +Inf),
// reusing its nodes.
func (t *finishTree) reset(n int) {
	size := 1
	for size < n {
		size *= 2
	}
	t.size = size
	t.nodes = slices.Grow(t.nodes[:0], 2*size)[:2*size]
	for i := range t.nodes {
		t.nodes[i] = finishNode{m1: math.Inf(1), m2: math.Inf(1), i1: math.MaxInt}
	}
}

func (t *finishTree) set(i int, present bool, finish float64) {
	n := finishNode{m1: math.Inf(1), m2: math.Inf(1), i1: i}
	if present {
		n.m1 = finish
	}
	t.nodes[t.size+i] = n
}

func (t *finishTree) build() {
	for k := t.size - 1; k >= 1; k-- {
		t.nodes[k] = mergeFinish(t.nodes[2*k], t.nodes[2*k+1])
	}
}

// update sets machine i's offer and recomputes the nodes above it, up to
// the first one whose value stays the same bit for bit: the nodes above
// that one are merged from the same values as before.
func (t *finishTree) update(i int, present bool, finish float64) {
	t.set(i, present, finish)
	for k := (t.size + i) / 2; k >= 1; k /= 2 {
		n := mergeFinish(t.nodes[2*k], t.nodes[2*k+1])
		if sameFinishNode(n, t.nodes[k]) {
			return
		}
		t.nodes[k] = n
	}
}

// sameFinishNode compares two nodes bit for bit (so -0 and +0 differ, and
// a NaN equals itself).
func sameFinishNode(a, b finishNode) bool {
	return a.i1 == b.i1 && math.Float64bits(a.m1) == math.Float64bits(b.m1) && math.Float64bits(a.m2) == math.Float64bits(b.m2)
}

// top returns the least finish, its leftmost machine and the next larger
// finish.
func (t *finishTree) top() (float64, int, float64) {
	r := t.nodes[1]
	return r.m1, r.i1, r.m2
}

// A node's m2 is above its m1 or +Inf, so the next larger finish of the
// two is the smaller of the winner's m2 and the loser's m1 (of both m2 on
// a tie, which goes to a, the left).
func mergeFinish(a, b finishNode) finishNode {
	switch {
	case b.m1 < a.m1:
		if a.m1 < b.m2 {
			b.m2 = a.m1
		}
		return b
	case a.m1 < b.m1:
		if b.m1 < a.m2 {
			a.m2 = b.m1
		}
		return a
	}
	if b.m2 < a.m2 {
		a.m2 = b.m2
	}
	return a
}

// earliestCache holds each machine's earliest core and its time
// (Machine.earliest) between the Place calls of one model instant, so a
// call finds them without a pass over every core: only the machine a map
// went to changes. ok is false when the machines changed under it (a new
// model, PRB or a re-plan updated the cores).
type earliestCache struct {
	cores []int
	frees []float64
	ok    bool
	// gen counts the fills (rackPick's summaries are of one).
	gen uint64
	// rise is, per machine with riseOK, the rise of eq. 2 that one more
	// busy core makes at its start (its earliest core, no earlier than
	// the ready time of riseReady's bits): TMaR*'s tie-break multiplies it
	// by a map's time on the machine (addedEnergy) for every machine
	// within the window, at every map of the instant.
	rise      []float64
	riseOK    []bool
	riseReady uint64
	// model tells that the machines are the model's as model made them
	// (a new instant's, before any plan changed a core): every core of a
	// machine not in touched (a node running nothing, holding no
	// reservation) is modelNow, so fillModel sets those machines without
	// reading their cores. stale clears it.
	model    bool
	modelNow float64
	touched  []int // machines whose cores model set otherwise (repeats allowed)
}

// stale marks the machines changed under the cache (a re-plan or PRB
// updated their cores): the next fill reads every core.
func (c *earliestCache) stale() {
	c.ok, c.model = false, false
}

// fillModel is fill of the model's machines as model made them (c.model):
// each untouched machine's earliest core is its first, at modelNow; only
// the touched ones are read (TestFillModelSameAsFill). At each new instant
// of a Place the fill read every core of the cluster, most of them idle.
func (c *earliestCache) fillModel(ms []Machine) {
	n := len(ms)
	c.cores, c.frees = slices.Grow(c.cores[:0], n)[:n], slices.Grow(c.frees[:0], n)[:n]
	clear(c.cores)
	fillFloats(c.frees, c.modelNow)
	for i := range ms {
		if len(ms[i].CoreFree) == 0 { // not in a model: fill's answer
			c.cores[i], c.frees[i] = ms[i].earliest()
		}
	}
	for _, i := range c.touched {
		c.cores[i], c.frees[i] = ms[i].earliest()
	}
	c.riseOK = grown(c.riseOK, n)
	c.ok, c.model = true, false
	c.gen++
}

// fill finds every machine's earliest core.
func (c *earliestCache) fill(ms []Machine) {
	c.cores, c.frees = c.cores[:0], c.frees[:0]
	for i := range ms {
		core, free := ms[i].earliest()
		c.cores = append(c.cores, core)
		c.frees = append(c.frees, free)
	}
	c.riseOK = grown(c.riseOK, len(ms))
	c.ok = true
	c.gen++
}

// addedEnergy is ms[i].addedEnergy(fmax(c.frees[i], ready), exec), the rise
// of eq. 2 kept per machine until its cores or the ready time change
// (TestEarliestCacheEnergySameAsMachine).
func (c *earliestCache) addedEnergy(ms []Machine, i int, ready, exec float64) float64 {
	if len(ms[i].CoreFree) == 0 {
		return math.Inf(1)
	}
	c.riseAt(ms, ready)
	if !c.riseOK[i] {
		c.setRise(ms, i, ready)
	}
	return c.rise[i] * exec
}

// riseAt readies the rises for the ready time ready: those kept for
// another are dropped.
func (c *earliestCache) riseAt(ms []Machine, ready float64) {
	if b := math.Float64bits(ready); b != c.riseReady || len(c.riseOK) != len(ms) {
		c.riseOK = grown(c.riseOK, len(ms))
		c.riseReady = b
	}
	if len(c.rise) != len(ms) {
		c.rise = grown(c.rise, len(ms))
	}
}

// setRise keeps machine i's rise (it has cores): addedEnergy's arithmetic
// without the multiplication by the map's time.
func (c *earliestCache) setRise(ms []Machine, i int, ready float64) {
	m := &ms[i]
	cores := float64(len(m.CoreFree))
	busy := float64(m.busyAt(fmax(c.frees[i], ready)))
	before := m.pas(busy / cores)
	after := m.pas(fmin(1, (busy+1)/cores))
	c.rise[i], c.riseOK[i] = after-before, true
}

// placeMap is scheduleOne with each machine's earliest core taken from ec
// (kept up to date: the chosen machine's entry is refreshed), exec the
// map's time on each machine (Map_Matrix plus its read at lv, the
// locality level of each machine), followed by the strict hold's equal
// nodes of Place: the first maxAlts other machines in machine order at the
// chosen one's level whose finish is within sameFinishS of it. The
// machines' CoreFree vectors are updated as scheduleOne updates them.
// Without the power tie-break the choice is made in the same pass that
// computes the finishes, with the comparison PowerTie.choose makes.
//
// nodeLocal, when not nil, lists in machine order every machine whose level
// is lvNode: when the chosen machine is node-local its equal nodes are
// looked for among them alone (the same machines in the same order as the
// pass over every machine takes).
func placeMap(ms []Machine, ec *earliestCache, exec []float64, lv []uint8, nodeLocal []int, ready float64, tie PowerTie,
	maxAlts int, fs []float64, alts []int) (Placement, []float64, []int, bool) {
	return placeMapPick(ms, ec, exec, lv, nodeLocal, ready, tie, maxAlts, fs, alts, nil)
}

// placeMapPick is placeMap; with pr (rackPick's choice) and pr.machine >=
// 0, the machine the first pass over every machine would choose is
// pr.machine, not scanned for, and TMaR*'s tie window reads only the
// machines of the racks that may finish within it (pickRacks.window), in
// machine order; fs then holds the finishes of those alone.
func placeMapPick(ms []Machine, ec *earliestCache, exec []float64, lv []uint8, nodeLocal []int, ready float64, tie PowerTie,
	maxAlts int, fs []float64, alts []int, pr *pickRacks) (Placement, []float64, []int, bool) {
	pick := -1
	if pr != nil {
		pick = pr.machine
	}
	// ec has an entry per machine; cut to ms, the passes over the
	// machines read them without bounds checks.
	cores, frees := ec.cores[:len(ms)], ec.frees[:len(ms)]
	alts = alts[:0]
	var c cand
	if !tie.Power {
		best := -1
		var bf, bs float64
		if pick >= 0 {
			best, bs = pick, fmax(frees[pick], ready)
			bf = bs + exec[pick]
		} else {
			for i := range ms {
				if cores[i] < 0 {
					continue
				}
				start := fmax(frees[i], ready)
				f := start + exec[i]
				if best < 0 || f < bf-tieEpsilon {
					best, bf, bs = i, f, start
				}
			}
		}
		if best < 0 {
			return Placement{}, fs, alts, false
		}
		c = cand{machine: best, core: cores[best], start: bs, finish: bf, exec: exec[best]}
	} else {
		// PowerTie.choose over the machines with a free core, in machine
		// order, without a candidate list: the earliest finish, then of
		// the finishes within the tie the one adding the least power.
		//
		// Every entry of fs is written (no append per machine) and the
		// best finish so far is kept in bf, not read back from fs.
		fs = slices.Grow(fs[:0], len(ms))[:len(ms)]
		best := -1
		var bf float64
		all := func() { // every machine's finish, and the first pass's choice
			for i := range ms {
				if cores[i] < 0 {
					fs[i] = 0
					continue
				}
				f := fmax(frees[i], ready) + exec[i]
				fs[i] = f
				if best < 0 || f < bf-tieEpsilon {
					best, bf = i, f
				}
			}
		}
		if pick >= 0 {
			best = pick
			fs[best] = fmax(frees[best], ready) + exec[best]
		} else {
			all()
		}
		if best < 0 {
			return Placement{}, fs, alts, false
		}
		limit := fs[best] + fmax(0, tie.Within) + tieEpsilon
		if tie.WithinMakespan {
			limit = fmax(limit, horizon(ms)+tieEpsilon) // only the makespan tie reads it
		}
		// The machines the window reads, in machine order: those of the
		// racks that may finish within it, when the racks tell (a NaN
		// limit holds every machine).
		var win []int
		if pick >= 0 && limit == limit {
			win = pr.window(ms, ec, exec, ready, limit, fs)
		} else if pick >= 0 {
			best, bf = -1, 0
			all() // the same choice (pick), every finish written
		}
		// Each machine's energy is its kept rise times the map's time
		// (ec.addedEnergy inlined: a machine with an earliest core has
		// cores).
		ec.riseAt(ms, ready)
		rise, riseOK := ec.rise[:len(ms)], ec.riseOK[:len(ms)]
		if !riseOK[best] {
			ec.setRise(ms, best, ready)
		}
		bestE := rise[best] * exec[best]
		try := func(i int) {
			if cores[i] < 0 || fs[i] > limit || i == best {
				return
			}
			if !riseOK[i] {
				ec.setRise(ms, i, ready)
			}
			e := rise[i] * exec[i]
			if e < bestE-1e-9 || (e <= bestE+1e-9 && fs[i] < fs[best]-tieEpsilon) {
				best, bestE = i, e
			}
		}
		if win != nil {
			for _, i := range win {
				try(i)
			}
		} else {
			for i := range ms {
				try(i)
			}
		}
		c = cand{machine: best, core: cores[best], start: fmax(frees[best], ready), finish: fs[best], exec: exec[best]}
	}
	equal := func(i int) bool {
		if cores[i] < 0 || math.IsInf(frees[i], 1) || i == c.machine || lv[i] != lv[c.machine] {
			return false
		}
		f := fmax(frees[i], ready) + exec[i]
		return math.Abs(f-c.finish) <= sameFinishS
	}
	alt := func(i int) {
		if equal(i) {
			alts = append(alts, i)
		}
	}
	switch {
	case nodeLocal != nil && lv[c.machine] == lvNode:
		for _, i := range nodeLocal {
			if len(alts) >= maxAlts {
				break
			}
			alt(i)
		}
	case pick >= 0 && maxAlts > 0:
		// The racks told the choice: their least finishes (made for
		// this map) pass over those with no machine near the chosen one.
		alts = pr.equal(equal, c.finish, maxAlts, alts)
	default:
		for i := range ms {
			if len(alts) >= maxAlts {
				break
			}
			alt(i)
		}
	}
	ms[c.machine].CoreFree[c.core] = c.finish
	ec.cores[c.machine], ec.frees[c.machine] = ms[c.machine].earliest()
	if c.machine < len(ec.riseOK) {
		ec.riseOK[c.machine] = false // its cores changed
	}
	return Placement{Machine: c.machine, Start: c.start, Finish: c.finish}, fs, alts, true
}

// fmax is math.Max, with the common cases (two different numbers, or the
// same number but zero) inlined; zeros and NaN go to math.Max, so the
// result is math.Max's in every case.
func fmax(x, y float64) float64 {
	if x > y {
		return x
	}
	if y >= x && y != 0 { // equal numbers (idle cores at now) stay inline too
		return y
	}
	return mathMax(x, y)
}

// fmin is math.Min as fmax is math.Max.
func fmin(x, y float64) float64 {
	if x < y {
		return x
	}
	if y <= x && y != 0 {
		return y
	}
	return mathMin(x, y)
}

// mathMax is math.Max out of line, for equal arguments (kept apart so fmax
// inlines).
//
//go:noinline
func mathMax(x, y float64) float64 {
	if x == y && x != 0 {
		return x // the same number
	}
	return math.Max(x, y)
}

// mathMin is math.Min out of line, as mathMax.
//
//go:noinline
func mathMin(x, y float64) float64 {
	if x == y && x != 0 {
		return x
	}
	return math.Min(x, y)
}
