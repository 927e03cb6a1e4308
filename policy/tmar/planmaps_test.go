package tmar

import (
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
)

// planMapsScan is PlanMaps as first written: every step scans every
// machine's cores. The incremental PlanMaps must plan exactly as it does.
func planMapsScan(ms []Machine, rack []int, tasks []MapTask, ready float64, exec func(machine int) float64, tie PowerTie) []Placement {
	nodeQ, rackQ := mapQueues(len(ms), rack, tasks)
	done := make([]bool, len(tasks))
	anyHead := 0
	first := func(q []int) ([]int, int) {
		for len(q) > 0 && done[q[0]] {
			q = q[1:]
		}
		if len(q) == 0 {
			return q, -1
		}
		return q, q[0]
	}
	out := make([]Placement, 0, len(tasks))
	cs := make([]cand, 0, len(ms))
	span := horizon(ms)
	for range tasks {
		cs = cs[:0]
		for i := range ms {
			core, free := ms[i].earliest()
			if core < 0 {
				continue
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
				for anyHead < len(tasks) && done[anyHead] {
					anyHead++
				}
				ti = anyHead
			}
			e := exec(i) + tasks[ti].Read[level]
			start := math.Max(free, ready)
			cs = append(cs, cand{machine: i, core: core, task: ti, start: start, finish: start + e, exec: e})
		}
		k := tie.choose(ms, cs, span)
		if k < 0 {
			break
		}
		c := cs[k]
		done[c.task] = true
		ms[c.machine].CoreFree[c.core] = c.finish
		span = math.Max(span, c.finish)
		out = append(out, Placement{Machine: c.machine, Task: c.task, Start: c.start, Finish: c.finish})
	}
	return out
}

// Random instances full of exact ties and near ties (1e-10 apart, inside
// tieEpsilon), read costs that change along the queues, machines without
// cores and busy ones: the incremental plan equals the scan's, for
// Algorithm 1 and both power tie-breaks, with a fresh working state and
// with one reused from the instances before.
func TestPlanMapsIncrementalSameAsScan(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	pick := func(xs ...float64) float64 { return xs[rng.IntN(len(xs))] }
	ties := []PowerTie{{}, {Power: true, Within: 1}, {Power: true, WithinMakespan: true}}
	var sc planScratch // reused by every other instance, of any size
	for iter := range 3000 {
		nm := 1 + rng.IntN(30)
		nracks := 1 + rng.IntN(4)
		ms := make([]Machine, nm)
		rack := make([]int, nm)
		execs := make([]float64, nm)
		for i := range ms {
			ms[i] = randomMachine(rng, pick)
			rack[i] = rng.IntN(nracks)
			execs[i] = pick(2, 2, 2+1e-10, 3, 4.5)
		}
		tasks := make([]MapTask, 1+rng.IntN(40))
		for k := range tasks {
			for range rng.IntN(4) {
				tasks[k].Local = append(tasks[k].Local, rng.IntN(nm+1)-rng.IntN(2)) // some out of range
			}
			r1 := pick(0.5, 0.5, 0.7)
			tasks[k].Read = [3]float64{0, r1, r1 + pick(0.5, 0.5+1e-10, 1)}
			if iter%3 == 0 { // a node-local read that costs, and differs between maps
				tasks[k].Read[0] = pick(0, 0.2, 0.2+1e-10)
			}
		}
		exec := func(i int) float64 { return execs[i] }
		for _, tie := range ties {
			ready := pick(0, 1)
			a, b := cloneMachines(ms), cloneMachines(ms)
			want := planMapsScan(a, rack, tasks, ready, exec, tie)
			var got []Placement
			if iter%2 == 0 {
				got = PlanMaps(b, rack, tasks, ready, exec, tie)
			} else {
				got = planMaps(&sc, b, rack, tasks, ready, exec, tie)
			}
			if !reflect.DeepEqual(a, b) {
				t.Fatalf("instance %d, tie %+v: core vectors differ after planning", iter, tie)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("instance %d, tie %+v: incremental plan differs\n got %v\nwant %v", iter, tie, got, want)
			}
		}
	}
}

func cloneMachines(ms []Machine) []Machine {
	out := make([]Machine, len(ms))
	for i, m := range ms {
		out[i] = m
		out[i].CoreFree = append([]float64(nil), m.CoreFree...)
	}
	return out
}

// sameCoreState fails the test unless two placements' earliest-core caches
// and machines' core times are equal (the second run's against the first).
func sameCoreState(t *testing.T, iter, step int, ea, eb *earliestCache, a, b []Machine) {
	t.Helper()
	if !reflect.DeepEqual(ea.cores, eb.cores) {
		t.Fatalf("instance %d, step %d: earliest cores differ", iter, step)
	}
	for i := range a {
		for c := range a[i].CoreFree {
			if !sameFloat(a[i].CoreFree[c], b[i].CoreFree[c]) {
				t.Fatalf("instance %d, step %d: core %d/%d is %v, want %v", iter, step, i, c, b[i].CoreFree[c], a[i].CoreFree[c])
			}
		}
	}
}

// mergeFinishLoop is mergeFinish as first written: the least finish of the
// two, and the least of the four values above it.
func mergeFinishLoop(a, b finishNode) finishNode {
	r := a
	if b.m1 < a.m1 {
		r = b
	}
	r.m2 = math.Inf(1)
	for _, v := range [4]float64{a.m1, a.m2, b.m1, b.m2} {
		if v > r.m1 && v < r.m2 {
			r.m2 = v
		}
	}
	return r
}

// mergeFinish gives what the four-value loop gives on every pair of tree
// nodes the tree can hold (m2 above m1 or +Inf), ties and +Inf included.
func TestMergeFinishSameAsLoop(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	vals := []float64{0, 1, 1 + 1e-10, 2, 3, math.Inf(1)}
	node := func(i int) finishNode {
		m1 := vals[rng.IntN(len(vals))]
		m2 := math.Inf(1)
		if rng.IntN(2) == 0 {
			for _, v := range vals {
				if v > m1 && rng.IntN(2) == 0 {
					m2 = v
					break
				}
			}
		}
		return finishNode{m1: m1, m2: m2, i1: i}
	}
	for range 100000 {
		a, b := node(rng.IntN(10)), node(rng.IntN(10))
		if got, want := mergeFinish(a, b), mergeFinishLoop(a, b); got != want {
			t.Fatalf("%+v %+v: got %+v want %+v", a, b, got, want)
		}
	}
}

// fmax and fmin are math.Max and math.Min, signed zeros, infinities and
// NaN included.
func TestFmaxFminAsMath(t *testing.T) {
	vals := []float64{math.Inf(-1), -3, -1e-300, math.Copysign(0, -1), 0, 1e-300, 2, 2, math.Inf(1), math.NaN()}
	same := func(a, b float64) bool {
		return math.Float64bits(a) == math.Float64bits(b) || (math.IsNaN(a) && math.IsNaN(b))
	}
	for _, x := range vals {
		for _, y := range vals {
			if !same(fmax(x, y), math.Max(x, y)) || !same(fmin(x, y), math.Min(x, y)) {
				t.Fatalf("%v %v: fmax %v fmin %v, math %v %v", x, y, fmax(x, y), fmin(x, y), math.Max(x, y), math.Min(x, y))
			}
		}
	}
}

// finishTree.update stops at the first node whose value stays the same:
// after random updates (ties, +Inf, absent offers, the same value again,
// signed zeros) every node is the one a full build over the leaves makes.
func TestFinishTreeUpdateSameAsBuild(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 2))
	vals := []float64{0, math.Copysign(0, -1), 1, 1 + 1e-10, 2, 3, math.Inf(1)}
	var tree finishTree
	for range 300 {
		n := 1 + rng.IntN(40)
		tree.reset(n)
		present := make([]bool, n)
		fin := make([]float64, n)
		for i := range n {
			present[i], fin[i] = rng.IntN(6) > 0, vals[rng.IntN(len(vals))]
			tree.set(i, present[i], fin[i])
		}
		tree.build()
		for range 200 {
			i := rng.IntN(n)
			if rng.IntN(4) > 0 { // else the same offer again
				present[i], fin[i] = rng.IntN(6) > 0, vals[rng.IntN(len(vals))]
			}
			tree.update(i, present[i], fin[i])
			var ref finishTree
			ref.reset(n)
			for j := range n {
				ref.set(j, present[j], fin[j])
			}
			ref.build()
			for k := 1; k < len(ref.nodes); k++ {
				if !sameFinishNode(tree.nodes[k], ref.nodes[k]) {
					t.Fatalf("n %d, node %d after updating %d: got %+v want %+v", n, k, i, tree.nodes[k], ref.nodes[k])
				}
			}
		}
	}
}

// TestPlanQueuedSameAsSubset holds planQueued, over every task's queues
// with some tasks marked done beforehand, to planMaps over the tasks not
// done alone: the same placements (Task mapped back) and core vectors, for
// Algorithm 1 and both power tie-breaks, the queues made once and planned
// from several times (their heads are advanced in place, so each plan
// starts from a copy of them).
func TestPlanQueuedSameAsSubset(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 5))
	pick := func(xs ...float64) float64 { return xs[rng.IntN(len(xs))] }
	ties := []PowerTie{{}, {Power: true, Within: 1}, {Power: true, WithinMakespan: true}}
	var sc, ref planScratch
	for iter := range 2000 {
		nm := 1 + rng.IntN(40)
		nracks := 1 + rng.IntN(5)
		ms := make([]Machine, nm)
		rack := make([]int, nm)
		execs := make([]float64, nm)
		for i := range ms {
			ms[i] = randomMachine(rng, pick)
			rack[i] = rng.IntN(nracks)
			execs[i] = pick(2, 2, 2+1e-10, 3, 4.5)
		}
		tasks := make([]MapTask, 1+rng.IntN(60))
		for k := range tasks {
			for range rng.IntN(4) {
				tasks[k].Local = append(tasks[k].Local, rng.IntN(nm+1)-rng.IntN(2))
			}
			r1 := pick(0.5, 0.5, 0.7)
			tasks[k].Read = [3]float64{pick(0, 0, 0.2), r1, r1 + pick(0.5, 0.5+1e-10, 1)}
		}
		exec := func(i int) float64 { return execs[i] }
		var q planScratch // the queues, made once for every plan below
		rk, nr := q.denseRacks(rack)
		nodeQ0, rackQ0 := q.queues(nm, rk, nr, tasks)
		for round := range 3 {
			done := make([]bool, len(tasks))
			var sub []MapTask
			var at []int // sub's tasks in tasks
			for k := range tasks {
				if round > 0 && rng.IntN(3) == 0 {
					done[k] = true
					continue
				}
				sub, at = append(sub, tasks[k]), append(at, k)
			}
			for _, tie := range ties {
				ready := pick(0, 1)
				a, b := cloneMachines(ms), cloneMachines(ms)
				want := slices.Clone(planMaps(&ref, a, rack, sub, ready, exec, tie))
				for k := range want {
					want[k].Task = at[want[k].Task]
				}
				nodeQ, rackQ := slices.Clone(nodeQ0), slices.Clone(rackQ0)
				got := planQueued(&sc, b, rk, nr, nodeQ, rackQ, tasks, slices.Clone(done), len(sub), ready, exec, tie)
				if !reflect.DeepEqual(a, b) {
					t.Fatalf("instance %d round %d, tie %+v: core vectors differ after planning", iter, round, tie)
				}
				if len(got) != len(want) || (len(want) > 0 && !reflect.DeepEqual(got, want)) {
					t.Fatalf("instance %d round %d, tie %+v: plan differs\n got %v\nwant %v", iter, round, tie, got, want)
				}
			}
		}
	}
}

// randomMachine draws a machine of 0-3 cores (mostly at least one) whose
// cores come free at a few close times, for the random plan tests (the
// draws in the order the tests made them inline).
func randomMachine(rng *rand.Rand, pick func(...float64) float64) Machine {
	cores := rng.IntN(4) // 0: no core
	if rng.IntN(10) > 0 {
		cores = max(cores, 1)
	}
	m := Machine{Name: "m", CoreFree: make([]float64, cores), PowerIdleW: pick(100, 150), PowerMaxW: pick(300, 350)}
	for c := range m.CoreFree {
		m.CoreFree[c] = pick(0, 0, 1, 1+1e-10, 2.5, 3)
	}
	return m
}
