package cluster

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/rmsidecar/rmsidecar/events"
)

// randomTaskEvents returns a random stream of task, allocation, progress
// and finish events over a few apps, with duplicates and equal times, so
// tasks get zero to several attempts and pending stamps tie on ts.
func randomTaskEvents(rng *rand.Rand, n int) []events.Event {
	var evs []events.Event
	for i := range n {
		app := fmt.Sprintf("application_1_%d", rng.IntN(4))
		task := fmt.Sprintf("task_%s_m_%d", app, rng.IntN(90))
		ev := events.Event{V: 1, ID: fmt.Sprintf("e%d", rng.IntN(n)), TS: int64(rng.IntN(50)), App: app, Task: task}
		switch rng.IntN(4) {
		case 0:
			ev.Type, ev.Kind = events.TaskPending, events.Map
		case 1:
			ev.Type, ev.Node = events.ContainerAllocated, fmt.Sprintf("n%d", rng.IntN(5))
		case 2:
			ev.Type, ev.Progress = events.TaskProgress, rng.Float64()
		default:
			ev.Type, ev.State = events.TaskFinished, events.StateSucceeded
		}
		if ev.Type != events.TaskPending {
			ev.Attempt = fmt.Sprintf("%s_%d", task, rng.IntN(3))
		}
		evs = append(evs, ev)
		if i > 0 && rng.IntN(8) == 0 {
			evs = append(evs, evs[rng.IntN(len(evs))]) // a re-delivery
		}
	}
	return evs
}

// refTasks is what the model's task index, attempt lists and pending stamps
// must give, kept the straightforward way: maps and appends.
type refTasks struct {
	byID     map[string]map[string]bool      // app -> task ids
	attempts map[string][]string             // app/task -> attempt ids, first sight
	pend     map[string]struct{ ts, id any } // app/task -> newest pending (ts, id)
}

func buildRef(evs []events.Event) refTasks {
	r := refTasks{byID: map[string]map[string]bool{}, attempts: map[string][]string{}, pend: map[string]struct{ ts, id any }{}}
	seen := map[string]bool{}
	newest := map[string]stamp{}
	for _, ev := range evs {
		if r.byID[ev.App] == nil {
			r.byID[ev.App] = map[string]bool{}
		}
		r.byID[ev.App][ev.Task] = true
		key := ev.App + "/" + ev.Task
		if ev.Attempt != "" && !seen[ev.Attempt] {
			seen[ev.Attempt] = true
			r.attempts[key] = append(r.attempts[key], ev.Attempt)
		}
		if ev.Type == events.TaskPending && newest[key].before(ev.TS, ev.ID) {
			newest[key] = stamp{ev.TS, ev.ID}
		}
	}
	for k, st := range newest {
		r.pend[k] = struct{ ts, id any }{st.ts, st.id}
	}
	return r
}

func checkTasks(t *testing.T, s *State, r refTasks, what string) {
	t.Helper()
	for appID, tasks := range r.byID {
		a := s.App(appID)
		if a == nil {
			t.Fatalf("%s: app %s missing", what, appID)
		}
		if len(a.Tasks) != len(tasks) {
			t.Fatalf("%s: app %s has %d tasks, want %d", what, appID, len(a.Tasks), len(tasks))
		}
		for id := range tasks {
			task := a.Task(id)
			if task == nil || task.ID != id || a.Tasks[task.Seq()] != task {
				t.Fatalf("%s: App.Task(%s) = %v", what, id, task)
			}
			key := appID + "/" + id
			want := r.attempts[key]
			if len(task.Attempts) != len(want) {
				t.Fatalf("%s: task %s has %d attempts, want %d", what, key, len(task.Attempts), len(want))
			}
			for i, at := range task.Attempts {
				if at.ID != want[i] || at.Task != task || s.Attempt(at.ID) != at {
					t.Fatalf("%s: task %s attempt %d is %s, want %s (or not the indexed one)", what, key, i, at.ID, want[i])
				}
			}
			p, ok := r.pend[key]
			if ok != task.pending || (ok && (p.ts != task.PendingTS || p.id != task.pendID)) {
				t.Fatalf("%s: task %s pending stamp (%v %d %q), want %v %v", what, key, task.pending, task.PendingTS, task.pendID, ok, p)
			}
		}
		for _, id := range []string{"", "task_x", appID} {
			if a.Task(id) != nil {
				t.Fatalf("%s: App.Task(%q) found a task", what, id)
			}
		}
	}
}

// TestTaskIndexAndListsSameAsRef checks the per-app task table, the inline
// first attempt and the pending stamp held as (PendingTS, pendID) against
// maps and appends, after random streams and after a checkpoint restored
// in memory (whose copies must not keep the original attempts).
func TestTaskIndexAndListsSameAsRef(t *testing.T) {
	for seed := range uint64(30) {
		rng := rand.New(rand.NewPCG(seed, 7))
		evs := randomTaskEvents(rng, 50+rng.IntN(1500))
		s := build(evs)
		r := buildRef(evs)
		checkTasks(t, s, r, fmt.Sprintf("seed %d", seed))
		ck := s.Checkpoint()
		for _, ac := range ck.Apps {
			for _, tc := range ac.Tasks {
				if tc.Task.first[0] != nil || tc.Task.Attempts != nil {
					t.Fatalf("seed %d: checkpoint task %s holds attempts", seed, tc.ID)
				}
			}
		}
		restored, err := Restore(ck)
		if err != nil {
			t.Fatal(err)
		}
		checkTasks(t, restored, r, fmt.Sprintf("seed %d restored", seed))
		for _, a := range restored.Apps() {
			for _, task := range a.Tasks {
				for _, at := range task.Attempts {
					if at == s.Attempt(at.ID) {
						t.Fatalf("seed %d: restored task %s shares attempt %s with the original", seed, task.ID, at.ID)
					}
				}
			}
		}
	}
}

// TestRackListSameAsSortedKeys checks the rack list kept sorted in place
// against the sorted keys of the rack map, the way it was rebuilt before,
// while nodes register, move between racks and leave racks empty.
func TestRackListSameAsSortedKeys(t *testing.T) {
	for seed := range uint64(20) {
		rng := rand.New(rand.NewPCG(seed, 3))
		s := New()
		for i := range 400 {
			rack := fmt.Sprintf("/r%d", rng.IntN(12))
			if rng.IntN(10) == 0 {
				rack = ""
			}
			s.Apply(&events.Event{V: 1, ID: fmt.Sprintf("e%04d", i), Type: events.NodeRegistered, TS: int64(i),
				Node: fmt.Sprintf("n%d", rng.IntN(30)), Rack: rack})
			var want []string
			for r := range s.racks {
				want = append(want, r)
			}
			slices.Sort(want)
			if !slices.Equal(s.Racks(), want) {
				t.Fatalf("seed %d event %d: racks %q, want %q", seed, i, s.Racks(), want)
			}
		}
	}
}

// TestAttemptSameAsIndex checks View.Attempt, which answers the attempt
// the last event named without the index, against the index, for that
// event's id string, a copy of it, and other ids, while apps finish and are
// forgotten.
func TestAttemptSameAsIndex(t *testing.T) {
	for seed := range uint64(20) {
		rng := rand.New(rand.NewPCG(seed, 5))
		s := New(WithRetention(Retention{AfterMS: 5}))
		evs := randomTaskEvents(rng, 600)
		dropped := 0
		for i := range evs {
			evs[i].TS = int64(i) * 100 // forgetting runs every second of event time
			if rng.IntN(40) == 0 {
				fin := events.Event{V: 1, ID: fmt.Sprintf("f%d", i), Type: events.AppFinished, TS: evs[i].TS,
					App: evs[i].App, State: events.StateSucceeded}
				s.Apply(&fin)
			}
			if s.lastAttempt != nil && s.Gone(s.lastAttempt.Task.App.ID) {
				t.Fatalf("seed %d event %d: the last attempt belongs to a forgotten app", seed, i)
			}
			if s.Gone(evs[i].App) {
				dropped++
			}
			s.Apply(&evs[i])
			for _, id := range []string{evs[i].Attempt, strings.Clone(evs[i].Attempt), evs[rng.IntN(len(evs))].Attempt, "x"} {
				if got, want := s.Attempt(id), s.attempts.get(id); got != want {
					t.Fatalf("seed %d event %d: Attempt(%q) = %p, index %p", seed, i, id, got, want)
				}
			}
		}
		if dropped == 0 {
			t.Fatalf("seed %d: no event named a forgotten app", seed)
		}
	}
}
