package prescheduling

import (
	"context"
	"fmt"
	"testing"

	"github.com/rmsidecar/rmsidecar/events"
	"github.com/rmsidecar/rmsidecar/policy"
	"github.com/rmsidecar/rmsidecar/policy/clustertest"
)

// memNodes: two nodes of 4 vcores and 4 GB; maps of 1.5 GB, so a node holds
// two maps by memory. n1 runs two maps (3 GB), a job has two pending maps
// local to n1.
func memNodes(t *testing.T) *clustertest.Builder {
	t.Helper()
	b := clustertest.New(1000)
	b.Node("n1", "r1", 4, 4096, 2, 3072)
	b.Node("n2", "r1", 4, 4096, 0, 0)
	b.App("a", "sort", 4, 0)
	for i := range 2 {
		id := fmt.Sprintf("at%d", i)
		b.Apply(events.Event{Type: events.ContainerAllocated, App: "a", Task: fmt.Sprintf("task_a_m_%03d", 100+i), Kind: events.Map,
			Attempt: id, Container: "c_" + id, Node: "n1", VCores: 1, MemoryMB: 1536})
	}
	for i := range 2 {
		b.Apply(events.Event{Type: events.TaskPending, App: "a", Task: fmt.Sprintf("task_a_m_%03d", i), Kind: events.Map,
			Splits: []events.Split{{Path: "/in", Hosts: []string{"n1"}}}})
	}
	return b
}

// TestSlotsCountMemory: a node's map slots and free slots are bounded by
// memory over the map container's size (failed before: vcores only, so n1,
// whose memory is full, had two extra idle slots and got a place hint for a
// map that cannot fit there).
func TestSlotsCountMemory(t *testing.T) {
	tests := []struct {
		name          string
		mapMB         int
		wantSlots     int
		wantFree      int
		wantAllowable int
		wantExtra     int
	}{
		{"learnt from the running maps", 0, 2, 0, 0, 0},
		{"set by map_container_mb", 1536, 2, 0, 0, 0},
		{"smaller containers", 1024, 4, 1, 0, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := DefaultConfig()
			cfg.MapContainerMB = tt.mapMB
			p, err := New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			b := memNodes(t)
			v := b.State
			hs, _ := p.Assign(context.Background(), v, v.Node("n1"))
			s := p.State(v, v.Node("n1"))
			if s.MapSlots != tt.wantSlots || s.FreeSlots != tt.wantFree || s.Allowable != tt.wantAllowable || s.Extra != tt.wantExtra {
				t.Errorf("state %+v; want slots %d, free %d, allowable %d, extra %d", s, tt.wantSlots, tt.wantFree, tt.wantAllowable, tt.wantExtra)
			}
			if want := min(tt.wantExtra, 1); len(hs) != want {
				t.Errorf("%d hints, want %d", len(hs), want)
			}
		})
	}
}

// yarnLayout: three nodes of 4 containers. Queue q1 has job h (the head:
// its queue runs nothing) with input on n2 only; queue q2 has job k running
// `kRunning` maps on n3, with a pending map whose split is on n1; n1 runs
// `n1Used` containers of k.
func yarnLayout(t *testing.T, kRunning, n1Used int, headOnN1 bool) *clustertest.Builder {
	t.Helper()
	b := clustertest.New(1000)
	b.Node("n1", "r1", 4, 16384, n1Used, n1Used*1024)
	b.Node("n2", "r1", 4, 16384, 0, 0)
	b.Node("n3", "r1", 4, 16384, kRunning, kRunning*1024)
	submit := func(app, queue string, ts int64) {
		b.At(ts)
		b.Apply(events.Event{Type: events.AppSubmitted, App: app, Name: app, Queue: queue, User: "u", Maps: 8})
	}
	split := func(app, task string, hosts ...string) {
		b.Apply(events.Event{Type: events.TaskPending, App: app, Task: task, Kind: events.Map,
			Splits: []events.Split{{Path: "/in/" + task, Length: 128 << 20, Hosts: hosts}}})
	}
	submit("h", "q1", 2000)
	submit("k", "q2", 2001)
	split("h", "task_h_m_000", "n2")
	if headOnN1 {
		split("h", "task_h_m_001", "n1")
	}
	split("k", "task_k_m_000", "n1")
	for i := range kRunning {
		b.Start("k", fmt.Sprintf("task_k_m_%03d", 100+i), events.Map, fmt.Sprintf("at_k_%d", i), "n3", false)
	}
	return b
}

// The YARN form (mode yarn): a free container of a node where the head job
// has no input goes to the first job in fair order with a split there, while
// the receiver stays within fairness_bound of its fair share ahead of the
// head (12 slots over 2 queues: a fair share of 6 per queue).
func TestAssignYARN(t *testing.T) {
	tests := []struct {
		name     string
		kRunning int
		n1Used   int
		headOnN1 bool
		bound    float64
		wantTask string // "" : no hint
		wantStat func(Stats) int
	}{
		{"head has no input on n1: k's local map is pre-assigned", 0, 0, false, 0.1, "task_k_m_000", func(s Stats) int { return s.Steered }},
		{"head has input on n1: the scheduler serves it", 0, 0, true, 0.1, "", func(s Stats) int { return s.HeadLocal }},
		{"k leads by 2 of a share of 6: past a bound of 0.1", 2, 0, false, 0.1, "", func(s Stats) int { return s.FairnessHeld }},
		{"k leads by 2, bound 0.5 (3 containers)", 2, 0, false, 0.5, "task_k_m_000", func(s Stats) int { return s.Steered }},
		{"n1 full", 0, 4, false, 0.1, "", func(s Stats) int { return s.NoIdle }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := DefaultConfig()
			cfg.Mode, cfg.FairnessBound = ModeYARN, tt.bound
			p, err := New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			b := yarnLayout(t, tt.kRunning, tt.n1Used, tt.headOnN1)
			if h := p.HeadJob(b.State); h == nil || h.ID != "h" {
				t.Fatalf("head = %v, want h", h)
			}
			hs, st := p.Assign(context.Background(), b.State, b.State.Node("n1"))
			if got := tt.wantStat(p.Stats(nil)); got != 1 {
				t.Errorf("counter = %d, want 1 (stats %+v)", got, p.Stats(nil))
			}
			if tt.wantTask == "" {
				if len(hs) != 0 || st.Code() != policy.Skip {
					t.Fatalf("hints %+v, status %v; want none, Skip", hs, st.Code())
				}
				return
			}
			if len(hs) != 1 {
				t.Fatalf("hints %+v (%s), want one", hs, st.Message())
			}
			h := hs[0]
			if h.Kind != policy.KindPlace || h.App != "k" || h.Task != tt.wantTask || len(h.Nodes) != 1 ||
				h.Nodes[0].Node != "n1" || h.Nodes[0].Locality != events.NodeLocal || h.Strict {
				t.Errorf("hint %+v, want place %s of k on n1, node-local, not strict", h, tt.wantTask)
			}
			if err := h.Validate(); err != nil {
				t.Error(err)
			}
		})
	}
}

// A hinted map counts as followed when its first attempt runs on a hinted
// node, as not followed when it runs elsewhere.
func TestStatsFollowed(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Mode = ModeYARN
	p, _ := New(cfg)
	b := yarnLayout(t, 0, 0, false)
	if hs, _ := p.Assign(context.Background(), b.State, b.State.Node("n1")); len(hs) != 1 {
		t.Fatalf("want one hint, got %d", len(hs))
	}
	b.Start("k", "task_k_m_000", events.Map, "at_k_x", "n1", false)
	if s := p.Stats(b.State); s.Hints != 1 || s.Followed != 1 || s.NotFollowed != 0 {
		t.Errorf("stats %+v, want 1 hint followed", s)
	}
	b = yarnLayout(t, 0, 0, false)
	p, _ = New(cfg)
	p.Assign(context.Background(), b.State, b.State.Node("n1"))
	b.Start("k", "task_k_m_000", events.Map, "at_k_y", "n2", false)
	if s := p.Stats(b.State); s.Followed != 0 || s.NotFollowed != 1 {
		t.Errorf("stats %+v, want 1 not followed", s)
	}
	if x := p.Extra(); x["prescheduling_not_followed"] != 1 || x["prescheduling_hints"] != 1 {
		t.Errorf("extra %v", x)
	}
}

func TestConfigValidateMode(t *testing.T) {
	for _, c := range []struct {
		mode  string
		bound float64
		ok    bool
	}{{"", 0.1, true}, {"hadoop1", 0, true}, {"yarn", 2, true}, {"hadoop2", 0.1, false}, {"yarn", -0.1, false}} {
		cfg := DefaultConfig()
		cfg.Mode, cfg.FairnessBound = c.mode, c.bound
		if err := cfg.Validate(); (err == nil) != c.ok {
			t.Errorf("mode %q bound %v: err %v, want ok %v", c.mode, c.bound, err, c.ok)
		}
	}
}

// holdLayout: n1 heartbeats with n1Free free containers; n2 and n3 are full
// with one map each of job x (no pending maps), n2's 80 % done after 8 s
// (predicted to end in 2 s), n3's 10 % after 1 s (in 9 s). The head job h
// had one map finish in 10 s and has pending maps m1 (split on n2), m2 (on
// n3) and m3 (on n2), none on n1. withFinished false leaves h with no
// finished map.
func holdLayout(t *testing.T, n1Free int, withFinished bool) *clustertest.Builder {
	t.Helper()
	b := clustertest.New(1000)
	b.Node("n1", "r1", 4, 16384, 4-n1Free, (4-n1Free)*1024)
	b.Node("n2", "r1", 4, 16384, 4, 4096)
	b.Node("n3", "r1", 4, 16384, 4, 4096)
	b.Apply(events.Event{Type: events.AppSubmitted, App: "x", Name: "x", Queue: "q2", User: "u", Maps: 2})
	b.Apply(events.Event{Type: events.AppSubmitted, App: "h", Name: "h", Queue: "q1", User: "u", Maps: 4})
	if withFinished {
		b.Start("h", "task_h_m_009", events.Map, "at_h_9", "n1", false)
		b.At(11_000)
		b.Finish("at_h_9", events.StateSucceeded, nil)
	}
	b.At(20_000)
	b.Start("x", "task_x_m_000", events.Map, "at_x_0", "n2", false)
	b.At(27_000)
	b.Start("x", "task_x_m_001", events.Map, "at_x_1", "n3", false)
	b.At(28_000)
	b.Progress("at_x_0", 0.8, "", -1)
	b.Progress("at_x_1", 0.1, "", -1)
	for i, host := range []string{"n2", "n3", "n2"} {
		b.Apply(events.Event{Type: events.TaskPending, App: "h", Task: fmt.Sprintf("task_h_m_%03d", i+1), Kind: events.Map,
			Splits: []events.Split{{Path: "/in", Length: 128 << 20, Hosts: []string{host}}}})
	}
	return b
}

// hold_fraction (mode yarn): at n1's heartbeat the head job, with no input
// on n1, would take n1's free containers for its next pending maps off their
// data. A map whose data's node frees a container within hold_fraction of
// the job's mean map duration (0.25 x 10 s) is held there by a strict place
// hint until the predicted free plus a margin; the walk stops once the free
// containers are matched by maps that cannot be held, and a node is promised
// no more maps than containers predicted to free on it.
func TestHoldForData(t *testing.T) {
	tests := []struct {
		name         string
		n1Free       int
		withFinished bool
		fraction     float64
		wantHeld     []string
	}{
		{"m1 held for n2 (frees in 2 s); m2 cannot be held and takes n1's container", 1, true, 0.25, []string{"task_h_m_001"}},
		{"two free: m3 is on n2 too, but n2's one free is promised to m1", 2, true, 0.25, []string{"task_h_m_001"}},
		{"window 1 s: n2 frees too late", 1, true, 0.1, nil},
		{"no finished map: the duration is unknown, nothing held", 1, false, 0.25, nil},
		{"hold_fraction 0: off", 1, true, 0, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := DefaultConfig()
			cfg.Mode, cfg.HoldFraction = ModeYARN, tt.fraction
			p, err := New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			b := holdLayout(t, tt.n1Free, tt.withFinished)
			hs, _ := p.Assign(context.Background(), b.State, b.State.Node("n1"))
			var held []string
			for _, h := range hs {
				if !h.Strict {
					continue
				}
				held = append(held, h.Task)
				if h.Kind != policy.KindPlace || h.App != "h" || len(h.Nodes) != 1 || h.Nodes[0].Node != "n2" {
					t.Errorf("hold %+v, want a place hint of h on n2", h)
				}
				if want := b.Now() + 2000 + holdMarginMS; h.ExpiresTS != want {
					t.Errorf("hold ends at %d, want %d (predicted free + margin)", h.ExpiresTS, want)
				}
				if err := h.Validate(); err != nil {
					t.Error(err)
				}
			}
			if fmt.Sprint(held) != fmt.Sprint(tt.wantHeld) {
				t.Errorf("held %v, want %v", held, tt.wantHeld)
			}
			if s := p.Stats(nil); s.Held != len(tt.wantHeld) {
				t.Errorf("Held = %d, want %d", s.Held, len(tt.wantHeld))
			}
		})
	}
}

// A map is held once: at the next heartbeat it is not held again, and the
// promised free of n2 is not handed to m3.
func TestHoldOnce(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Mode, cfg.HoldFraction = ModeYARN, 0.25
	p, _ := New(cfg)
	b := holdLayout(t, 2, true)
	if hs, _ := p.Assign(context.Background(), b.State, b.State.Node("n1")); len(hs) != 1 {
		t.Fatalf("first heartbeat: %d hints, want 1", len(hs))
	}
	b.At(b.Now() + 100)
	if hs, _ := p.Assign(context.Background(), b.State, b.State.Node("n1")); len(hs) != 0 {
		t.Errorf("second heartbeat: %+v, want no hold (m1 held once, n2's free promised)", hs)
	}
	// Past the hold, m1 is not held again.
	b.At(b.Now() + 10_000)
	b.Progress("at_x_0", 0.99, "", -1)
	for _, h := range mustAssign(t, p, b) {
		if h.Task == "task_h_m_001" {
			t.Errorf("m1 held twice: %+v", h)
		}
	}
}

func mustAssign(t *testing.T, p *Plugin, b *clustertest.Builder) []policy.Hint {
	t.Helper()
	hs, st := p.Assign(context.Background(), b.State, b.State.Node("n1"))
	if st.Code() == policy.Error {
		t.Fatal(st.Message())
	}
	return hs
}

func TestConfigValidateHoldFraction(t *testing.T) {
	for _, c := range []struct {
		f  float64
		ok bool
	}{{0, true}, {0.25, true}, {1, true}, {-0.1, false}, {1.5, false}} {
		cfg := DefaultConfig()
		cfg.HoldFraction = c.f
		if err := cfg.Validate(); (err == nil) != c.ok {
			t.Errorf("hold_fraction %v: err %v, want ok %v", c.f, err, c.ok)
		}
	}
}
