package tmar

import (
	"math"
	"math/rand/v2"
	"reflect"
	"testing"
)

// placeMapBefore is placeMap as it was before its power tie-break wrote
// the finishes by index and kept the earliest so far in a local (it
// appended them and read the earliest back from fs).
func placeMapBefore(ms []Machine, ec *earliestCache, exec []float64, lv []uint8, nodeLocal []int, ready float64, tie PowerTie,
	maxAlts int, fs []float64, alts []int) (Placement, []float64, []int, bool) {
	cores, frees := ec.cores, ec.frees
	alts = alts[:0]
	var c cand
	if !tie.Power {
		best := -1
		var bf, bs float64
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
		if best < 0 {
			return Placement{}, fs, alts, false
		}
		c = cand{machine: best, core: cores[best], start: bs, finish: bf, exec: exec[best]}
	} else {
		// PowerTie.choose over the machines with a free core, in machine
		// order, without a candidate list: the earliest finish, then of
		// the finishes within the tie the one adding the least power.
		fs = fs[:0]
		best := -1
		for i := range ms {
			if cores[i] < 0 {
				fs = append(fs, 0)
				continue
			}
			f := fmax(frees[i], ready) + exec[i]
			fs = append(fs, f)
			if best < 0 || f < fs[best]-tieEpsilon {
				best = i
			}
		}
		if best < 0 {
			return Placement{}, fs, alts, false
		}
		limit := fs[best] + fmax(0, tie.Within) + tieEpsilon
		if tie.WithinMakespan {
			limit = fmax(limit, horizon(ms)+tieEpsilon) // only the makespan tie reads it
		}
		bestE := ms[best].addedEnergy(fmax(frees[best], ready), exec[best])
		for i := range ms {
			if cores[i] < 0 || fs[i] > limit || i == best {
				continue
			}
			e := ms[i].addedEnergy(fmax(frees[i], ready), exec[i])
			if e < bestE-1e-9 || (e <= bestE+1e-9 && fs[i] < fs[best]-tieEpsilon) {
				best, bestE = i, e
			}
		}
		c = cand{machine: best, core: cores[best], start: fmax(frees[best], ready), finish: fs[best], exec: exec[best]}
	}
	alt := func(i int) {
		if cores[i] < 0 || math.IsInf(frees[i], 1) || i == c.machine || lv[i] != lv[c.machine] {
			return
		}
		if f := fmax(frees[i], ready) + exec[i]; math.Abs(f-c.finish) <= sameFinishS {
			alts = append(alts, i)
		}
	}
	if nodeLocal != nil && lv[c.machine] == lvNode {
		for _, i := range nodeLocal {
			if len(alts) >= maxAlts {
				break
			}
			alt(i)
		}
	} else {
		for i := range ms {
			if len(alts) >= maxAlts {
				break
			}
			alt(i)
		}
	}
	ms[c.machine].CoreFree[c.core] = c.finish
	ec.cores[c.machine], ec.frees[c.machine] = ms[c.machine].earliest()
	return Placement{Machine: c.machine, Start: c.start, Finish: c.finish}, fs, alts, true
}

// TestPlaceMapPowerSameAsBefore holds placeMap's power tie-break to the
// code it replaces (placeMapBefore): random clusters where the
// earliest finish falls along the pass (descending, ascending and mixed
// finishes), windows of zero, tieEpsilon, a second and infinite, the
// makespan tie, finishes 1e-10 and tieEpsilon apart, NaN and infinite map
// times and a NaN window, the ready time changed between maps now and
// then. Placement, equal nodes, finishes and cores must all be the same
// (placeMap reads each machine's energy rise from its earliestCache).
func TestPlaceMapPowerSameAsBefore(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 26))
	pick := func(xs ...float64) float64 { return xs[rng.IntN(len(xs))] }
	for iter := range 3000 {
		nm := 1 + rng.IntN(90)
		ms := make([]Machine, nm)
		for i := range ms {
			cores := rng.IntN(4)
			if rng.IntN(10) > 0 {
				cores = max(cores, 1)
			}
			ms[i] = Machine{Name: "m", CoreFree: make([]float64, cores), PowerIdleW: pick(100, 150), PowerMaxW: pick(300, 300+1e-7, 350)}
			for c := range ms[i].CoreFree {
				ms[i].CoreFree[c] = pick(0, 0, 1, 1+1e-10, 2.5, 3, math.Inf(1))
			}
		}
		tie := PowerTie{Power: true, Within: pick(0, tieEpsilon, 1e-10, 0.5, 1, math.Inf(1)), WithinMakespan: rng.IntN(3) == 0}
		if rng.IntN(50) == 0 {
			tie.Within = math.NaN()
		}
		a, b := cloneMachines(ms), cloneMachines(ms)
		var ea, eb earliestCache
		var fa, fb []float64
		var aa, ab []int
		now := pick(0, 1)
		shape := rng.IntN(3)
		for step := range 1 + rng.IntN(20) {
			if rng.IntN(4) == 0 {
				// Another ready time on the same cores: the energy rises
				// the cache keeps are of the ready time before.
				now = pick(0, 1, 2.5, 3)
			}
			exec := make([]float64, nm)
			lv := make([]uint8, nm)
			for i := range exec {
				switch shape {
				case 0: // falling along the pass: the window narrows often
					exec[i] = 10 - float64(i)*pick(0.1, 1e-10, tieEpsilon, 0)
				case 1:
					exec[i] = 2 + float64(i)*pick(0.1, 1e-10, tieEpsilon, 0)
				default:
					exec[i] = pick(2, 2, 2+1e-10, 2+tieEpsilon, 2.05, 2.1, 3, 4.5)
				}
				switch rng.IntN(100) {
				case 0:
					exec[i] = math.NaN()
				case 1:
					exec[i] = math.Inf(1)
				}
				lv[i] = uint8(rng.IntN(4))
			}
			if !ea.ok {
				ea.fill(a)
				eb.fill(b)
			}
			maxAlts := rng.IntN(5)
			var want, got Placement
			var wantOK, ok bool
			want, fa, aa, wantOK = placeMapBefore(a, &ea, exec, lv, nil, now, tie, maxAlts, fa, aa)
			got, fb, ab, ok = placeMap(b, &eb, exec, lv, nil, now, tie, maxAlts, fb, ab)
			if ok != wantOK || !samePlacement(got, want) || !reflect.DeepEqual(append([]int{}, ab...), append([]int{}, aa...)) {
				t.Fatalf("instance %d, tie %+v, step %d: got %v %v %v, want %v %v %v", iter, tie, step, got, ab, ok, want, aa, wantOK)
			}
			if len(fa) != len(fb) {
				t.Fatalf("instance %d step %d: %d finishes, want %d", iter, step, len(fb), len(fa))
			}
			for i := range fa {
				if !sameFloat(fa[i], fb[i]) {
					t.Fatalf("instance %d step %d: finish %d is %v, want %v", iter, step, i, fb[i], fa[i])
				}
			}
			sameCoreState(t, iter, step, &ea, &eb, a, b)
		}
	}
}

// sameFloat is == with NaN equal to NaN.
func sameFloat(x, y float64) bool { return x == y || (x != x && y != y) }

func samePlacement(a, b Placement) bool {
	return a.Machine == b.Machine && a.Task == b.Task && sameFloat(a.Start, b.Start) && sameFloat(a.Finish, b.Finish)
}

// TestEarliestCacheEnergySameAsMachine holds the energy rises the
// earliestCache keeps to Machine.addedEnergy, bit for bit: random clusters
// of random power (so that rises at different loads differ in their last
// bits), TMaR* placements one after another updating the cores, the ready
// time changed now and then; after each, every machine's energy for a
// random map time is asked of both.
func TestEarliestCacheEnergySameAsMachine(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 17))
	pick := func(xs ...float64) float64 { return xs[rng.IntN(len(xs))] }
	for iter := range 2000 {
		nm := 1 + rng.IntN(40)
		ms := make([]Machine, nm)
		for i := range ms {
			cores := rng.IntN(6)
			if rng.IntN(10) > 0 {
				cores = max(cores, 1)
			}
			idle := pick(100, 97.3+rng.Float64()*10)
			ms[i] = Machine{Name: "m", CoreFree: make([]float64, cores), PowerIdleW: idle, PowerMaxW: idle + pick(200, 1e-7, 153.1+rng.Float64()*100)}
			for c := range ms[i].CoreFree {
				ms[i].CoreFree[c] = pick(0, 0, 1, 1+1e-10, 2.5, 3, 7, math.Inf(1), math.NaN())
			}
		}
		tie := PowerTie{Power: true, Within: pick(0, 0.5, 1, 10, math.Inf(1))}
		var ec earliestCache
		ec.fill(ms)
		var fs []float64
		var alts []int
		ready := pick(0, 1, 2)
		lv := make([]uint8, nm)
		for step := range 1 + rng.IntN(25) {
			if rng.IntN(4) == 0 {
				ready = pick(0, 1, 2, 2.5, 6, math.NaN())
			}
			exec := make([]float64, nm)
			for i := range exec {
				exec[i] = pick(1, 2, 2+1e-10, 3.7, 0.3+rng.Float64())
			}
			_, fs, alts, _ = placeMap(ms, &ec, exec, lv, nil, ready, tie, 0, fs, alts)
			for i := range ms {
				if ec.cores[i] < 0 {
					continue
				}
				x := pick(1, 2.5, 0.1+rng.Float64()*10)
				got, want := ec.addedEnergy(ms, i, ready, x), ms[i].addedEnergy(fmax(ec.frees[i], ready), x)
				if math.Float64bits(got) != math.Float64bits(want) && !(got != got && want != want) {
					t.Fatalf("instance %d, step %d, machine %d (cores %v, ready %v): cached energy %v, addedEnergy %v",
						iter, step, i, ms[i].CoreFree, ready, got, want)
				}
			}
		}
	}
}
