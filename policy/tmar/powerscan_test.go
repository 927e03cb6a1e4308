package tmar

import (
	"math"
	"math/bits"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
)

// powerScanRef is the pass powerScan replaces: every offer in machine order.
func powerScanRef(fin, en []float64, pres []bool, best int, limit float64) int {
	bestE := en[best]
	for i, f := range fin {
		if !pres[i] || f > limit || i == best {
			continue
		}
		e := en[i]
		if e < bestE-1e-9 || (e <= bestE+1e-9 && f < fin[best]-tieEpsilon) {
			best, bestE = i, e
		}
	}
	return best
}

// TestPowerScanSameAsRef holds powerScan, with its blocks kept up to date
// by touch as offers change between scans, to the plain pass: random
// clusters whose energies and finishes are close (within and around the
// 1e-9 and tieEpsilon tolerances) or equal, offers absent, NaNs, windows.
func TestPowerScanSameAsRef(t *testing.T) {
	rng := rand.New(rand.NewPCG(20, 4))
	for run := range 300 {
		n := 1 + rng.IntN(150)
		fin, en, pres := make([]float64, n), make([]float64, n), make([]bool, n)
		baseE, baseF := 100+rng.Float64(), 1000.0
		steps := []float64{0, 1e-10, 5e-10, 1e-9, 2e-9, 1e-6, tieEpsilon / 2, tieEpsilon, 2 * tieEpsilon, 0.5, 3}
		set := func(i int) {
			pres[i] = rng.IntN(10) > 0
			en[i] = baseE + steps[rng.IntN(len(steps))]*float64(rng.IntN(5)-2)
			fin[i] = baseF + steps[rng.IntN(len(steps))]*float64(rng.IntN(5))
			switch rng.IntN(200) {
			case 0:
				en[i] = math.NaN()
			case 1:
				fin[i] = math.NaN()
			case 2:
				fin[i] = math.Inf(1)
			}
		}
		for i := range n {
			set(i)
		}
		var bl powerBlocks
		bl.reset(n)
		for range 30 {
			for range rng.IntN(4) {
				i := rng.IntN(n)
				set(i)
				if pres[i] || rng.IntN(2) == 0 { // planMaps does not touch an offer gone
					bl.touch(i)
				}
			}
			best := -1
			for i := range n {
				if pres[i] && (best < 0 || fin[i] < fin[best]-tieEpsilon) {
					best = i
				}
			}
			if best < 0 {
				continue
			}
			limit := fin[best] + []float64{0, tieEpsilon, 1, math.Inf(1)}[rng.IntN(4)]
			bl.refresh(fin, en, pres)
			checkPowerMasks(t, &bl, fin, pres)
			if got, want := powerScan(fin, en, pres, &bl, best, limit), powerScanRef(fin, en, pres, best, limit); got != want {
				t.Fatalf("run %d: powerScan %d, the plain pass %d (n %d, best %d, limit %v)", run, got, want, n, best, limit)
			}
		}
	}
}

// TestPlanMapsPowerBlocksSameAsScan is TestPlanMapsIncrementalSameAsScan's
// check for TMaR* on clusters of several powerBlocks, whose summaries
// planMaps keeps as offers change (or come back the same) map after map:
// the plan and the core vectors of the plain scan (planMapsScan).
func TestPlanMapsPowerBlocksSameAsScan(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 20))
	pick := func(xs ...float64) float64 { return xs[rng.IntN(len(xs))] }
	ties := []PowerTie{{Power: true, Within: 1}, {Power: true, WithinMakespan: true}, {Power: true}}
	var sc planScratch
	for iter := range 400 {
		nm := 1 + rng.IntN(130)
		ms := make([]Machine, nm)
		rack := make([]int, nm)
		execs := make([]float64, nm)
		nracks := 1 + rng.IntN(6)
		for i := range ms {
			cores := rng.IntN(4)
			if rng.IntN(10) > 0 {
				cores = max(cores, 1)
			}
			ms[i] = Machine{Name: "m", CoreFree: make([]float64, cores), PowerIdleW: pick(100, 150), PowerMaxW: pick(300, 300+1e-7, 350)}
			for c := range ms[i].CoreFree {
				ms[i].CoreFree[c] = pick(0, 0, 1, 1+1e-10, 2.5, 3)
			}
			rack[i] = rng.IntN(nracks)
			execs[i] = pick(2, 2, 2+1e-10, 2+1e-8, 3, 4.5)
		}
		tasks := make([]MapTask, 1+rng.IntN(120))
		for k := range tasks {
			for range rng.IntN(4) {
				tasks[k].Local = append(tasks[k].Local, rng.IntN(nm))
			}
			r1 := pick(0.5, 0.5, 0.7)
			tasks[k].Read = [3]float64{pick(0, 0, 0.2), r1, r1 + pick(0.5, 0.5+1e-10, 1)}
		}
		exec := func(i int) float64 { return execs[i] }
		for _, tie := range ties {
			ready := pick(0, 1)
			a, b := cloneMachines(ms), cloneMachines(ms)
			want := planMapsScan(a, rack, tasks, ready, exec, tie)
			got := planMaps(&sc, b, rack, tasks, ready, exec, tie)
			if !reflect.DeepEqual(a, b) {
				t.Fatalf("instance %d, tie %+v: core vectors differ after planning", iter, tie)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("instance %d, tie %+v: plan differs\n got %v\nwant %v", iter, tie, got, want)
			}
		}
	}
}

// checkPowerMasks holds each block's prefix masks to the offers: the k-th
// holds k+1 machines of the block, grows by one machine at each step,
// holds no present one finishing after that prefix's last finish and
// every present one finishing before it.
func checkPowerMasks(t *testing.T, bl *powerBlocks, fin []float64, pres []bool) {
	t.Helper()
	for b := range bl.n {
		if bl.odd[b] {
			continue
		}
		lo := b * powerBlock
		prev := uint32(0)
		for k := range bl.n[b] {
			m, f := bl.mask[lo+k], bl.fin[lo+k]
			if bits.OnesCount32(m) != k+1 || m&prev != prev {
				t.Fatalf("block %d prefix %d: mask %032b after %032b", b, k, m, prev)
			}
			for i := lo; i < min(len(fin), lo+powerBlock); i++ {
				if !pres[i] { // an offer gone may be left in its block untouched
					continue
				}
				if in := m&(1<<(i-lo)) != 0; in && fin[i] > f || !in && fin[i] < f {
					t.Fatalf("block %d prefix %d (finish %v): machine %d (finish %v) wrongly in or out of the mask %032b", b, k, f, i, fin[i], m)
				}
			}
			prev = m
		}
	}
}

// withinBySearch is the count powerBlocks.within replaces: the binary
// search powerScan made for every block at every map.
func withinBySearch(sf []float64, limit float64) int {
	c := len(sf)
	if c > 0 && !(sf[c-1] <= limit) {
		lo, hi := 0, c-1 // sf[hi] is past the window
		for lo < hi {
			if mid := (lo + hi) / 2; sf[mid] <= limit {
				lo = mid + 1
			} else {
				hi = mid
			}
		}
		c = lo
	}
	return c
}

// TestPowerWithinSameAsSearch holds the walk from the last count to the
// binary search: blocks of sorted finishes (repeats, infinities), limits
// that go up, down, repeat, fall on a finish or are NaN, and counts left
// by another block's length (a refresh changes n, not the hint).
func TestPowerWithinSameAsSearch(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 3))
	vals := []float64{math.Inf(-1), 0, 1, 1, 1 + 1e-12, 2, 2.5, 3, 7, math.Inf(1)}
	for run := range 20000 {
		var bl powerBlocks
		bl.reset(powerBlock)
		bl.win[0] = rng.IntN(powerBlock + 1)
		for range 8 {
			sf := make([]float64, rng.IntN(powerBlock+1))
			for k := range sf {
				sf[k] = vals[rng.IntN(len(vals))]
			}
			slices.Sort(sf)
			for range 4 {
				limit := vals[rng.IntN(len(vals))]
				switch rng.IntN(6) {
				case 0:
					limit = math.NaN()
				case 1:
					limit += 1e-9 * float64(rng.IntN(3)-1)
				}
				if got, want := bl.within(0, sf, limit), withinBySearch(sf, limit); got != want {
					t.Fatalf("run %d: within %d, the search %d (finishes %v, limit %v)", run, got, want, sf, limit)
				}
			}
		}
	}
}
