package sepb_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/rmsidecar/rmsidecar/events"
	"github.com/rmsidecar/rmsidecar/policy"
	"github.com/rmsidecar/rmsidecar/policy/clustertest"
	"github.com/rmsidecar/rmsidecar/policy/sepb"
)

const now = 10_000_000

// args are policy settings as in the YAML file.
type args = clustertest.Args

func newSEPB(t *testing.T, a args) *sepb.Plugin {
	t.Helper()
	h := policy.Handle{}
	if a != nil {
		h.Args = a
	}
	p, err := sepb.New(context.Background(), h)
	if err != nil {
		t.Fatal(err)
	}
	return p.(*sepb.Plugin)
}

// sixJobs is DynamicMR §2.2.1, Fig. 5: jobs J1…J6 with 5, 4, 3, 2, 1, 0
// straggling (running) tasks and 0, 0, 10, 10, 15, 20 pending ones, and
// `free` idle containers. LATE (SpeculativeCap 4) would spawn four copies
// for J1; they are the proposals.
func sixJobs(free int) (*clustertest.Builder, []policy.Hint) {
	b := clustertest.New(now - 120_000)
	b.Node("n1", "r1", 40, 40*2048, 40-free, (40-free)*2048)
	straggling := []int{5, 4, 3, 2, 1, 0}
	pending := []int{0, 0, 10, 10, 15, 20}
	for j := range 6 {
		app := fmt.Sprintf("J%d", j+1)
		b.App(app, "sort", straggling[j]+pending[j], 0)
		for k := range straggling[j] {
			task := fmt.Sprintf("%s_m%d", app, k)
			b.Start(app, task, events.Map, task+"_0", "n1", false)
		}
		for k := range pending[j] {
			b.Pending(app, fmt.Sprintf("%s_p%d", app, k), events.Map)
		}
	}
	b.At(now)
	b.Heartbeat("n1", 40-free, (40-free)*1024)
	var proposed []policy.Hint
	for k := range 4 {
		task := fmt.Sprintf("J1_m%d", k)
		proposed = append(proposed, policy.Hint{Kind: policy.KindSpeculate, App: "J1", Task: task,
			Attempt: task + "_0", Node: "n1", Policy: "late", Reason: "late: longest TTE"})
	}
	return b, proposed
}

func gate(t *testing.T, p *sepb.Plugin, b *clustertest.Builder, proposed []policy.Hint) (kept, denied []policy.Hint) {
	t.Helper()
	out, st := p.Gate(context.Background(), b.State, proposed)
	if !st.IsSuccess() {
		t.Fatal(st.Message())
	}
	for _, h := range out {
		if err := h.Validate(); err != nil {
			t.Fatalf("invalid %+v: %v", h, err)
		}
		switch h.Kind {
		case policy.KindSpeculate:
			kept = append(kept, h)
		case policy.KindDenySpeculation:
			denied = append(denied, h)
		default:
			t.Fatalf("unexpected %+v", h)
		}
	}
	return kept, denied
}

// TestSixJobExample: maxNumOfJobsCheckedForPendingTasks = 4 and four idle
// containers. J1 has no pending tasks (condition 1) and J1…J4 hold 20 pending
// maps (condition 2), so J1 is skipped: all four containers go to the
// pending tasks of J3 and J4, none to J1's copies.
func TestSixJobExample(t *testing.T) {
	b, proposed := sixJobs(4)
	kept, denied := gate(t, newSEPB(t, args{"sepb": {"max_jobs_checked": 4}}), b, proposed)
	if len(kept) != 0 || len(denied) != 4 {
		t.Fatalf("kept %d, denied %d; want 0 and 4", len(kept), len(denied))
	}
	for i, h := range denied {
		if h.App != "J1" || h.Task != proposed[i].Task {
			t.Errorf("deny %d = %+v", i, h)
		}
		for _, s := range []string{"conditions 1+2", "20 maps", "4 jobs", "4 free containers"} {
			if !strings.Contains(h.Reason, s) {
				t.Errorf("reason %q lacks %q", h.Reason, s)
			}
		}
	}
}

func TestGate(t *testing.T) {
	tests := []struct {
		name      string
		args      args
		free      int
		proposals func([]policy.Hint) []policy.Hint
		kept      int
		reason    string
	}{
		{"percentage 0 checks no job: LATE as is", args{"sepb": {"percentage_of_jobs_checked": 0}}, 4, nil, 4, ""},
		{"percentage 1.0 (default) checks all six", nil, 4, nil, 0, "55 maps and 0 reduces pending in the 6 jobs"},
		// ceil(0.34 * 6) = 3 jobs: J1..J3 hold 10 pending maps.
		{"percentage 0.34: J1..J3", args{"sepb": {"percentage_of_jobs_checked": 0.34}}, 4, nil, 0, "10 maps and 0 reduces pending in the 3 jobs"},
		{"window J1, J2 has no pending task", args{"sepb": {"max_jobs_checked": 2}}, 4, nil, 4, ""},
		// 22 free containers, 20 claimed by pending maps: two copies fit.
		{"free containers beyond the pending demand go to copies", args{"sepb": {"max_jobs_checked": 4}}, 22, nil, 2, "20 free containers"},
		{"a job with its own pending tasks runs them first", args{"sepb": {"max_jobs_checked": 4}}, 4,
			func([]policy.Hint) []policy.Hint {
				return []policy.Hint{{Kind: policy.KindSpeculate, App: "J5", Task: "J5_m0", Attempt: "J5_m0_0", Node: "n1"}}
			}, 0, "the job's own pending tasks"},
		{"other hints pass untouched", args{"sepb": {"max_jobs_checked": 4}}, 4,
			func([]policy.Hint) []policy.Hint {
				return []policy.Hint{{Kind: policy.KindNodeClass, Node: "n1", MapSlow: true}}
			}, 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, proposed := sixJobs(tt.free)
			if tt.proposals != nil {
				proposed = tt.proposals(proposed)
			}
			out, st := newSEPB(t, tt.args).Gate(context.Background(), b.State, proposed)
			if !st.IsSuccess() {
				t.Fatal(st.Message())
			}
			if len(out) != len(proposed) {
				t.Fatalf("%d hints out for %d in", len(out), len(proposed))
			}
			kept := 0
			for i, h := range out {
				switch h.Kind {
				case policy.KindDenySpeculation:
					if tt.reason != "" && !strings.Contains(h.Reason, tt.reason) {
						t.Errorf("reason %q lacks %q", h.Reason, tt.reason)
					}
				default:
					if h.Kind != proposed[i].Kind || h.Task != proposed[i].Task {
						t.Errorf("hint %d changed: %+v", i, h)
					}
					if h.Kind == policy.KindSpeculate {
						kept++
					}
				}
			}
			if kept != tt.kept {
				t.Errorf("kept %d copies, want %d", kept, tt.kept)
			}
		})
	}
}

// TestCondition3 is the borrowing case: the window has pending reduces only.
// A free map slot serves them only when percentageOfBorrowedMapSlots > 0.
func TestCondition3(t *testing.T) {
	build := func() (*clustertest.Builder, []policy.Hint) {
		b := clustertest.New(now)
		b.Node("n1", "r1", 8, 16384, 6, 0)
		b.App("A", "sort", 1, 0)
		b.Start("A", "A_m0", events.Map, "A_m0_0", "n1", false)
		b.App("B", "sort", 0, 5)
		for k := range 5 {
			b.Pending("B", fmt.Sprintf("B_r%d", k), events.Reduce)
		}
		return b, []policy.Hint{{Kind: policy.KindSpeculate, App: "A", Task: "A_m0", Attempt: "A_m0_0", Node: "n1"}}
	}
	b, proposed := build()
	if kept, _ := gate(t, newSEPB(t, nil), b, proposed); len(kept) != 1 {
		t.Errorf("no borrowing: map copy must pass, kept %d", len(kept))
	}
	b, proposed = build()
	kept, denied := gate(t, newSEPB(t, args{"sepb": {"percentage_of_borrowed_map_slots": 0.5}}), b, proposed)
	if len(kept) != 0 || len(denied) != 1 || !strings.Contains(denied[0].Reason, "conditions 1+3") {
		t.Errorf("borrowing: kept %v denied %v", kept, denied)
	}
}

// TestHardStraggler: kill at more than 2x the mean of the job's finished
// tasks of the kind, once per attempt; a copy proposed for it is denied.
func TestHardStraggler(t *testing.T) {
	b := clustertest.New(now)
	b.Node("n1", "r1", 8, 16384, 3, 0)
	b.App("j", "sort", 4, 1)
	for _, id := range []string{"m0", "m1", "m2", "m3"} {
		b.Start("j", id, events.Map, id+"_0", "n1", false)
	}
	b.Start("j", "r0", events.Reduce, "r0_0", "n1", false)
	b.At(now + 90_000)
	b.Finish("m0_0", events.StateSucceeded, nil)
	b.At(now + 110_000)
	b.Finish("m1_0", events.StateSucceeded, nil) // mean 100 s
	p := newSEPB(t, nil)
	ctx := context.Background()
	tick := func(ts int64) []policy.Hint {
		b.At(ts)
		b.Heartbeat("n1", 3, 0)
		for i := range b.Log {
			p.Observe(ctx, &b.Log[i], b.State)
		}
		b.Log = b.Log[:0]
		hs, st := p.Speculate(ctx, b.State)
		if !st.IsSuccess() {
			t.Fatal(st.Message())
		}
		return hs
	}
	if hs := tick(now + 200_000); len(hs) != 0 {
		t.Fatalf("at exactly 2x the mean: %+v", hs)
	}
	hs := tick(now + 200_001)
	if len(hs) != 2 {
		t.Fatalf("m2 and m3 past 2x the mean: %+v", hs)
	}
	for _, h := range hs {
		if h.Kind != policy.KindKill || h.App != "j" || h.Container != "c_"+h.Attempt || h.Validate() != nil {
			t.Errorf("kill hint %+v", h)
		}
	}
	if hs[0].Attempt != "m2_0" || hs[1].Attempt != "m3_0" {
		t.Errorf("killed %s, %s", hs[0].Attempt, hs[1].Attempt)
	}
	if hs := tick(now + 201_000); len(hs) != 0 {
		t.Fatalf("killed twice: %+v", hs)
	}
	// The reduce r0 has no finished reduce to compare with: never killed.
	// A copy of m2 proposed next to its kill is denied; the kill passes.
	out, _ := p.Gate(ctx, b.State, []policy.Hint{hs[0],
		{Kind: policy.KindSpeculate, App: "j", Task: "m2", Attempt: "m2_0", Node: "n1"}})
	if len(out) != 2 || out[0].Kind != policy.KindKill || out[1].Kind != policy.KindDenySpeculation ||
		!strings.Contains(out[1].Reason, "killed") {
		t.Errorf("a copy of a task being killed must be denied: %+v", out)
	}
}

func TestKillDisabled(t *testing.T) {
	p := newSEPB(t, args{"sepb": {"kill_min_finished": 0}})
	b := clustertest.New(now)
	b.Node("n1", "r1", 8, 16384, 0, 0)
	if hs, _ := p.Speculate(context.Background(), b.State); len(hs) != 0 {
		t.Fatal(hs)
	}
}

func TestConfig(t *testing.T) {
	c := newSEPB(t, nil).Config()
	if c.PercentageOfJobsChecked != 1.0 || c.KillFactor != 2 || c.PercentageOfBorrowedMapSlots != 0 {
		t.Errorf("defaults %+v", c)
	}
	for _, bad := range []args{
		{"sepb": {"percentage_of_jobs_checked": 1.2}},
		{"sepb": {"kill_factor": 1}},
		{"sepb": {"max_jobs_checked": -1}},
	} {
		if _, err := sepb.New(context.Background(), policy.Handle{Args: bad}); err == nil {
			t.Errorf("%v must be rejected", bad)
		}
	}
}

// TestKillOncePerTask: the rerun of a killed task is not killed again, even
// when it runs as long; a task that is long by nature must finish.
func TestKillOncePerTask(t *testing.T) {
	b := clustertest.New(now)
	b.Node("n1", "r1", 8, 16384, 2, 0)
	b.App("j", "sort", 2, 0)
	b.Start("j", "m0", events.Map, "m0_0", "n1", false)
	b.Start("j", "m1", events.Map, "m1_0", "n1", false)
	b.At(now + 10_000)
	b.Finish("m0_0", events.StateSucceeded, nil) // mean 10 s
	p := newSEPB(t, nil)
	ctx := context.Background()
	tick := func(ts int64) []policy.Hint {
		b.At(ts)
		b.Heartbeat("n1", 1, 0)
		for i := range b.Log {
			p.Observe(ctx, &b.Log[i], b.State)
		}
		b.Log = b.Log[:0]
		hs, _ := p.Speculate(ctx, b.State)
		return hs
	}
	if hs := tick(now + 21_000); len(hs) != 1 || hs[0].Attempt != "m1_0" {
		t.Fatalf("first attempt past 2x the mean: %+v", hs)
	}
	b.Finish("m1_0", events.StateKilled, nil)
	b.Start("j", "m1", events.Map, "m1_1", "n1", false)
	if hs := tick(now + 50_000); len(hs) != 0 {
		t.Fatalf("the rerun was killed again: %+v", hs)
	}
}

// TestReduceClockAfterMaps reproduces the PI-DHSA + SEPB slowdown of the
// 10-job batch (sequencecount's first 12 reducers, launched by slow start
// ~360 s before the job's last map, were killed as hard stragglers just
// before they finished, because their copy-stage wait was compared with
// the whole duration of reducers launched ~200 s later). A reduce's
// hard-straggler clock starts when the job's maps are done (or at its
// start, if later); the mean is the job's finished reduce durations. Maps
// m0, m1 finish at 300 s; r1 runs 290–400 s (mean 110 s); r0 runs from
// 0 s, r2 from 350 s.
func TestReduceClockAfterMaps(t *testing.T) {
	b := clustertest.New(now)
	b.Node("n1", "r1", 8, 16384, 4, 0)
	b.App("j", "sequencecount", 2, 3)
	b.Start("j", "m0", events.Map, "m0_0", "n1", false)
	b.Start("j", "m1", events.Map, "m1_0", "n1", false)
	b.Start("j", "r0", events.Reduce, "r0_0", "n1", false)
	b.At(now + 290_000)
	b.Start("j", "r1", events.Reduce, "r1_0", "n1", false)
	b.At(now + 300_000)
	b.Finish("m0_0", events.StateSucceeded, nil)
	b.Finish("m1_0", events.StateSucceeded, nil)
	b.At(now + 350_000)
	b.Start("j", "r2", events.Reduce, "r2_0", "n1", false)
	b.At(now + 400_000)
	b.Finish("r1_0", events.StateSucceeded, nil)
	p := newSEPB(t, nil)
	for _, c := range []struct {
		at     int64 // s after now
		killed []string
		why    string
	}{
		{420, nil, "r0 has run 420 s, more than 2 x r1's 110 s, but only 120 s since the maps finished"},
		{520, nil, "r0 at exactly 2 x the mean, counted from the maps' end"},
		{521, []string{"r0_0"}, "r0 221 s after the maps: a hard straggler"},
		{570, nil, "r2 at 220 s from its own start (after the maps)"},
		{571, []string{"r2_0"}, "r2 221 s from its start"},
	} {
		b.At(now + c.at*1000)
		b.Heartbeat("n1", 4, 0)
		var got []string
		for _, h := range b.Speculate(t, p) {
			if h.Kind != policy.KindKill {
				t.Fatalf("at %d s: unexpected hint %+v", c.at, h)
			}
			got = append(got, h.Attempt)
			if h.Attempt == "r0_0" && !strings.Contains(h.Reason, "since the job's maps finished") {
				t.Errorf("reason must say the clock starts after the maps: %s", h.Reason)
			}
		}
		if fmt.Sprint(got) != fmt.Sprint(c.killed) {
			t.Errorf("at %d s killed %v, want %v (%s)", c.at, got, c.killed, c.why)
		}
	}
}

// TestReduceNotKilledWhileMapsRun: while a map of the job runs again (its
// output was lost: the succeeded attempt is reported failed), a reduce waits
// for it and is not a hard straggler; its clock restarts when the rerun
// finishes.
func TestReduceNotKilledWhileMapsRun(t *testing.T) {
	b := clustertest.New(now)
	b.Node("n1", "r1", 8, 16384, 3, 0)
	b.App("j", "sort", 1, 2)
	b.Start("j", "m0", events.Map, "m0_0", "n1", false)
	b.Start("j", "r0", events.Reduce, "r0_0", "n1", false)
	b.Start("j", "r1", events.Reduce, "r1_0", "n1", false)
	b.At(now + 10_000)
	b.Finish("m0_0", events.StateSucceeded, nil)
	b.At(now + 20_000)
	b.Finish("r1_0", events.StateSucceeded, nil) // mean 20 s
	p := newSEPB(t, nil)
	b.At(now + 25_000)
	b.Heartbeat("n1", 3, 0)
	if hs := b.Speculate(t, p); len(hs) != 0 {
		t.Fatalf("r0 at 15 s after the maps, mean 20 s: %+v", hs)
	}
	b.Finish("m0_0", events.StateFailed, nil) // its output was lost
	b.Start("j", "m0", events.Map, "m0_1", "n1", false)
	b.At(now + 40_000)
	b.Heartbeat("n1", 3, 0)
	if hs := b.Speculate(t, p); len(hs) != 0 {
		t.Fatalf("r0 waits for the rerun map: %+v", hs)
	}
	b.At(now + 44_000)
	b.Finish("m0_1", events.StateSucceeded, nil)
	b.At(now + 84_000)
	b.Heartbeat("n1", 2, 0)
	if hs := b.Speculate(t, p); len(hs) != 0 {
		t.Fatalf("r0 40 s after the rerun map finished, mean 20 s: %+v", hs)
	}
	b.At(now + 84_001)
	b.Heartbeat("n1", 2, 0)
	if hs := b.Speculate(t, p); len(hs) != 1 || hs[0].Attempt != "r0_0" {
		t.Fatalf("r0 40.001 s after the rerun map, mean 20 s: %+v", hs)
	}
}
