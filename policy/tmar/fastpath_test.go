package tmar

import (
	"math"
	"math/rand/v2"
	"reflect"
	"testing"
)

// Random core vectors of equal times, zeros of both signs, NaN and
// infinities: earliestOf is the fold of fmin (math.Min) it replaces, bit
// for bit.
func TestEarliestOfAsFold(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 2))
	vals := []float64{0, math.Copysign(0, -1), 1, 1, 2.5, 3 + 1e-10, -1, math.Inf(1), math.Inf(-1), math.NaN()}
	for iter := range 20000 {
		cores := make([]float64, rng.IntN(6))
		for i := range cores {
			cores[i] = vals[rng.IntN(len(vals))]
		}
		want := math.Inf(1)
		for _, f := range cores {
			want = math.Min(want, f)
		}
		if got := earliestOf(cores); math.Float64bits(got) != math.Float64bits(want) && !(math.IsNaN(got) && math.IsNaN(want)) {
			t.Fatalf("instance %d: earliestOf(%v) = %v, want %v", iter, cores, got, want)
		}
	}
}

// mapQueuesRef is mapQueues before its racks seen per map were a slice.
func mapQueuesRef(machines int, rack []int, tasks []MapTask) (nodeQ [][]int, rackQ map[int][]int) {
	nodeQ = make([][]int, machines)
	rackQ = map[int][]int{}
	for ti, t := range tasks {
		seen := map[int]bool{}
		for _, m := range t.Local {
			if m < 0 || m >= machines {
				continue
			}
			nodeQ[m] = append(nodeQ[m], ti)
			if r := rack[m]; !seen[r] {
				seen[r] = true
				rackQ[r] = append(rackQ[r], ti)
			}
		}
	}
	return nodeQ, rackQ
}

// Random maps with up to 8 replicas (repeated, outside the machines, many
// racks, numbered below the machines' count or not): mapQueues, on rack
// queues by dense number, gives mapQueuesRef's queues.
func TestMapQueuesSameAsRef(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 9))
	for iter := range 2000 {
		machines := 1 + rng.IntN(12)
		rack := make([]int, machines)
		for i := range rack {
			rack[i] = rng.IntN(6)
			if iter%4 == 0 { // racks beyond the machines' count, negative ones (renumbered)
				rack[i] = 100 - rng.IntN(200)
			}
		}
		tasks := make([]MapTask, rng.IntN(10))
		for k := range tasks {
			for range rng.IntN(9) {
				tasks[k].Local = append(tasks[k].Local, rng.IntN(machines+2)-1)
			}
		}
		gn, gr := mapQueues(machines, rack, tasks)
		wn, wr := mapQueuesRef(machines, rack, tasks)
		if !reflect.DeepEqual(gn, wn) || !reflect.DeepEqual(gr, wr) {
			t.Fatalf("instance %d: mapQueues = %v %v, want %v %v", iter, gn, gr, wn, wr)
		}
	}
}
