package engine

import (
	"context"
	"testing"

	"github.com/rmsidecar/rmsidecar/cluster"
	"github.com/rmsidecar/rmsidecar/events"
	"github.com/rmsidecar/rmsidecar/policy"
)

// fakeSpec proposes one speculate hint per running attempt, or panics.
type fakeSpec struct {
	name  string
	panic bool
	calls int
}

func (f *fakeSpec) Name() string { return f.name }
func (f *fakeSpec) Speculate(_ context.Context, v cluster.View) ([]policy.Hint, *policy.Status) {
	f.calls++
	if f.panic {
		panic("bug in policy")
	}
	var hs []policy.Hint
	for _, a := range v.Apps() {
		for _, t := range a.Tasks {
			for _, at := range t.Running() {
				hs = append(hs, policy.Hint{Kind: policy.KindSpeculate, App: a.ID, Task: t.ID, Attempt: at.ID, Node: "other", Reason: "slow"})
			}
		}
	}
	return hs, nil
}

// denyAll vetoes every speculation.
type denyAll struct{}

func (denyAll) Name() string { return "deny" }
func (denyAll) Gate(_ context.Context, _ cluster.View, in []policy.Hint) ([]policy.Hint, *policy.Status) {
	var out []policy.Hint
	for _, h := range in {
		out = append(out, policy.Hint{Kind: policy.KindDenySpeculation, App: h.App, Task: h.Task, Reason: "pending first"})
	}
	return out, nil
}

type placer struct {
	name  string
	score map[string]float64
}

func (p placer) Name() string { return p.name }
func (p placer) Place(_ context.Context, _ cluster.View, _ *cluster.Task) ([]policy.NodeScore, *policy.Status) {
	var out []policy.NodeScore
	for _, n := range []string{"n1", "n2", "n3"} {
		if s, ok := p.score[n]; ok {
			out = append(out, policy.NodeScore{Node: n, Score: s})
		}
	}
	return out, nil
}

func running() []events.Event {
	return []events.Event{
		{ID: "1", Type: events.AppSubmitted, TS: 1000, App: "a", Name: "n", Queue: "q", User: "u", JobType: "sort", Maps: 1},
		{ID: "2", Type: events.TaskPending, TS: 1000, App: "a", Task: "task_1_0001_m_000000", Kind: events.Map},
		{ID: "3", Type: events.ContainerAllocated, TS: 1500, App: "a", Task: "task_1_0001_m_000000", Attempt: "x0", Container: "c0", Node: "n1"},
	}
}

func apply(t *testing.T, e *Engine, evs []events.Event) []policy.Hint {
	t.Helper()
	var all []policy.Hint
	for i := range evs {
		all = append(all, e.Apply(context.Background(), &evs[i])...)
	}
	return all
}

func TestPanickingPolicyIsRecoveredAndCounted(t *testing.T) {
	bad := &fakeSpec{name: "bad", panic: true}
	good := &fakeSpec{name: "good"}
	e := New(policy.NewStack(bad, good), Options{})
	hs := apply(t, e, running())
	hs = append(hs, e.Tick(context.Background(), 2000)...)
	if got := e.Stats().Panics["bad"]; got < 2 {
		t.Fatalf("panics = %d, want one per tick (>= 2)", got)
	}
	if len(hs) != 1 || hs[0].Policy != "good" || hs[0].Kind != policy.KindSpeculate {
		t.Fatalf("hints = %+v, want one speculate from good", hs)
	}
}

func TestRepeatedHintIsSuppressedUntilExpiry(t *testing.T) {
	spec := &fakeSpec{name: "s"}
	e := New(policy.NewStack(spec), Options{TTL: map[policy.HintKind]int64{policy.KindSpeculate: 5000}})
	apply(t, e, running())
	first := e.Tick(context.Background(), 2000)
	if len(first) != 1 {
		t.Fatalf("first tick: %d hints", len(first))
	}
	if h := first[0]; !hintIDForm.MatchString(h.ID) || h.TS != 2000 || h.ExpiresTS != 7000 || h.V != 1 {
		t.Fatalf("stamping: %+v", h)
	}
	if again := e.Tick(context.Background(), 3000); len(again) != 0 {
		t.Fatalf("repeat within ttl emitted: %+v", again)
	}
	if e.Stats().Suppressed == 0 {
		t.Fatal("suppression not counted")
	}
	if later := e.Tick(context.Background(), 7000); len(later) != 1 {
		t.Fatalf("after expiry: %d hints, want 1", len(later))
	}
}

func TestGateReplacesProposals(t *testing.T) {
	e := New(policy.NewStack(&fakeSpec{name: "late"}, denyAll{}), Options{})
	apply(t, e, running())
	hs := e.Tick(context.Background(), 2000)
	if len(hs) != 1 || hs[0].Kind != policy.KindDenySpeculation || hs[0].Policy != "deny" {
		t.Fatalf("hints = %+v", hs)
	}
}

func TestTicksFollowEventTime(t *testing.T) {
	spec := &fakeSpec{name: "s"}
	e := New(policy.NewStack(spec), Options{TickMS: 1000})
	apply(t, e, running()) // ts 1000, 1000, 1500: ticks at 1000 only
	if spec.calls != 1 {
		t.Fatalf("calls = %d after events within one tick, want 1", spec.calls)
	}
	ev := events.Event{ID: "4", Type: events.TaskProgress, TS: 3200, App: "a", Task: "task_1_0001_m_000000", Attempt: "x0", Progress: 0.5, Phase: "map"}
	e.Apply(context.Background(), &ev)
	if spec.calls != 2 {
		t.Fatalf("calls = %d, want 2", spec.calls)
	}
}

func TestDuplicateEventIsCountedNotReapplied(t *testing.T) {
	e := New(policy.NewStack(), Options{})
	evs := running()
	apply(t, e, evs)
	apply(t, e, evs)
	st := e.Stats()
	if st.Events != 3 || st.Unchanged != 3 {
		t.Fatalf("events=%d unchanged=%d", st.Events, st.Unchanged)
	}
}

func TestPlacersCombineScores(t *testing.T) {
	a := placer{"a", map[string]float64{"n1": 1, "n2": 3}}
	b := placer{"b", map[string]float64{"n1": 3, "n3": 1}}
	e := New(policy.NewStack(a, b), Options{})
	hs := apply(t, e, running()[:2])
	if len(hs) != 1 {
		t.Fatalf("hints = %+v", hs)
	}
	h := hs[0]
	if h.Kind != policy.KindPlace || h.Policy != "a+b" || len(h.Nodes) != 3 ||
		h.Nodes[0].Node != "n1" || h.Nodes[0].Score != 4 || h.Nodes[1].Node != "n2" {
		t.Fatalf("place = %+v", h)
	}
}

type badHint struct{}

func (badHint) Name() string { return "bad" }
func (badHint) Shape(context.Context, cluster.View) ([]policy.Hint, *policy.Status) {
	return []policy.Hint{{Kind: policy.KindRatio}}, nil
}

func TestInvalidHintsAreDroppedAndCounted(t *testing.T) {
	e := New(policy.NewStack(badHint{}), Options{})
	if hs := e.Tick(context.Background(), 0); len(hs) != 0 {
		t.Fatalf("invalid hint emitted: %+v", hs)
	}
	if e.Stats().Invalid["bad"] != 1 {
		t.Fatal("invalid hint not counted")
	}
}

// demandShaper caps on task.pending events only, counting its calls.
type demandShaper struct{ calls int }

func (d *demandShaper) Name() string                  { return "demand" }
func (d *demandShaper) ShapeOn(ev *events.Event) bool { return ev.Type == events.TaskPending }
func (d *demandShaper) Shape(_ context.Context, v cluster.View) ([]policy.Hint, *policy.Status) {
	d.calls++
	pending := 0
	for _, a := range v.Apps() {
		pending += a.Count[events.Map].Pending
	}
	return []policy.Hint{{Kind: policy.KindRatio, Queue: "q", MaxMaps: pending, Reason: "demand"}}, nil
}

func TestDemandShaperRunsOnItsEvents(t *testing.T) {
	d := &demandShaper{}
	e := New(policy.NewStack(d), Options{TickMS: 1000, ManualTick: true})
	evs := running()
	hs := apply(t, e, evs[:2]) // app.submitted, task.pending: no tick runs (manual)
	if d.calls != 1 {
		t.Fatalf("calls = %d after one task.pending, want 1", d.calls)
	}
	if len(hs) != 1 || hs[0].Kind != policy.KindRatio || hs[0].MaxMaps != 1 || hs[0].Policy != "demand" {
		t.Fatalf("hints = %+v, want one ratio hint with max_maps 1", hs)
	}
	apply(t, e, evs[2:]) // container.allocated: not a demand event
	if d.calls != 1 {
		t.Fatalf("calls = %d after container.allocated, want still 1", d.calls)
	}
}

type strictPlacer struct{ placer }

func (strictPlacer) StrictPlacement() bool { return true }

func TestStrictPlacerMarksPlaceHintStrict(t *testing.T) {
	soft := placer{"soft", map[string]float64{"n1": 1}}
	hs := apply(t, New(policy.NewStack(soft), Options{}), running()[:2])
	if len(hs) != 1 || hs[0].Strict {
		t.Fatalf("a plain placer must give a non-strict hint: %+v", hs)
	}
	hard := strictPlacer{placer{"hard", map[string]float64{"n2": 1}}}
	hs = apply(t, New(policy.NewStack(hard), Options{}), running()[:2])
	if len(hs) != 1 || !hs[0].Strict || hs[0].Nodes[0].Node != "n2" {
		t.Fatalf("a strict placer must give a strict hint: %+v", hs)
	}
}
