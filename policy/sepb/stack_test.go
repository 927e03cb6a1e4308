package sepb_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/rmsidecar/rmsidecar/engine"
	"github.com/rmsidecar/rmsidecar/events"
	"github.com/rmsidecar/rmsidecar/policy"
	"github.com/rmsidecar/rmsidecar/policy/clustertest"
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
	st, err := plugins.NewRegistry().Build(context.Background(), stack, policy.Handle{})
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

// sixJobsEvents is DynamicMR's six-job example as events: one 40-vcore node
// with 4 idle vcores (LATE's SpeculativeCap: 10 % of 40 = 4); J1…J5 run 5,
// 4, 3, 2, 1 straggling maps (J1 also 15 healthy ones, so its stragglers fall
// below LATE's 25th-percentile rate) and J3…J6 wait with 10, 10, 15, 20
// pending maps. J3…J5 are not LATE's candidates anyway: their own pending
// maps come first.
func sixJobsEvents() []events.Event {
	b := clustertest.New(now - 120_000)
	b.Node("n1", "r1", 40, 80*1024, 36, 36*1024)
	straggling := []int{5, 4, 3, 2, 1, 0}
	pending := []int{0, 0, 10, 10, 15, 20}
	healthy := []int{15, 0, 0, 0, 0, 0}
	for j := range 6 {
		app := fmt.Sprintf("J%d", j+1)
		b.App(app, "sort", straggling[j]+healthy[j]+pending[j], 0)
		for k := range straggling[j] + healthy[j] {
			task := fmt.Sprintf("%s_m%02d", app, k)
			b.Start(app, task, events.Map, task+"_0", "n1", false)
		}
		for k := range pending[j] {
			b.Pending(app, fmt.Sprintf("%s_p%02d", app, k), events.Map)
		}
	}
	b.At(now)
	for j := range 6 {
		for k := range straggling[j] + healthy[j] {
			pp := 0.9
			switch {
			case j == 0 && k < straggling[j]:
				pp = 0.05 + 0.01*float64(k) // J1_m00 is the slowest
			case k < straggling[j]:
				// J2…J5 crawl alike: LATE ranks a job's tasks against each
				// other, so none of them is below its own 25th percentile.
				pp = 0.06
			}
			b.Progress(fmt.Sprintf("J%d_m%02d_0", j+1, k), pp*2/3, "map", pp)
		}
	}
	b.Heartbeat("n1", 36, 36*1024)
	return b.Log
}

// TestSixJobExampleThroughLATE: LATE alone spawns four copies for J1 and
// takes all four idle containers; with SEPB on top (maxNumOfJobsChecked 4)
// the four copies are denied, leaving the containers to the pending maps of
// J3 and J4.
func TestSixJobExampleThroughLATE(t *testing.T) {
	count := func(hs []policy.Hint) (spec, deny map[string]int) {
		spec, deny = map[string]int{}, map[string]int{}
		for _, h := range hs {
			switch h.Kind {
			case policy.KindSpeculate:
				spec[h.App]++
			case policy.KindDenySpeculation:
				deny[h.App]++
			}
		}
		return spec, deny
	}
	spec, deny := count(runStack(t, "late", sixJobsEvents()))
	if spec["J1"] != 4 || len(spec) != 1 || len(deny) != 0 {
		t.Fatalf("late alone: copies %v, denials %v; want 4 copies for J1", spec, deny)
	}
	st, err := plugins.NewRegistry().Build(context.Background(), "late+sepb", policy.Handle{Args: args{"sepb": {"max_jobs_checked": 4}}})
	if err != nil {
		t.Fatal(err)
	}
	eng := engine.New(st, engine.Options{})
	ctx := context.Background()
	var hs []policy.Hint
	evs := sixJobsEvents()
	for i := range evs {
		hs = append(hs, eng.Apply(ctx, &evs[i])...)
	}
	hs = append(hs, eng.Tick(ctx, now)...)
	spec, deny = count(hs)
	if len(spec) != 0 || deny["J1"] != 4 || len(deny) != 1 {
		t.Fatalf("late+sepb: copies %v, denials %v; want J1's 4 copies denied", spec, deny)
	}
}
