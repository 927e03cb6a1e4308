package cluster

import (
	"encoding/json"
	"errors"
	"io"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/rmsidecar/rmsidecar/events"
)

const sampleLog = "../integration/testdata/sample-2jobs.jsonl"

func readLog(t *testing.T, path string) []events.Event {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := events.NewReader(f)
	var evs []events.Event
	for {
		ev, err := r.Next()
		if errors.Is(err, io.EOF) {
			return evs
		}
		if err != nil {
			t.Fatal(err)
		}
		evs = append(evs, ev)
	}
}

func snapshotJSON(t *testing.T, s *State) string {
	t.Helper()
	b, err := json.Marshal(s.Snapshot())
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func build(evs []events.Event) *State {
	s := New()
	for i := range evs {
		s.Apply(&evs[i])
	}
	return s
}

func TestApplyTwiceWithShuffledDuplicatesEqualsOnce(t *testing.T) {
	evs := readLog(t, sampleLog)
	want := snapshotJSON(t, build(evs))
	want2 := build(evs).Summarize()
	for seed := range uint64(20) {
		rng := rand.New(rand.NewPCG(seed, 1))
		// Every event appears twice; each duplicate lands at a random later
		// position, as at-least-once redelivery does.
		dups := make([]events.Event, 0, 2*len(evs))
		pendingDup := []events.Event{}
		for _, ev := range evs {
			dups = append(dups, ev)
			pendingDup = append(pendingDup, ev)
			for len(pendingDup) > 0 && rng.IntN(3) == 0 {
				k := rng.IntN(len(pendingDup))
				dups = append(dups, pendingDup[k])
				pendingDup = append(pendingDup[:k], pendingDup[k+1:]...)
			}
		}
		rng.Shuffle(len(pendingDup), func(i, j int) { pendingDup[i], pendingDup[j] = pendingDup[j], pendingDup[i] })
		dups = append(dups, pendingDup...)
		if len(dups) != 2*len(evs) {
			t.Fatalf("stream has %d events, want %d", len(dups), 2*len(evs))
		}
		s := build(dups)
		if got := snapshotJSON(t, s); got != want {
			t.Fatalf("seed %d: state after duplicates differs from state after one pass\n got %s\nwant %s", seed, got, want)
		}
		if got := s.Summarize(); got != want2 {
			t.Fatalf("seed %d: summary %+v, want %+v", seed, got, want2)
		}
	}
}

func TestApplyAnyOrderConverges(t *testing.T) {
	evs := readLog(t, sampleLog)
	want := snapshotJSON(t, build(evs))
	for seed := range uint64(20) {
		rng := rand.New(rand.NewPCG(seed, 2))
		perm := append([]events.Event(nil), evs...)
		rng.Shuffle(len(perm), func(i, j int) { perm[i], perm[j] = perm[j], perm[i] })
		if got := snapshotJSON(t, build(perm)); got != want {
			t.Fatalf("seed %d: shuffled order gives a different state", seed)
		}
	}
}

func TestSampleSummary(t *testing.T) {
	s := build(readLog(t, sampleLog))
	got := s.Summarize()
	want := Summary{Nodes: 4, NodesRunning: 4, Racks: 2, Apps: 2, AppsRunning: 1, AppsFinished: 1,
		PendingMaps: 2, PendingReduce: 1, RunningMaps: 1, Succeeded: 6, Containers: 1}
	if got != want {
		t.Fatalf("summary = %+v\nwant      %+v", got, want)
	}
}

func TestOlderEventDoesNotUndoNewer(t *testing.T) {
	tests := []struct {
		name  string
		evs   []events.Event
		check func(t *testing.T, s *State)
	}{
		{
			name: "stale progress after newer progress",
			evs: []events.Event{
				{ID: "b", Type: events.TaskProgress, TS: 20, App: "a", Task: "task_1_0001_m_000000", Attempt: "x", Progress: 0.8, Phase: "map"},
				{ID: "a", Type: events.TaskProgress, TS: 10, App: "a", Task: "task_1_0001_m_000000", Attempt: "x", Progress: 0.3, Phase: "map"},
			},
			check: func(t *testing.T, s *State) {
				if p := s.Attempt("x").Progress; p != 0.8 {
					t.Errorf("progress = %v, want 0.8", p)
				}
			},
		},
		{
			name: "stale registration after loss",
			evs: []events.Event{
				{ID: "2", Type: events.NodeLost, TS: 20, Node: "n", Reason: "expired"},
				{ID: "1", Type: events.NodeRegistered, TS: 10, Node: "n", Rack: "/r", VCores: 4, MemoryMB: 8},
			},
			check: func(t *testing.T, s *State) {
				if st := s.Node("n").State; st != NodeLost {
					t.Errorf("state = %v, want LOST", st)
				}
			},
		},
		{
			name: "re-registration after loss",
			evs: []events.Event{
				{ID: "1", Type: events.NodeRegistered, TS: 10, Node: "n", Rack: "/r", VCores: 4, MemoryMB: 8},
				{ID: "2", Type: events.NodeLost, TS: 20, Node: "n", Reason: "expired"},
				{ID: "3", Type: events.NodeRegistered, TS: 30, Node: "n", Rack: "/r2", VCores: 4, MemoryMB: 8},
			},
			check: func(t *testing.T, s *State) {
				n := s.Node("n")
				if n.State != NodeRunning || n.Rack != "/r2" || len(s.RackNodes("/r")) != 0 || len(s.RackNodes("/r2")) != 1 {
					t.Errorf("node = %+v racks %v", n, s.Racks())
				}
			},
		},
		{
			name: "stale heartbeat keeps newer load but joins history",
			evs: []events.Event{
				{ID: "2", Type: events.NodeHeartbeat, TS: 20, Node: "n", Load1: 2, CPUUtil: 0.5},
				{ID: "1", Type: events.NodeHeartbeat, TS: 10, Node: "n", Load1: 1, CPUUtil: 0.2},
			},
			check: func(t *testing.T, s *State) {
				n := s.Node("n")
				if n.Load1 != 2 || n.History.Len() != 2 || n.History.At(0).TS != 10 {
					t.Errorf("node = %+v", n)
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := New()
			for i := range tt.evs {
				s.Apply(&tt.evs[i])
			}
			tt.check(t, s)
		})
	}
}

func TestTaskStateAndNodeRunningList(t *testing.T) {
	s := New()
	apply := func(ev events.Event) bool { return s.Apply(&ev) }
	task := "task_1_0001_m_000000"
	apply(events.Event{ID: "1", Type: events.TaskPending, TS: 1, App: "a", Task: task, Kind: events.Map})
	if c := s.App("a").Count[events.Map]; c.Pending != 1 {
		t.Fatalf("counts %+v", c)
	}
	apply(events.Event{ID: "2", Type: events.ContainerAllocated, TS: 2, App: "a", Task: task, Attempt: "x0", Container: "c0", Node: "n1"})
	apply(events.Event{ID: "3", Type: events.ContainerAllocated, TS: 3, App: "a", Task: task, Attempt: "x1", Container: "c1", Node: "n2", Speculative: true})
	if c := s.App("a").Count[events.Map]; c.Running != 1 || c.Pending != 0 {
		t.Fatalf("counts %+v", c)
	}
	if len(s.Node("n1").Running) != 1 || len(s.Node("n2").Running) != 1 {
		t.Fatal("each node should run one attempt")
	}
	apply(events.Event{ID: "4", Type: events.TaskFinished, TS: 4, App: "a", Task: task, Attempt: "x1", State: events.StateSucceeded})
	if !apply(events.Event{ID: "5", Type: events.TaskFinished, TS: 5, App: "a", Task: task, Attempt: "x0", State: events.StateKilled}) {
		t.Fatal("first finish of x0 must change state")
	}
	if apply(events.Event{ID: "5", Type: events.TaskFinished, TS: 5, App: "a", Task: task, Attempt: "x0", State: events.StateKilled}) {
		t.Fatal("re-applying the same event must report no change")
	}
	tk := s.App("a").Task(task)
	if tk.State != TaskSucceeded || tk.FinishTS != 4 {
		t.Fatalf("task = %+v", tk)
	}
	if c := s.App("a").Count[events.Map]; c.Succeeded != 1 || c.Running != 0 {
		t.Fatalf("counts %+v", c)
	}
	if len(s.Node("n1").Running)+len(s.Node("n2").Running) != 0 {
		t.Fatal("finished attempts must leave their nodes")
	}
	// A failed attempt with no other makes the task pending again.
	task2 := "task_1_0001_r_000000"
	apply(events.Event{ID: "6", Type: events.ContainerAllocated, TS: 6, App: "a", Task: task2, Attempt: "y0", Container: "c2", Node: "n1"})
	apply(events.Event{ID: "7", Type: events.TaskFinished, TS: 7, App: "a", Task: task2, Attempt: "y0", State: events.StateFailed})
	if tk := s.App("a").Task(task2); tk.State != TaskPending || tk.Kind != events.Reduce {
		t.Fatalf("task2 = %+v", tk)
	}
}

func TestHistoryBound(t *testing.T) {
	s := New(WithHistoryLen(3))
	for i := 5; i >= 1; i-- { // newest first
		ev := events.Event{ID: "h", Type: events.NodeHeartbeat, TS: int64(i), Node: "n"}
		s.Apply(&ev)
	}
	h := s.Node("n").History.Samples()
	if len(h) != 3 || h[0].TS != 3 || h[2].TS != 5 {
		t.Fatalf("history = %+v, want ts 3,4,5", h)
	}
}

// TestLookupsAfterEachEvent: Node and Attempt (Attempt answers the attempt
// the last event named without a map lookup) return the right entity for
// every id after every event, named by that event or not, and nil for
// unknown ids.
func TestLookupsAfterEachEvent(t *testing.T) {
	evs := []events.Event{
		{V: 1, ID: "1", Type: events.NodeRegistered, TS: 1, Node: "n1", Rack: "/r", VCores: 8, MemoryMB: 8192},
		{V: 1, ID: "2", Type: events.NodeRegistered, TS: 2, Node: "n2", Rack: "/r", VCores: 4, MemoryMB: 4096},
		{V: 1, ID: "3", Type: events.NodeHeartbeat, TS: 3, Node: "n1", UsedVCores: 1},
		{V: 1, ID: "4", Type: events.ContainerAllocated, TS: 4, App: "a", Task: "t_m_1", Attempt: "x1", Container: "c1", Node: "n2"},
		{V: 1, ID: "5", Type: events.NodeHeartbeat, TS: 5, Node: "n3", UsedVCores: 2},
		{V: 1, ID: "6", Type: events.ContainerAllocated, TS: 6, App: "a", Task: "t_m_2", Attempt: "x2", Container: "c2", Node: "n1"},
		{V: 1, ID: "7", Type: events.TaskProgress, TS: 7, App: "a", Task: "t_m_1", Attempt: "x1", Progress: 0.5, Phase: events.PhaseMap},
		{V: 1, ID: "8", Type: events.NodeHeartbeat, TS: 8, Node: "n2", UsedVCores: 3},
	}
	s := New()
	for i := range evs {
		s.Apply(&evs[i])
		for _, id := range []string{"n1", "n2", "n3", "n4", ""} {
			var want *Node // the node list scanned, for the index
			for _, n := range s.nodes.list {
				if n.ID == id {
					want = n
				}
			}
			if got := s.Node(id); got != want || (got != nil && got.ID != id) {
				t.Fatalf("after event %s: Node(%q) = %p, want %p", evs[i].ID, id, got, want)
			}
		}
		for _, id := range []string{"x1", "x2", "x3", ""} {
			want := s.attempts.get(id)
			if got := s.Attempt(id); got != want || (got != nil && got.ID != id) {
				t.Fatalf("after event %s: Attempt(%q) = %p, want %p", evs[i].ID, id, got, want)
			}
		}
	}
	if n := s.Node("n2"); n == nil || n.UsedVCores != 3 || n.VCores != 4 {
		t.Fatalf("Node(n2) = %+v", n)
	}
}

// TestAppEndReleasesItsContainers: attempts whose task.finished never came
// (the bridge misses a task that ends between its last poll and its app's
// end) end with their app, so their nodes are free in the model; a
// SUCCEEDED app's unfinished task succeeded with its earliest attempt, and
// a late real task.finished still applies.
func TestAppEndReleasesItsContainers(t *testing.T) {
	for _, c := range []struct {
		appState         string
		r0, r1, m0backup string
		reduceState      TaskState
	}{
		{events.StateSucceeded, events.StateSucceeded, events.StateKilled, events.StateKilled, TaskSucceeded},
		{events.StateKilled, events.StateKilled, events.StateKilled, events.StateKilled, TaskPending},
	} {
		t.Run(c.appState, func(t *testing.T) {
			s := New()
			apply := func(ev events.Event) bool { return s.Apply(&ev) }
			m, r := "task_1_0001_m_000000", "task_1_0001_r_000000"
			apply(events.Event{ID: "1", Type: events.ContainerAllocated, TS: 1, App: "a", Task: m, Attempt: "m0", Container: "c0", Node: "n1"})
			apply(events.Event{ID: "2", Type: events.ContainerAllocated, TS: 2, App: "a", Task: m, Attempt: "m1", Container: "c1", Node: "n2", Speculative: true})
			apply(events.Event{ID: "3", Type: events.TaskFinished, TS: 3, App: "a", Task: m, Attempt: "m1", State: events.StateSucceeded})
			apply(events.Event{ID: "4", Type: events.ContainerAllocated, TS: 4, App: "a", Task: r, Attempt: "r0", Container: "c2", Node: "n1"})
			apply(events.Event{ID: "5", Type: events.ContainerAllocated, TS: 5, App: "a", Task: r, Attempt: "r1", Container: "c3", Node: "n2", Speculative: true})
			// m0 (the map's losing original), r0 and r1 never report a finish.
			if !apply(events.Event{ID: "6", Type: events.AppFinished, TS: 9, App: "a", State: c.appState}) {
				t.Fatal("app.finished changed nothing")
			}
			for _, n := range []string{"n1", "n2"} {
				if l := len(s.Node(n).Running); l != 0 {
					t.Errorf("%s still runs %d attempts of the finished app", n, l)
				}
			}
			app := s.App("a")
			at := func(task, id string) *Attempt {
				for _, x := range app.Task(task).Attempts {
					if x.ID == id {
						return x
					}
				}
				t.Fatalf("no attempt %s", id)
				return nil
			}
			for _, w := range []struct{ task, id, state string }{{m, "m0", c.m0backup}, {r, "r0", c.r0}, {r, "r1", c.r1}} {
				if a := at(w.task, w.id); a.State != w.state || a.FinishTS != 9 {
					t.Errorf("%s: state %q finish %d, want %q at 9", w.id, a.State, a.FinishTS, w.state)
				}
			}
			if st := app.Task(r).State; st != c.reduceState {
				t.Errorf("reduce task %s, want %s", st, c.reduceState)
			}
			// The real finish, late, still applies.
			if !apply(events.Event{ID: "7", Type: events.TaskFinished, TS: 8, App: "a", Task: r, Attempt: "r1", State: events.StateSucceeded}) {
				t.Error("a late task.finished was ignored")
			}
			if a := at(r, "r1"); a.State != events.StateSucceeded || a.FinishTS != 8 {
				t.Errorf("r1 after its real finish: %q at %d", a.State, a.FinishTS)
			}
			// An allocation reported after the app ended does not run either.
			apply(events.Event{ID: "8", Type: events.ContainerAllocated, TS: 6, App: "a", Task: r, Attempt: "r2", Container: "c4", Node: "n1"})
			if l := len(s.Node("n1").Running); l != 0 {
				t.Errorf("a late allocation of the finished app runs on n1 (%d)", l)
			}
		})
	}
}
