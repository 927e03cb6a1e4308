package tmar

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/rmsidecar/rmsidecar/cluster"
	"github.com/rmsidecar/rmsidecar/events"
)

// placeMapScan is Place's map step as first written: every call finds each
// machine's earliest core by a pass over its cores, ranks the machines,
// runs scheduleOne and takes the strict hold's equal nodes from the
// ranking. placeMap (with its earliest-core cache) must do exactly this.
func placeMapScan(ms []Machine, exec []float64, lv []uint8, now float64, tie PowerTie, maxAlts int) (Placement, []int, bool) {
	type rc struct {
		i      int
		finish float64
	}
	var cands []rc
	cores := make([]int, len(ms))
	frees := make([]float64, len(ms))
	for i := range ms {
		cores[i], frees[i] = ms[i].earliest()
		if !math.IsInf(frees[i], 1) {
			cands = append(cands, rc{i, math.Max(frees[i], now) + exec[i]})
		}
	}
	best, ok := scheduleOne(ms, cores, frees, now, func(i int) float64 { return exec[i] }, tie)
	if !ok {
		return best, nil, false
	}
	var alts []int
	for _, c := range cands {
		if len(alts) >= maxAlts {
			break
		}
		if c.i != best.Machine && lv[c.i] == lv[best.Machine] && math.Abs(c.finish-best.Finish) <= sameFinishS {
			alts = append(alts, c.i)
		}
	}
	return best, alts, true
}

// Random sequences of Place calls over machines full of exact and near
// ties (1e-10 apart, inside tieEpsilon), finishes around sameFinishS apart,
// machines without a free core, and the cores changed between calls by
// something else (PRB, a re-plan: the cache is reset): placeMap's choice,
// equal nodes and core vectors are the scan's, for Algorithm 1 and both
// power tie-breaks.
func TestPlaceMapCachedSameAsScan(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	pick := func(xs ...float64) float64 { return xs[rng.IntN(len(xs))] }
	ties := []PowerTie{{}, {Power: true, Within: 1}, {Power: true, WithinMakespan: true}}
	for iter := range 2000 {
		nm := 1 + rng.IntN(25)
		ms := make([]Machine, nm)
		for i := range ms {
			cores := rng.IntN(4)
			if rng.IntN(10) > 0 {
				cores = max(cores, 1)
			}
			ms[i] = Machine{Name: fmt.Sprint("m", i), CoreFree: make([]float64, cores), PowerIdleW: pick(100, 150), PowerMaxW: pick(300, 350)}
			for c := range ms[i].CoreFree {
				ms[i].CoreFree[c] = pick(0, 0, 1, 1+1e-10, 2.5, 3, math.Inf(1))
			}
		}
		for _, tie := range ties {
			a, b := cloneMachines(ms), cloneMachines(ms)
			var ec earliestCache
			var cs []float64
			var alts []int
			now := pick(0, 1)
			for step := range 1 + rng.IntN(30) {
				if rng.IntN(8) == 0 { // something else moves a core
					i := rng.IntN(nm)
					if len(a[i].CoreFree) > 0 {
						c, v := rng.IntN(len(a[i].CoreFree)), pick(0.5, 2, 4)
						a[i].CoreFree[c], b[i].CoreFree[c] = v, v
						ec.ok = false
					}
				}
				exec := make([]float64, nm)
				lv := make([]uint8, nm)
				for i := range exec {
					exec[i] = pick(2, 2, 2+1e-10, 2.05, 2.1, 2.1+1e-9, 3, 4.5)
					lv[i] = uint8(rng.IntN(4))
				}
				maxAlts := rng.IntN(5)
				want, wantAlts, wantOK := placeMapScan(a, exec, lv, now, tie, maxAlts)
				if !ec.ok || len(ec.cores) != nm {
					ec.fill(b)
				}
				var got Placement
				var ok bool
				var local []int // the node-local machines, or nil: not listed
				if rng.IntN(2) == 0 {
					local = []int{}
					for i, l := range lv {
						if l == lvNode {
							local = append(local, i)
						}
					}
				}
				got, cs, alts, ok = placeMap(b, &ec, exec, lv, local, now, tie, maxAlts, cs, alts)
				if ok != wantOK || (ok && (got != want || !reflect.DeepEqual(append([]int{}, alts...), append([]int{}, wantAlts...)))) {
					t.Fatalf("instance %d, tie %+v, step %d: got %v %v %v, want %v %v %v", iter, tie, step, got, alts, ok, want, wantAlts, wantOK)
				}
				if !reflect.DeepEqual(a, b) {
					t.Fatalf("instance %d, tie %+v, step %d: core vectors differ", iter, tie, step)
				}
			}
		}
	}
}

// levels is what Place read the locality from before levelCodes: for each
// machine of the current model, the locality of t's input there.
func (p *Plugin) levels(t *cluster.Task) []events.Locality {
	out := make([]events.Locality, len(p.machines))
	racks := map[int]bool{}
	hosts := 0
	for _, sp := range t.Splits {
		for _, h := range sp.Hosts {
			hosts++
			if i, ok := p.hostIdx[h]; ok && out[i] != events.NodeLocal {
				out[i] = events.NodeLocal
				racks[p.rackIx[i]] = true
			}
		}
	}
	if hosts == 0 {
		return out
	}
	for i := range out {
		switch {
		case out[i] == events.NodeLocal:
		case racks[p.rackIx[i]]:
			out[i] = events.RackLocal
		default:
			out[i] = events.OffRack
		}
	}
	return out
}

// levelCodes gives the levels levels gives, on random clusters and splits
// (hosts unknown to the model, repeated, none), one plugin per cluster
// reused for several maps; execOnLevels picks each machine's column by
// its level as Place did.
func TestLevelCodesSameAsLevels(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 1))
	for iter := range 2000 {
		nm := 1 + rng.IntN(40)
		p := &Plugin{}
		p.machines = make([]Machine, nm)
		p.hostIdx = map[string]int{}
		p.rackIx = make([]int, nm)
		nr := 1 + rng.IntN(6)
		for i := range nm {
			p.rackIx[i] = rng.IntN(nr)
			p.hostIdx[fmt.Sprint("h", i)] = i
			p.hostIdx[fmt.Sprint("h", i, ":8041")] = i
		}
		for range 3 {
			task := &cluster.Task{}
			for range rng.IntN(3) {
				var sp events.Split
				for range rng.IntN(4) {
					sp.Hosts = append(sp.Hosts, fmt.Sprint("h", rng.IntN(nm+3)))
				}
				task.Splits = append(task.Splits, sp)
			}
			want := p.levels(task)
			got := p.levelCodes(task)
			local := []int{}
			for i := range want {
				if lvLocality[got[i]] != want[i] {
					t.Fatalf("instance %d machine %d: got %q want %q", iter, i, lvLocality[got[i]], want[i])
				}
				if want[i] == events.NodeLocal {
					local = append(local, i)
				}
			}
			// The node-local machines in machine order (placeMap's nodeLocal).
			if !reflect.DeepEqual(p.localBuf, local) {
				t.Fatalf("instance %d: node-local machines %v, want %v", iter, p.localBuf, local)
			}
			// execOnLevels is Place's pick of a column by level, machine by machine.
			col, colRack, colOff := make([]float64, nm), make([]float64, nm), make([]float64, nm)
			for i := range nm {
				col[i], colRack[i], colOff[i] = rng.Float64(), rng.Float64(), rng.Float64()
			}
			exec := p.execOnLevels(got, col, colRack, colOff, nil)
			for i, l := range got {
				want := col[i] // nothing to read (node-local, or no known input)
				switch l {
				case lvRack:
					want = colRack[i]
				case lvOff:
					want = colOff[i]
				}
				if exec[i] != want {
					t.Fatalf("instance %d machine %d (level %d): exec %v, want %v", iter, i, l, exec[i], want)
				}
			}
		}
	}
}

// holds writes the finish as fmt's %.1f did, with strconv.
func TestHoldReasonAsSprintf(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for range 100000 {
		x := rng.Float64() * math.Pow(10, float64(rng.IntN(8)-2))
		want := fmt.Sprintf("%.1f", x)
		if got := strconv.FormatFloat(x, 'f', 1, 64); got != want {
			t.Fatalf("%v: got %s want %s", x, got, want)
		}
	}
	for _, x := range []float64{0.05, 0.15, 0.25, 1e-300, 1e300, math.Inf(1), 12345.65} {
		if got, want := strconv.FormatFloat(x, 'f', 1, 64), fmt.Sprintf("%.1f", x); got != want {
			t.Fatalf("%v: got %s want %s", x, got, want)
		}
	}
}

// holdCores, in order of finish per machine (in its buckets, with a fresh
// scratch and with one reused), leaves the cores the model
// before left taking the reservations in order of finish then task id over
// all machines, on random reservations full of equal finishes.
func TestHoldCoresPerMachine(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 6))
	var sc holdScratch // reused by every other instance, of any size
	for iter := range 3000 {
		nm := 1 + rng.IntN(6)
		ms := make([]Machine, nm)
		for i := range ms {
			ms[i].CoreFree = make([]float64, 1+rng.IntN(4))
			for c := range ms[i].CoreFree {
				ms[i].CoreFree[c] = float64(rng.IntN(4))
			}
		}
		type res struct {
			id      string
			machine int
			finish  float64
		}
		rs := make([]res, rng.IntN(20))
		for k := range rs {
			rs[k] = res{fmt.Sprintf("t%03d", rng.IntN(1000)), rng.IntN(nm), float64(rng.IntN(6))}
		}
		want := cloneMachines(ms)
		sorted := slices.Clone(rs)
		slices.SortStableFunc(sorted, func(a, b res) int {
			if c := cmp.Compare(a.finish, b.finish); c != 0 {
				return c
			}
			return strings.Compare(a.id, b.id)
		})
		for _, r := range sorted {
			m := &want[r.machine]
			c, free := m.earliest()
			m.CoreFree[c] = math.Max(free, r.finish)
		}
		got := cloneMachines(ms)
		hs := make([]held, 0, len(rs))
		for _, k := range rng.Perm(len(rs)) {
			hs = append(hs, held{rs[k].machine, rs[k].finish})
		}
		if iter%2 == 0 {
			holdCores(got, hs, &holdScratch{})
		} else {
			holdCores(got, hs, &sc)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("instance %d: got %v want %v", iter, got, want)
		}
	}
}
