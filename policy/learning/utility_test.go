package learning

import (
	"context"
	"testing"

	"github.com/rmsidecar/rmsidecar/cluster"
	"github.com/rmsidecar/rmsidecar/events"
)

// utilityState is a cluster with two 4-core nodes and three apps of two users:
// a1 (alice, submitted at 0, 4 maps of which 3 succeeded, one reduce
// pending, one map attempt running since 10 s), a2 (bob, submitted at 30 s,
// nothing run), a3 (alice, map attempt of 20 s finished).
func utilityState(t *testing.T) *cluster.State {
	t.Helper()
	s := cluster.New()
	seq := 0
	apply := func(ev events.Event) {
		seq++
		ev.V, ev.ID = 1, "e"+string(rune('A'+seq/26))+string(rune('a'+seq%26))
		if !s.Apply(&ev) {
			t.Fatalf("event %+v not applied", ev)
		}
	}
	for _, n := range []string{"n1", "n2"} {
		apply(events.Event{Type: events.NodeRegistered, TS: t0, Node: n, Rack: "r", VCores: 4, MemoryMB: 4096})
	}
	apply(events.Event{Type: events.AppSubmitted, TS: t0, App: "a1", Name: "a1", Queue: "q", User: "alice", JobType: "wc", Maps: 4, Reduces: 1})
	for i, id := range []string{"m0", "m1", "m2", "m3"} {
		apply(events.Event{Type: events.TaskPending, TS: t0, App: "a1", Task: id, Kind: events.Map})
		att := id + "_0"
		apply(events.Event{Type: events.ContainerAllocated, TS: t0 + 10_000, App: "a1", Task: id, Attempt: att, Container: "c" + id, Node: "n1"})
		if i < 3 {
			apply(events.Event{Type: events.TaskFinished, TS: t0 + 20_000, App: "a1", Task: id, Attempt: att, State: events.StateSucceeded})
		}
	}
	apply(events.Event{Type: events.TaskPending, TS: t0, App: "a1", Task: "r0", Kind: events.Reduce})
	apply(events.Event{Type: events.AppSubmitted, TS: t0 + 30_000, App: "a2", Name: "a2", Queue: "q", User: "bob", JobType: "grep", Maps: 1})
	apply(events.Event{Type: events.AppSubmitted, TS: t0, App: "a3", Name: "a3", Queue: "q", User: "alice", JobType: "wc", Maps: 1})
	apply(events.Event{Type: events.TaskPending, TS: t0, App: "a3", Task: "x0", Kind: events.Map})
	apply(events.Event{Type: events.ContainerAllocated, TS: t0, App: "a3", Task: "x0", Attempt: "x0_0", Container: "cx", Node: "n2"})
	apply(events.Event{Type: events.TaskFinished, TS: t0 + 20_000, App: "a3", Task: "x0", Attempt: "x0_0", State: events.StateSucceeded})
	apply(events.Event{Type: events.NodeHeartbeat, TS: t0 + 40_000, Node: "n1", UsedVCores: 1, UsedMemoryMB: 1024})
	return s
}

func TestUtilityFunctions(t *testing.T) {
	s := utilityState(t)
	if s.Now() != t0+40_000 {
		t.Fatalf("now = %d", s.Now())
	}
	p, err := New(context.Background(), NameNB, testHandle(nil, nil))
	if err != nil {
		t.Fatal(err)
	}
	p.cfg.Budgets = map[string]float64{"alice": 60, "bob": 10}
	env := p.env(s)
	if got := env.ClusterVCores(); got != 8 {
		t.Fatalf("cluster vcores %d, want 8", got)
	}
	// alice: a1 maps 0-2 ran 10 s each (30), map 3 runs since 10 s (30 so far), a3 ran 20 s: 80 vcore-s.
	if got := env.Spent("alice"); got != 80 {
		t.Fatalf("alice spent %g vcore-s, want 80", got)
	}
	a1m := Candidate{App: s.App("a1"), Kind: events.Map}
	a1r := Candidate{App: s.App("a1"), Kind: events.Reduce}
	a2m := Candidate{App: s.App("a2"), Kind: events.Map}
	for _, c := range []struct {
		spec string
		cand Candidate
		want float64
	}{
		{"constant", a1m, 1},
		{"", a2m, 1},
		{"constant:3", a1r, 3},
		{"fifo", a1m, 40},                       // age 40 s
		{"fifo", a2m, 10},                       // submitted at 30 s
		{"map-before-reduce", a1r, 0},           // 3 of 4 maps done
		{"map-before-reduce", a1m, 1},           // maps are never held back
		{"map-before-reduce:0.75", a1r, 1},      // 3/4 done is enough
		{"budget", a1m, 0},                      // alice: 80 spent of 60
		{"budget", a2m, 1},                      // bob: 0 of 10
		{"budget:100", a1m, 1},                  // this job's own budget
		{"dedicated:0.25", a1m, 0.5},            // 1 of 8 vcores against 2 promised
		{"dedicated:0.125", a1m, 0},             // at its promise
		{"dedicated:0.5", a2m, 1},               // nothing running
		{"revenue:7", a1m, 7},                   // what the user pays
		{"revenue:7*fifo", a2m, 70},             // hybrid: product
		{"revenue:7*map-before-reduce", a1r, 0}, // a zero term zeroes the product
	} {
		u, err := ParseUtility(c.spec)
		if err != nil {
			t.Fatalf("%q: %v", c.spec, err)
		}
		if got := u.Value(c.cand, env); !near(got, c.want) {
			t.Errorf("%s(%s %s) = %g, want %g", c.spec, c.cand.App.ID, c.cand.Kind, got, c.want)
		}
	}
	for _, bad := range []string{"dedicated", "dedicated:2", "revenue", "map-before-reduce:3", "fifo*oops", "revenue:x"} {
		if _, err := ParseUtility(bad); err == nil {
			t.Errorf("ParseUtility(%q) accepted", bad)
		}
	}
}
