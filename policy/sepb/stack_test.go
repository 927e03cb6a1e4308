package sepb_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/rmsidecar/rmsidecar/engine"
	"github.com/rmsidecar/rmsidecar/events"
	"github.com/rmsidecar/rmsidecar/policy"
	"github.com/rmsidecar/rmsidecar/policy/baseline/clustertest"
	"github.com/rmsidecar/rmsidecar/policy/plugins"
)

// stragglerAndQueue: job A's map a3 crawls while a0-a2 are nearly done; job B
// waits with five pending maps; two containers are free.
func stragglerAndQueue(withQueue bool) []events.Event {
	b := clustertest.New(now - 100_000)
	b.Node("n1", "r1", 8, 16384, 6, 6144)
	b.Node("n2", "r1", 8, 16384, 8, 8192)
	b.App("A", "sort", 4, 0)
	for k := range 4 {
		id := fmt.Sprintf("a%d", k)
		b.Start("A", id, events.Map, id+"_0", "n1", false)
	}
	b.App("B", "sort", 5, 0)
	if withQueue {
		for k := range 5 {
			b.Pending("B", fmt.Sprintf("b%d", k), events.Map)
		}
	}
	b.At(now)
	for k := range 3 {
		b.Progress(fmt.Sprintf("a%d_0", k), 0.6, "map", 0.9)
	}
	b.Progress("a3_0", 0.07, "map", 0.1)
	b.Heartbeat("n1", 6, 6144)
	return b.Log
}

func runStack(t *testing.T, stack string, evs []events.Event) []policy.Hint {
	t.Helper()
	st, err := plugins.NewRegistry().Build(stack, policy.Handle{})
	if err != nil {
		t.Fatal(err)
	}
	eng := engine.New(st, engine.Options{})
	ctx := context.Background()
	var out []policy.Hint
	for i := range evs {
		out = append(out, eng.Apply(ctx, &evs[i])...)
	}
	return append(out, eng.Tick(ctx, now)...)
}

// TestLATEPlusSEPB runs the stack "late+sepb" through the engine: LATE's copy
// of a3 becomes a deny-speculation while job B's pending maps want the free
// containers, and goes out as proposed when B has none.
func TestLATEPlusSEPB(t *testing.T) {
	count := func(hs []policy.Hint) (spec, deny int) {
		for _, h := range hs {
			switch {
			case h.Kind == policy.KindSpeculate && h.Task == "a3" && h.Policy == "late":
				spec++
			case h.Kind == policy.KindDenySpeculation && h.Task == "a3" && h.Policy == "sepb":
				deny++
			}
		}
		return spec, deny
	}
	if spec, deny := count(runStack(t, "late", stragglerAndQueue(true))); spec != 1 || deny != 0 {
		t.Fatalf("late alone: %d copies, %d denials; want 1, 0", spec, deny)
	}
	if spec, deny := count(runStack(t, "late+sepb", stragglerAndQueue(true))); spec != 0 || deny != 1 {
		t.Fatalf("late+sepb with B pending: %d copies, %d denials; want 0, 1", spec, deny)
	}
	if spec, deny := count(runStack(t, "late+sepb", stragglerAndQueue(false))); spec != 1 || deny != 0 {
		t.Fatalf("late+sepb, nothing pending: %d copies, %d denials; want 1, 0", spec, deny)
	}
}
