package dhsa

import (
	"math"
	"slices"
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
	return (*scratch)(nil).waterfill(capacity, demand, weight)
}

// waterfill is waterfill with its slices lent by sc.
func (sc *scratch) waterfill(capacity int, demand []int, weight []float64) []int {
	got := sc.ints(len(demand))
	if capacity <= 0 {
		return got
	}
	open := sc.ints(len(demand))[:0]
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
		still := sc.ints(len(open))[:0]
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
		fr := sc.fracs(len(open))[:0]
		given := 0
		for _, i := range open {
			share := float64(left) * weight[i] / wsum
			whole := floorEps(share)
			got[i] += whole
			given += whole
			fr = append(fr, frac{i, share - float64(whole)})
		}
		// The same stable sort as sort.SliceStable with less a.f > b.f+1e-12
		// (slices' stable sort is sort's, comparing by cmp < 0), without
		// its reflection.
		slices.SortStableFunc(fr, func(a, b frac) int {
			switch {
			case a.f > b.f+1e-12:
				return -1
			case b.f > a.f+1e-12:
				return 1
			}
			return 0
		})
		for k := 0; k < left-given && k < len(fr); k++ {
			got[fr[k].i]++
		}
		break
	}
	return got
}

// frac is a claimant's fractional share in waterfill.
type frac struct {
	i int
	f float64
}

// scratch lends the slices of one allocation from buffers kept between
// calls (Shape allocates again at every change of demand); a nil scratch
// makes new ones. What it lent stays valid until reset.
type scratch struct {
	is []int
	fs []float64
	rs []frac
}

func (sc *scratch) reset() {
	if sc != nil {
		sc.is, sc.fs, sc.rs = sc.is[:0], sc.fs[:0], sc.rs[:0]
	}
}

// ints lends n zeroed ints; appending to them past n reallocates rather
// than running into the next loan.
func (sc *scratch) ints(n int) []int {
	if sc == nil {
		return make([]int, n)
	}
	sc.is = lend(sc.is, n)
	return sc.is[len(sc.is)-n : len(sc.is) : len(sc.is)]
}

func (sc *scratch) floats(n int) []float64 {
	if sc == nil {
		return make([]float64, n)
	}
	sc.fs = lend(sc.fs, n)
	return sc.fs[len(sc.fs)-n : len(sc.fs) : len(sc.fs)]
}

func (sc *scratch) fracs(n int) []frac {
	if sc == nil {
		return make([]frac, n)
	}
	sc.rs = lend(sc.rs, n)
	return sc.rs[len(sc.rs)-n : len(sc.rs) : len(sc.rs)]
}

// lend extends buf by n zeroed elements; when it must grow, the new array
// leaves the loans made from the old one alone.
func lend[T any](buf []T, n int) []T {
	if len(buf)+n > cap(buf) {
		buf = make([]T, len(buf), max(64, 2*(len(buf)+n)))
	}
	buf = buf[:len(buf)+n]
	clear(buf[len(buf)-n:])
	return buf
}
