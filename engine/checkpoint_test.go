package engine

import (
	"context"
	"encoding/json"
	"regexp"
	"testing"

	"github.com/rmsidecar/rmsidecar/events"
	"github.com/rmsidecar/rmsidecar/policy"
)

var hintIDForm = regexp.MustCompile(`^h[0-9a-f]{16}$`)

// TestResumeKeepsHintsInForceAndIDs: a resumed engine does not announce
// again a hint in force, a new decision gets a new id, and an engine that
// applies the same events again gives the same hint the same id.
func TestResumeKeepsHintsInForceAndIDs(t *testing.T) {
	first := New(policy.NewStack(&fakeSpec{name: "s"}), Options{TickMS: 1000})
	hs := apply(t, first, running())
	hs = append(hs, first.Tick(context.Background(), 2000)...)
	if len(hs) != 1 || !hintIDForm.MatchString(hs[0].ID) {
		t.Fatalf("first engine hints %+v, want one with an id h<16 hex>", hs)
	}
	firstID := hs[0].ID
	b, err := json.Marshal(first.Checkpoint())
	if err != nil {
		t.Fatal(err)
	}
	var ck Checkpoint
	if err := json.Unmarshal(b, &ck); err != nil {
		t.Fatal(err)
	}
	resumed := New(policy.NewStack(&fakeSpec{name: "s"}), Options{TickMS: 1000, State: first.State(), Resume: &ck})
	if got := resumed.Tick(context.Background(), 3000); len(got) != 0 {
		t.Fatalf("resumed engine re-announced %+v, a hint still in force", got)
	}
	// A new decision after the restart gets an id of its own.
	ev := events.Event{ID: "4", Type: events.ContainerAllocated, TS: 3500, App: "a", Task: "task_1_0001_m_000000",
		Attempt: "x1", Container: "c1", Node: "n2"}
	got := resumed.Apply(context.Background(), &ev)
	got = append(got, resumed.Tick(context.Background(), 4000)...)
	if len(got) != 1 || got[0].Attempt != "x1" || got[0].ID == firstID || !hintIDForm.MatchString(got[0].ID) {
		t.Fatalf("after resume got %+v, want one for x1 with an id other than %s", got, firstID)
	}
	fresh := New(policy.NewStack(&fakeSpec{name: "s"}), Options{TickMS: 1000, State: first.State()})
	if got := fresh.Tick(context.Background(), 3000); len(got) == 0 {
		t.Fatal("an engine without the checkpoint did not re-announce: the test cannot tell resume from fresh")
	}
	again := New(policy.NewStack(&fakeSpec{name: "s"}), Options{TickMS: 1000})
	hs = apply(t, again, running())
	if hs = append(hs, again.Tick(context.Background(), 2000)...); len(hs) != 1 || hs[0].ID != firstID {
		t.Fatalf("the same events again gave %+v, want the same hint with id %s", hs, firstID)
	}
}

// TestResumeNeverGivesAnIDToAnotherHint: restarted from a checkpoint taken
// before a hint, an engine whose policy now decides otherwise (here: the
// attempt it sees is another) must not give the other hint the first one's
// id; a counter restored from the checkpoint did.
func TestResumeNeverGivesAnIDToAnotherHint(t *testing.T) {
	first := New(policy.NewStack(&fakeSpec{name: "s"}), Options{TickMS: 1000})
	apply(t, first, running())
	ck := first.Checkpoint()
	hs := first.Tick(context.Background(), 2000)
	if len(hs) != 1 {
		t.Fatalf("first engine: %d hints, want 1", len(hs))
	}
	evs := running()
	evs[2].Attempt, evs[2].Container = "x9", "c9"
	resumed := New(policy.NewStack(&fakeSpec{name: "s"}), Options{TickMS: 1000, Resume: &ck})
	apply(t, resumed, evs)
	got := resumed.Tick(context.Background(), 2000)
	if len(got) != 1 || got[0].Attempt != "x9" {
		t.Fatalf("resumed engine: %+v, want one hint for x9", got)
	}
	if got[0].ID == hs[0].ID {
		t.Fatalf("id %s given to two different hints (attempt %s, then %s)", got[0].ID, hs[0].Attempt, got[0].Attempt)
	}
}
