package tmar

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestRackPickSameAsScan holds Place's choice by rack (rackPick, then
// placeMapPick, with TMaR*'s tie window read by rack in half the
// instances: windows of 0, 1e-10, tieEpsilon, 0.5 s to +Inf and NaN, the
// makespan tie) to placeMap's scan over every machine: 3,000 random
// clusters (racks contiguous, round robin or random; machines without
// cores; equal, close (1e-10, tieEpsilon) and far finishes; NaN and
// infinite cores and times), each placing a run of maps one after another
// that share a base column, with replica racks of their own whose machines
// read other times, the column, the cores' fill and the ready time changed
// now and then. Placement, equal nodes and every core must be the same,
// and the racks must have told the choice in a good share of the maps.
func TestRackPickSameAsScan(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 21))
	pick := func(xs ...float64) float64 { return xs[rng.IntN(len(xs))] }
	told, maps := 0, 0
	for iter := range 3000 {
		n := 1 + rng.IntN(120)
		nr := 1 + rng.IntN(max(1, n/3))
		rackOf := make([]int, n)
		for i := range rackOf {
			switch iter % 3 {
			case 0:
				rackOf[i] = i * nr / n // contiguous
			case 1:
				rackOf[i] = i % nr
			default:
				rackOf[i] = rng.IntN(nr)
			}
		}
		byRack := make([][]int, nr)
		for i, r := range rackOf {
			byRack[r] = append(byRack[r], i)
		}
		ms := make([]Machine, n)
		for i := range ms {
			cores := rng.IntN(4)
			if rng.IntN(8) > 0 {
				cores = max(cores, 1)
			}
			idle := pick(100, 97.3+rng.Float64()*10)
			ms[i] = Machine{Name: "m", CoreFree: make([]float64, cores), PowerIdleW: idle, PowerMaxW: idle + pick(200, 153.1+rng.Float64()*100)}
			for c := range ms[i].CoreFree {
				ms[i].CoreFree[c] = pick(0, 0, 1, 1+1e-10, 1+tieEpsilon, 2.5, 3, 40, math.Inf(1))
				if rng.IntN(300) == 0 {
					ms[i].CoreFree[c] = math.NaN()
				}
			}
		}
		a, b := cloneMachines(ms), cloneMachines(ms)
		var ea, eb earliestCache
		ea.fill(a)
		eb.fill(b)
		var rp rackPick
		var tie PowerTie // Algorithm 1, or 2 (TMaR*) in half the instances
		if iter%2 == 1 {
			tie = PowerTie{Power: true, Within: pick(0, 1e-10, tieEpsilon, 0.5, 1, 3, math.Inf(1)), WithinMakespan: rng.IntN(4) == 0}
			if rng.IntN(40) == 0 {
				tie.Within = math.NaN()
			}
		}
		var colGen uint64 = 1
		ready := pick(0, 1, 2)
		newBase := func() []float64 {
			base := make([]float64, n)
			for i := range base {
				base[i] = pick(2, 2, 2+1e-10, 2+tieEpsilon, 2.05, 3, 4.5, 7+rng.Float64())
				switch rng.IntN(400) {
				case 0:
					base[i] = math.NaN()
				case 1:
					base[i] = math.Inf(1)
				}
			}
			return base
		}
		base := newBase()
		var fa, fb []float64
		var aa, ab []int
		for step := range 1 + rng.IntN(60) {
			switch rng.IntN(30) {
			case 0:
				ready = pick(0, 1, 2, 5)
			case 1:
				base, colGen = newBase(), colGen+1
			case 2:
				ea.fill(a)
				eb.fill(b)
			}
			// The map's replica racks; their machines read other times.
			var except []int
			for range rng.IntN(4) {
				if r := rng.IntN(nr); !slices.Contains(except, r) {
					except = append(except, r)
				}
			}
			exec := slices.Clone(base)
			lv := make([]uint8, n)
			for i := range lv {
				lv[i] = lvOff
			}
			for _, r := range except {
				for _, i := range byRack[r] {
					exec[i] = base[i] - pick(0, 0.5, 1, 1e-10)
					lv[i] = uint8(1 + rng.IntN(2))
					if rng.IntN(200) == 0 {
						exec[i] = math.NaN()
					}
				}
			}
			maxAlts := rng.IntN(5)
			want, wa, wantAlts, wantOK := placeMap(a, &ea, exec, lv, nil, ready, tie, maxAlts, fa, aa)
			fa, aa = wa, wantAlts
			k := rp.pick(b, &eb, exec, base, byRack, except, pickKey{colGen: colGen, ecGen: eb.gen, ready: ready, off: true})
			pr := &pickRacks{machine: k, rp: &rp, byRack: byRack, except: except}
			got, wb, gotAlts, ok := placeMapPick(b, &eb, exec, lv, nil, ready, tie, maxAlts, fb, ab, pr)
			fb, ab = wb, gotAlts
			maps++
			if k >= 0 {
				told++
			}
			if ok != wantOK || !samePlacement(got, want) || !slices.Equal(gotAlts, wantAlts) {
				t.Fatalf("instance %d, tie %+v, step %d (pick %d): got %v %v %v, want %v %v %v", iter, tie, step, k, got, gotAlts, ok, want, wantAlts, wantOK)
			}
			if ok {
				rp.placed(rackOf[got.Machine])
			}
			sameCoreState(t, iter, step, &ea, &eb, a, b)
		}
	}
	t.Logf("racks told %d of %d", told, maps)
	if told*4 < maps {
		t.Fatalf("the racks told %d of %d choices: the test hardly reaches them", told, maps)
	}
}
