package taskstat_test

import (
	"fmt"
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
