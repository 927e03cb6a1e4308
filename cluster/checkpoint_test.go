package cluster

import (
	"encoding/json"
	"testing"
)

func TestCheckpointRestoreRoundTrip(t *testing.T) {
	evs := readLog(t, sampleLog)
	for _, cut := range []int{0, 1, len(evs) / 3, len(evs) / 2, len(evs) - 1, len(evs)} {
		orig := build(evs[:cut])
		b, err := json.Marshal(orig.Checkpoint())
		if err != nil {
			t.Fatal(err)
		}
		var ck Checkpoint
		if err := json.Unmarshal(b, &ck); err != nil {
			t.Fatal(err)
		}
		restored, err := Restore(&ck)
		if err != nil {
			t.Fatalf("cut %d: %v", cut, err)
		}
		if got, want := snapshotJSON(t, restored), snapshotJSON(t, orig); got != want {
			t.Fatalf("cut %d: restored snapshot differs\n got %s\nwant %s", cut, got, want)
		}
		if restored.Summarize() != orig.Summarize() {
			t.Fatalf("cut %d: summary %+v, want %+v", cut, restored.Summarize(), orig.Summarize())
		}
		if restored.Now() != orig.Now() {
			t.Fatalf("cut %d: now %d, want %d", cut, restored.Now(), orig.Now())
		}
		// Events already in the checkpoint change nothing after a restore.
		for i := range evs[:cut] {
			if restored.Apply(&evs[i]) {
				t.Fatalf("cut %d: re-applying event %s changed the restored state", cut, evs[i].ID)
			}
		}
		// The rest of the log gives the same state as never stopping.
		full := build(evs)
		for i := cut; i < len(evs); i++ {
			restored.Apply(&evs[i])
		}
		if got, want := snapshotJSON(t, restored), snapshotJSON(t, full); got != want {
			t.Fatalf("cut %d: state after resuming differs from an uninterrupted run", cut)
		}
		for i, n := range full.Nodes() {
			rn := restored.Nodes()[i]
			if rn.ID != n.ID || len(rn.Running) != len(n.Running) {
				t.Fatalf("cut %d: node %d is %s with %d running, want %s with %d", cut, i, rn.ID, len(rn.Running), n.ID, len(n.Running))
			}
			for j := range n.Running {
				if rn.Running[j].ID != n.Running[j].ID {
					t.Fatalf("cut %d: node %s running order differs at %d", cut, n.ID, j)
				}
			}
		}
	}
}

func TestRestoreRejectsBadCheckpoints(t *testing.T) {
	for name, ck := range map[string]*Checkpoint{
		"nil":           nil,
		"version":       {V: 2},
		"empty node":    {V: 1, Nodes: []NodeCk{{}}},
		"orphan":        {V: 1, Attempts: []AttemptCk{{App: "a", TaskID: "t"}}},
		"bad task kind": {V: 1, Apps: []AppCk{{App: App{ID: "a"}, Tasks: []TaskCk{{Task: Task{ID: "t", Kind: "x"}}}}}},
	} {
		if _, err := Restore(ck); err == nil {
			t.Errorf("%s: Restore succeeded, want an error", name)
		}
	}
}

// TestTaskSeq: every task knows its position in its app's Tasks, in a state
// built from events and in one restored from a checkpoint of it.
func TestTaskSeq(t *testing.T) {
	evs := readLog(t, sampleLog)
	orig := build(evs)
	b, err := json.Marshal(orig.Checkpoint()) // as saved: unexported fields are lost
	if err != nil {
		t.Fatal(err)
	}
	var ck Checkpoint
	if err := json.Unmarshal(b, &ck); err != nil {
		t.Fatal(err)
	}
	restored, err := Restore(&ck)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		s    *State
	}{{"built", orig}, {"restored", restored}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := 0
			for _, a := range tt.s.Apps() {
				for i, task := range a.Tasks {
					if task.Seq() != i {
						t.Fatalf("app %s task %s: seq %d, position %d", a.ID, task.ID, task.Seq(), i)
					}
					n++
				}
			}
			if n == 0 {
				t.Fatal("the sample log has no tasks")
			}
		})
	}
}

// TestAttemptLookupAfterApply: Attempt answers every id right, whether or not
// it is the attempt the last event named.
func TestAttemptLookupAfterApply(t *testing.T) {
	evs := readLog(t, sampleLog)
	s := New()
	for i := range evs {
		s.Apply(&evs[i])
		for _, id := range []string{evs[i].Attempt, evs[max(0, i-3)].Attempt, "no-such-attempt"} {
			got := s.Attempt(id)
			want := s.attempts.get(id)
			if got != want {
				t.Fatalf("event %d: Attempt(%q) = %p, map holds %p", i, id, got, want)
			}
		}
	}
}
