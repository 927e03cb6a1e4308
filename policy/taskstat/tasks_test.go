package taskstat_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/rmsidecar/rmsidecar/events"
	"github.com/rmsidecar/rmsidecar/policy/clustertest"
	"github.com/rmsidecar/rmsidecar/policy/taskstat"
)

// TestDurationsRatesSorted: rates come in out of order (and repeat) and
// Rates is asked at random moments; it always returns every finished
// task's rate, ascending, and RateSum counts them.
func TestDurationsRatesSorted(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	b := clustertest.New(1_000)
	b.Node("n1", "/r1", 1000, 1<<20, 0, 0)
	b.App("app1", "sort", 400, 0)
	d := taskstat.NewDurations()
	var want []float64
	for i := range 400 {
		task, att := fmt.Sprintf("m_%03d", i), fmt.Sprintf("a_%03d", i)
		start := int64(1_000 + rng.IntN(50))
		dur := int64(1 + rng.IntN(30)) // few values: many ties
		b.At(start).Start("app1", task, events.Map, att, "n1", false)
		b.At(start+dur).Finish(att, events.StateSucceeded, nil)
		for k := range b.Log {
			d.Observe(&b.Log[k], b.State)
		}
		b.Log = b.Log[:0]
		want = append(want, 1/float64(dur))
		if rng.IntN(7) == 0 || i == 399 {
			w := slices.Clone(want)
			slices.Sort(w)
			if got := d.Rates("app1", events.Map); !slices.Equal(got, w) {
				t.Fatalf("after %d tasks: Rates = %v, want %v", i+1, got, w)
			}
		}
		if _, n := d.RateSum("app1", events.Map); n != i+1 {
			t.Fatalf("after %d tasks: RateSum counts %d", i+1, n)
		}
	}
}

// TestDurationsSameAsRef holds Durations (per kind, the statistics and
// rates in one record found once per finished task) to a straightforward
// pass over the first successful attempt of every task: maps and reduces
// of two apps, tasks that succeed twice (a copy), failed attempts and
// durations of zero.
func TestDurationsSameAsRef(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	b := clustertest.New(1_000)
	b.Node("n1", "/r1", 1000, 1<<20, 0, 0)
	apps := []string{"app1", "app2"}
	for _, a := range apps {
		b.App(a, "sort", 300, 300)
	}
	d := taskstat.NewDurations()
	type key struct {
		app  string
		kind events.TaskKind
	}
	first := map[key][]float64{} // durations of each task's first success
	counted := map[string]bool{}
	for i := range 600 {
		app := apps[rng.IntN(2)]
		kind := events.Map
		if rng.IntN(3) == 0 {
			kind = events.Reduce
		}
		task := fmt.Sprintf("%s_t_%03d", app, rng.IntN(150))
		att := fmt.Sprintf("%s_a_%03d", task, i)
		start := int64(1_000 + rng.IntN(50))
		dur := int64(rng.IntN(4)) * 7 // zero, and many ties
		state := events.StateSucceeded
		if rng.IntN(5) == 0 {
			state = events.StateFailed
		}
		b.At(start).Start(app, task, kind, att, "n1", false)
		b.At(start+dur).Finish(att, state, nil)
		for k := range b.Log {
			d.Observe(&b.Log[k], b.State)
		}
		b.Log = b.Log[:0]
		if state == events.StateSucceeded && !counted[app+"/"+task] {
			counted[app+"/"+task] = true
			k := key{app, b.State.App(app).Task(task).Kind}
			first[k] = append(first[k], float64(dur))
		}
		for _, a := range apps {
			for _, kind := range []events.TaskKind{events.Map, events.Reduce} {
				ds := first[key{a, kind}]
				var want taskstat.Stats
				var rates []float64
				var sum float64
				for _, x := range ds {
					want.N++
					want.Mean += (x - want.Mean) / float64(want.N)
					if x > 0 {
						rates = append(rates, 1/x)
						sum += 1 / x
					}
				}
				got := d.Of(a, kind)
				if got.N != want.N || math.Abs(got.Mean-want.Mean) > 1e-9 {
					t.Fatalf("step %d: Of(%s, %s) = %+v, want N %d mean %v", i, a, kind, got, want.N, want.Mean)
				}
				if (d.Live(a, kind) == nil) != (len(ds) == 0) {
					t.Fatalf("step %d: Live(%s, %s) nil = %v with %d durations", i, a, kind, d.Live(a, kind) == nil, len(ds))
				}
				gs, gn := d.RateSum(a, kind)
				if gn != len(rates) || math.Abs(gs-sum) > 1e-9 {
					t.Fatalf("step %d: RateSum(%s, %s) = %v, %d, want %v, %d", i, a, kind, gs, gn, sum, len(rates))
				}
				if rng.IntN(10) == 0 {
					slices.Sort(rates)
					if got := d.Rates(a, kind); !slices.Equal(got, rates) {
						t.Fatalf("step %d: Rates(%s, %s) = %v, want %v", i, a, kind, got, rates)
					}
				}
			}
		}
	}
}
