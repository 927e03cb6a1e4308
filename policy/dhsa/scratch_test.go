package dhsa

import (
	"math/rand/v2"
	"reflect"
	"sort"
	"testing"
)

// refWaterfill is waterfill as it was (2c772e2), the reference.
func refWaterfill(capacity int, demand []int, weight []float64) []int {
	got := make([]int, len(demand))
	if capacity <= 0 {
		return got
	}
	open := make([]int, 0, len(demand))
	for i, d := range demand {
		if d > 0 {
			open = append(open, i)
		}
	}
	left := capacity
	for len(open) > 0 && left > 0 {
		var wsum float64
		for _, i := range open {
			wsum += weight[i]
		}
		// Satisfy every claimant whose remaining demand fits its share.
		var still []int
		satisfied := false
		for _, i := range open {
			share := float64(left) * weight[i] / wsum
			if need := demand[i] - got[i]; float64(need) <= share+1e-9 {
				got[i] += need
				satisfied = true
				continue
			}
			still = append(still, i)
		}
		if satisfied {
			left = capacity
			for _, g := range got {
				left -= g
			}
			open = still
			continue
		}
		// Nobody fits: split what is left by weight, whole units first.
		type frac struct {
			i int
			f float64
		}
		fr := make([]frac, 0, len(open))
		given := 0
		for _, i := range open {
			share := float64(left) * weight[i] / wsum
			whole := floorEps(share)
			got[i] += whole
			given += whole
			fr = append(fr, frac{i, share - float64(whole)})
		}
		sort.SliceStable(fr, func(a, b int) bool { return fr[a].f > fr[b].f+1e-12 })
		for k := 0; k < left-given && k < len(fr); k++ {
			got[fr[k].i]++
		}
		break
	}
	return got
}

// waterfill with slices lent by a scratch that lives across calls gives
// what the waterfill it replaced gave (fresh slices, sort.SliceStable), on
// random demands and weights with many ties and more than one insertion
// block (20) of fractional shares.
func TestWaterfillSameAsRef(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var sc scratch
	for i := range 20000 {
		n := 1 + r.IntN(60)
		demand, weight := make([]int, n), make([]float64, n)
		for k := range n {
			demand[k] = r.IntN(12) - 1
			weight[k] = []float64{1, 1, 2, 0.5, 1.0 / 3, 3}[r.IntN(6)]
		}
		capacity := r.IntN(8*n) - 2
		want := refWaterfill(capacity, demand, weight)
		if got := sc.waterfill(capacity, demand, weight); !reflect.DeepEqual(got, want) {
			t.Fatalf("case %d: waterfill(%d, %v, %v) = %v, reference %v", i, capacity, demand, weight, got, want)
		}
		if got := waterfill(capacity, demand, weight); !reflect.DeepEqual(got, want) {
			t.Fatalf("case %d: waterfill without scratch = %v, reference %v", i, got, want)
		}
		if r.IntN(3) == 0 {
			sc.reset()
		}
	}
}

// The allocations with a scratch and a result array reused across calls
// are those with fresh slices, for both variants, on random pools.
func TestAllocateScratchSameAsFresh(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	var sc scratch
	var dPI, dPD []Allocation
	for i := range 5000 {
		pools := make([]PoolDemand, 1+r.IntN(12))
		for k := range pools {
			pools[k] = PoolDemand{Name: string(rune('a' + k)), Weight: []float64{1, 2, 0.5, 0}[r.IntN(4)],
				Maps: r.IntN(40), Reduces: r.IntN(20)}
		}
		slots := Slots{r.IntN(60), r.IntN(60)}
		b := Borrow{Weights: Weights{Map: 1, Reduce: []float64{1, 2}[r.IntN(2)]}, PctMap: r.Float64(), PctReduce: r.Float64()}
		wantPI, wantC := AllocatePI(pools, slots, b)
		got, c := allocatePI(dPI, pools, slots, b, &sc)
		if !reflect.DeepEqual(got, wantPI) || c != wantC {
			t.Fatalf("case %d: allocatePI = %+v %v, fresh %+v %v", i, got, c, wantPI, wantC)
		}
		dPI = got
		wantPD := AllocatePD(pools, slots, b)
		if got := allocatePD(dPD, pools, slots, b, &sc); !reflect.DeepEqual(got, wantPD) {
			t.Fatalf("case %d: allocatePD = %+v, fresh %+v", i, got, wantPD)
		} else {
			dPD = got
		}
	}
}
