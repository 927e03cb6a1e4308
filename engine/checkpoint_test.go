package engine

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/rmsidecar/rmsidecar/events"
	"github.com/rmsidecar/rmsidecar/policy"
)

func TestResumeKeepsHintsInForceAndSequence(t *testing.T) {
	first := New(policy.NewStack(&fakeSpec{name: "s"}), Options{TickMS: 1000})
	hs := apply(t, first, running())
	hs = append(hs, first.Tick(context.Background(), 2000)...)
	if len(hs) != 1 || hs[0].ID != "h1" {
		t.Fatalf("first engine hints %+v, want one h1", hs)
	}
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
	// A new decision after the restart gets the next id, not h1 again.
	ev := events.Event{ID: "4", Type: events.ContainerAllocated, TS: 3500, App: "a", Task: "task_1_0001_m_000000",
		Attempt: "x1", Container: "c1", Node: "n2"}
	got := resumed.Apply(context.Background(), &ev)
	got = append(got, resumed.Tick(context.Background(), 4000)...)
	if len(got) != 1 || got[0].ID != "h2" || got[0].Attempt != "x1" {
		t.Fatalf("after resume got %+v, want one h2 for x1", got)
	}
	fresh := New(policy.NewStack(&fakeSpec{name: "s"}), Options{TickMS: 1000, State: first.State()})
	if got := fresh.Tick(context.Background(), 3000); len(got) == 0 {
		t.Fatal("an engine without the checkpoint did not re-announce: the test cannot tell resume from fresh")
	}
}
