package dhsa

import (
	"math"
	"sort"
)

// Weights are the resource weights of a map and a reduce slot (§2.1.1, C2).
type Weights struct{ Map, Reduce float64 }

// MaxRunning is the slot-weight bound of §2.1.1: a node (or cluster) with
// mapSlots and reduceSlots has total weight mapSlots·w_M + reduceSlots·w_R;
// maps may use all of it (total/w_M maps), reduces too (total/w_R reduces).
// The paper's example: 8/4 slots with weights 1 and 2 give 16 maps or
// 8/2 + 4 = 8 reduces.
func (w Weights) MaxRunning(mapSlots, reduceSlots int) (maxMaps, maxReduces int) {
	total := float64(mapSlots)*w.Map + float64(reduceSlots)*w.Reduce
	return floorEps(total / w.Map), floorEps(total / w.Reduce)
}

// mapsFromReduceSlots converts idle reduce slots into map tasks.
func (w Weights) mapsFromReduceSlots(slots float64) int { return floorEps(slots * w.Reduce / w.Map) }

// reducesFromMapSlots converts idle map slots into reduce tasks.
func (w Weights) reducesFromMapSlots(slots float64) int { return floorEps(slots * w.Map / w.Reduce) }

// reduceSlotsFor is how many reduce slots n maps borrow (rounded up).
func (w Weights) reduceSlotsFor(maps int) int { return ceilEps(float64(maps) * w.Map / w.Reduce) }

// mapSlotsFor is how many map slots n reduces borrow (rounded up).
func (w Weights) mapSlotsFor(reduces int) int { return ceilEps(float64(reduces) * w.Reduce / w.Map) }

// floorEps and ceilEps round after removing float noise, so 0.3·10/1 is 3.
func floorEps(x float64) int { return int(math.Floor(x + 1e-9)) }
func ceilEps(x float64) int  { return int(math.Ceil(x - 1e-9)) }

// Case is one of the four scenarios of PI-DHSA (§2.1.1) for map demand N_M,
// reduce demand N_R, map slots S_M and reduce slots S_R.
type Case int

// The four cases of §2.1.1.
const (
	// Case1: N_M ≤ S_M and N_R ≤ S_R: no borrowing.
	Case1 Case = 1
	// Case2: N_M > S_M and N_R < S_R: reduces are served first, idle
	// reduce slots run maps.
	Case2 Case = 2
	// Case3: N_M < S_M and N_R > S_R: idle map slots run reduces.
	Case3 Case = 3
	// Case4: both phases are short of slots (N_M ≥ S_M and N_R ≥ S_R, one
	// strictly): the cluster is busy, no slot moves. The boundaries the
	// paper leaves open (N_M > S_M with N_R = S_R, and the converse) have no
	// idle slot to lend, so they behave as Case 4.
	Case4 Case = 4
)

// Classify returns the §2.1.1 case of the demands and slots.
func Classify(nM, nR, sM, sR int) Case {
	switch {
	case nM <= sM && nR <= sR:
		return Case1
	case nM > sM && nR < sR:
		return Case2
	case nM < sM && nR > sR:
		return Case3
	}
	return Case4
}

// waterfill shares capacity among claimants with demands and weights by
// weighted max-min fairness (progressive filling): no claimant gets more
// than its demand, and capacity left by satisfied claimants is shared again
// among the others in proportion to their weights. Whole units left by
// rounding go to the claimants with the largest fractional share, ties to
// the lower index, so the result depends only on the inputs' order.
func waterfill(capacity int, demand []int, weight []float64) []int {
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
