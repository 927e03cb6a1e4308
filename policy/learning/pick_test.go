package learning

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/rmsidecar/rmsidecar/cluster"
	"github.com/rmsidecar/rmsidecar/events"
)

// TestPickTaskSameAsWalk drives one job's tasks through random starts,
// successes, failures, kills, kind changes and placements, and checks that
// pickTask's walk, which starts at the job's scanMark, picks what a walk
// from the first task picks, for both kinds, with and without a hold.
func TestPickTaskSameAsWalk(t *testing.T) {
	for _, hold := range []time.Duration{60 * time.Second, 0} {
		t.Run(hold.String(), func(t *testing.T) {
			checked, found, skipped := pickTaskRandomWalk(t, hold, 4000)
			t.Logf("hold %s: %d picks checked, %d found a task, %d walked from past the job's first unfinished task", hold, checked, found, skipped)
			if found < checked/4 || skipped < checked/4 {
				t.Fatal("too few picks found a task or skipped by the mark: the test does not exercise it")
			}
		})
	}
}

func pickTaskRandomWalk(t *testing.T, hold time.Duration, steps int) (checked, found, skipped int) {
	t.Helper()
	rng := rand.New(rand.NewPCG(7, uint64(hold)))
	s := cluster.New()
	seq := 0
	now := t0
	apply := func(ev events.Event) {
		seq++
		ev.V, ev.ID, ev.TS = 1, fmt.Sprintf("e%08d", seq), now
		s.Apply(&ev)
	}
	apply(events.Event{Type: events.NodeRegistered, Node: "n1", Rack: "r", VCores: 8, MemoryMB: 8192})
	apply(events.Event{Type: events.AppSubmitted, App: "a", Name: "a", Queue: "q", User: "u", JobType: "wc", Maps: 40, Reduces: 8})
	for i := range 48 {
		kind := events.Map
		if i >= 40 || rng.IntN(10) == 0 {
			kind = events.Reduce
		}
		apply(events.Event{Type: events.TaskPending, App: "a", Task: fmt.Sprintf("t%04d", i), Kind: kind})
	}
	p, err := New(context.Background(), NameNB, testHandle(nil, nil))
	if err != nil {
		t.Fatal(err)
	}
	p.cfg.PlaceHold = hold
	a, n := s.App("a"), s.Node("n1")
	attempts := map[*cluster.Task]int{}
	running := func(tk *cluster.Task) []*cluster.Attempt {
		var out []*cluster.Attempt
		for _, at := range tk.Attempts {
			if at.Running() {
				out = append(out, at)
			}
		}
		return out
	}
	// reference is the walk from the first task.
	reference := func(kind events.TaskKind, taken []*cluster.Task) *cluster.Task {
		for _, tk := range a.Tasks {
			if tk.Kind != kind || tk.State != cluster.TaskPending || slices.Contains(taken, tk) {
				continue
			}
			if at, ok := p.placed[tk.ID]; ok && now-at < hold.Milliseconds() {
				continue
			}
			return tk
		}
		return nil
	}
	for step := range steps {
		now += rng.Int64N(8_000)
		if step%4 == 0 { // the job's tasks keep coming, as a trace's jobs do
			kind := events.Map
			if rng.IntN(5) == 0 {
				kind = events.Reduce
			}
			apply(events.Event{Type: events.TaskPending, App: "a", Task: fmt.Sprintf("t%04d", len(a.Tasks)), Kind: kind})
		}
		tk := a.Tasks[rng.IntN(len(a.Tasks))]
		switch r := rng.IntN(10); {
		case r < 4 && tk.State != cluster.TaskSucceeded: // start an attempt (a second one: speculation)
			attempts[tk]++
			apply(events.Event{Type: events.ContainerAllocated, App: "a", Task: tk.ID,
				Attempt: fmt.Sprintf("%s_%d", tk.ID, attempts[tk]), Container: fmt.Sprintf("c%d", seq), Node: "n1"})
		case r < 7 && len(running(tk)) > 0: // end one: it fails or is killed far more often than here
			at := running(tk)[0]
			state := []string{events.StateSucceeded, events.StateFailed, events.StateKilled}[rng.IntN(3)]
			if state == events.StateSucceeded && rng.IntN(3) > 0 {
				state = events.StateFailed
			}
			apply(events.Event{Type: events.TaskFinished, App: "a", Task: tk.ID, Attempt: at.ID, State: state})
		case r == 7: // the AM tells the task's kind again, maybe another
			kind := []events.TaskKind{events.Map, events.Reduce}[rng.IntN(2)]
			apply(events.Event{Type: events.TaskPending, App: "a", Task: tk.ID, Kind: kind})
		}
		apply(events.Event{Type: events.NodeHeartbeat, Node: "n1"})
		// A heartbeat's picks, as Assign makes them.
		var taken []*cluster.Task
		for range 1 + rng.IntN(3) {
			kind := []events.TaskKind{events.Map, events.Reduce}[rng.IntN(2)]
			want := reference(kind, taken)
			got, _ := p.pickTask(s, a, kind, n, now, taken)
			if got != want {
				t.Fatalf("at %d ms, %s pick: got %v, want %v (walk from %d, mark %+v)", now-t0, kind, taskID(got), taskID(want),
					p.index[a.ID].from, p.index[a.ID].scan)
			}
			checked++
			if got != nil {
				found++
			}
			if ix := p.index[a.ID]; ix.scan[kindSlot(kind)].at > ix.from {
				skipped++
			}
			if got != nil && rng.IntN(4) > 0 {
				taken = append(taken, got)
				p.placed[got.ID] = now
			}
		}
		p.prunePlaced(now)
	}
	return checked, found, skipped
}

func taskID(t *cluster.Task) string {
	if t == nil {
		return "none"
	}
	return t.ID
}
