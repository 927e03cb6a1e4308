package tmar

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// psDurationBefore is sharedPlan.psDuration as it was before it computed
// the contention of the running transfers once: three passes, each calling
// contend.
func psDurationBefore(sp *sharedPlan, link []int, x, t0 float64) (dur, harm float64) {
	work := x
	for _, j := range link {
		if sp.xs[j].start <= t0 {
			work += sp.contend(j, x, t0, 0)
		}
	}
	first := work / sp.cap
	work = x
	for _, j := range link {
		work += sp.contend(j, x, t0, first)
	}
	dur = work / sp.cap
	for _, j := range link {
		c := sp.contend(j, x, t0, dur)
		if c <= 0 {
			continue
		}
		o := &sp.rs[sp.xs[j].owner]
		if late := sp.xs[j].end + c/sp.cap + sp.lat - o.shuffleEnd; late > 0 {
			harm = fmax(harm, sp.coreFree[o.machine][o.core]+late)
		}
	}
	return dur, harm
}

// addXferBefore is sharedPlan.addXfer as it was before it read psDuration's
// contention back: contend called again per transfer of the link.
func addXferBefore(sp *sharedPlan, link *[]int, x xfer, moved map[int]bool) {
	d, _ := psDurationBefore(sp, *link, x.bytes, x.start)
	for _, j := range *link {
		if c := sp.contend(j, x.bytes, x.start, d); c > 0 {
			sp.xs[j].end += c / sp.cap
			moved[sp.xs[j].owner] = true
		}
	}
	x.end = x.start + d
	sp.xs = append(sp.xs, x)
	*link = append(*link, len(sp.xs)-1)
	sp.rs[x.owner].xfers = append(sp.rs[x.owner].xfers, len(sp.xs)-1)
}

// randSharedPlan is a plan with random transfers on two links of one
// machine's and random reducers owning them: starts before, at and after
// t0 (equal ones among them), ends before and after, zero-length spans,
// NaN and infinite times and bytes.
func randSharedPlan(rng *rand.Rand, t0 float64) *sharedPlan {
	pick := func(xs ...float64) float64 { return xs[rng.IntN(len(xs))] }
	cap := pick(1, 125e6, 1e9, math.Inf(1))
	sp := &sharedPlan{cap: cap, lat: pick(0, 0.001, 0.5), out: make([][]int, 3), in: make([][]int, 3)}
	machines := 1 + rng.IntN(4)
	for m := range machines {
		cores := 1 + rng.IntN(3)
		cf := make([]float64, cores)
		for c := range cf {
			cf[c] = t0 + pick(-5, 0, 1, 7.5, 40, math.Inf(1), math.NaN())
		}
		sp.coreFree = append(sp.coreFree, cf)
		_ = m
	}
	nr := 1 + rng.IntN(6)
	for range nr {
		m := rng.IntN(machines)
		sp.rs = append(sp.rs, boundReducer{machine: m, core: rng.IntN(len(sp.coreFree[m])),
			shuffleEnd: t0 + pick(-3, 0, 2, 10, 50, math.NaN())})
	}
	nx := rng.IntN(12)
	for range nx {
		start := t0 + pick(-10, -1, 0, 0, 0.5, 3, 20, math.NaN())
		end := start + pick(0, 0.25, 1, 5, 30, -1, math.Inf(1), math.NaN())
		if rng.IntN(6) == 0 {
			end = t0 + pick(-2, 0, 4)
		}
		x := xfer{start: start, end: end, bytes: pick(0, 1, 1e6, 3e8, 5e9, math.Inf(1), math.NaN()), owner: rng.IntN(nr)}
		sp.xs = append(sp.xs, x)
		l := rng.IntN(3)
		if rng.IntN(2) == 0 {
			sp.out[l] = append(sp.out[l], len(sp.xs)-1)
		} else {
			sp.in[l] = append(sp.in[l], len(sp.xs)-1)
		}
		sp.rs[x.owner].xfers = append(sp.rs[x.owner].xfers, len(sp.xs)-1)
	}
	return sp
}

// cloneSharedPlan copies what psDuration and addXfer read and write.
func cloneSharedPlan(sp *sharedPlan) *sharedPlan {
	c := *sp
	c.xs = slices.Clone(sp.xs)
	c.out, c.in = make([][]int, len(sp.out)), make([][]int, len(sp.in))
	for i := range sp.out {
		c.out[i], c.in[i] = slices.Clone(sp.out[i]), slices.Clone(sp.in[i])
	}
	c.rs = slices.Clone(sp.rs)
	for i := range c.rs {
		c.rs[i].xfers = slices.Clone(sp.rs[i].xfers)
	}
	c.cont = nil
	return &c
}

// TestPsDurationSameAsRef holds psDuration (durations, harms and the
// contention it leaves in cont) and addXfer (the ends moved, the owners
// marked, the new transfer) to the code before on 20,000 random links,
// one plan's buffer reused from link to link.
func TestPsDurationSameAsRef(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 20))
	pick := func(xs ...float64) float64 { return xs[rng.IntN(len(xs))] }
	var cont []float64 // a buffer carried from plan to plan, as bindShared does
	for run := range 20000 {
		t0 := pick(0, 100, 1e9, 1.7637e9+0.1)
		sp := randSharedPlan(rng, t0)
		sp.cont = cont
		links := append(slices.Clone(sp.out), sp.in...)
		for li, link := range links {
			x := pick(0, 1, 1e6, 3e8, 2e9, math.Inf(1), math.NaN())
			at := t0 + pick(0, 0, -1, 0.5, 3, 20)
			d, h := sp.psDuration(link, x, at)
			wd, wh := psDurationBefore(sp, link, x, at)
			if !sameBits(d, wd) || !sameBits(h, wh) {
				t.Fatalf("run %d link %d: psDuration %v, %v; before %v, %v", run, li, d, h, wd, wh)
			}
			if len(sp.cont) != len(link) {
				t.Fatalf("run %d link %d: %d contentions for %d transfers", run, li, len(sp.cont), len(link))
			}
			for k, j := range link {
				if c := sp.contend(j, x, at, d); !sameBits(sp.cont[k], c) {
					t.Fatalf("run %d link %d: cont[%d] = %v, contend %v", run, li, k, sp.cont[k], c)
				}
			}
		}
		// addXfer on a copy each, one link after another.
		a, b := cloneSharedPlan(sp), cloneSharedPlan(sp)
		a.cont = sp.cont
		for range 1 + rng.IntN(4) {
			l := rng.IntN(3)
			x := xfer{start: t0 + pick(0, 0, 1, 5), bytes: pick(1, 1e6, 3e8, math.NaN()), owner: rng.IntN(len(sp.rs))}
			var ms movedSet
			ma, mb := map[int]bool{}, map[int]bool{}
			if rng.IntN(2) == 0 {
				a.addXfer(&a.out[l], x, &ms)
				addXferBefore(b, &b.out[l], x, mb)
			} else {
				a.addXfer(&a.in[l], x, &ms)
				addXferBefore(b, &b.in[l], x, mb)
			}
			for _, o := range ms.drain() {
				ma[o] = true
			}
			if len(ma) != len(mb) {
				t.Fatalf("run %d: addXfer moved %v, before %v", run, ma, mb)
			}
			for o := range mb {
				if !ma[o] {
					t.Fatalf("run %d: addXfer moved %v, before %v", run, ma, mb)
				}
			}
			if len(a.xs) != len(b.xs) {
				t.Fatalf("run %d: %d transfers, before %d", run, len(a.xs), len(b.xs))
			}
			for j := range a.xs {
				xa, xb := a.xs[j], b.xs[j]
				if !sameBits(xa.start, xb.start) || !sameBits(xa.end, xb.end) || !sameBits(xa.bytes, xb.bytes) || xa.owner != xb.owner {
					t.Fatalf("run %d: transfer %d %+v, before %+v", run, j, xa, xb)
				}
			}
			for i := range a.out {
				if !slices.Equal(a.out[i], b.out[i]) || !slices.Equal(a.in[i], b.in[i]) {
					t.Fatalf("run %d: links differ", run)
				}
			}
		}
		cont = a.cont
	}
}
