package cluster

import (
	"encoding/json"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/rmsidecar/rmsidecar/events"
)

// lifecycle returns the events of one app with one map attempt on node,
// submitted at ts and (if finish) finished at ts+1000.
func lifecycle(app string, ts int64, node string, finish bool) []events.Event {
	task, at := "task_"+app+"_m_000000", "attempt_"+app+"_m_000000_0"
	evs := []events.Event{
		{V: 1, ID: app + "-s", Type: events.AppSubmitted, TS: ts, App: app, Maps: 1},
		{V: 1, ID: app + "-p", Type: events.TaskPending, TS: ts, App: app, Task: task, Kind: events.Map},
		{V: 1, ID: app + "-a", Type: events.ContainerAllocated, TS: ts + 10, App: app, Task: task, Attempt: at,
			Container: "c-" + app, Node: node, VCores: 1, MemoryMB: 1024},
	}
	if finish {
		evs = append(evs,
			events.Event{V: 1, ID: app + "-f", Type: events.TaskFinished, TS: ts + 900, App: app, Task: task, Attempt: at,
				State: events.StateSucceeded},
			events.Event{V: 1, ID: app + "-e", Type: events.AppFinished, TS: ts + 1000, App: app, State: "SUCCEEDED"})
	}
	return evs
}

func applyAll(s *State, evs []events.Event) {
	for i := range evs {
		s.Apply(&evs[i])
	}
}

func TestRetentionForgetsFinishedApps(t *testing.T) {
	const node = "nm1:8041"
	tests := []struct {
		name string
		r    Retention
		// finished apps done-0..done-(n-1) finish at 2000+i*1000; then the
		// clock moves to now with a heartbeat.
		n        int
		now      int64
		wantGone []int // indexes of done-i forgotten
		wantKept []int
	}{
		{"no retention keeps everything", Retention{}, 3, 10_000_000, nil, []int{0, 1, 2}},
		{"before the time limit", Retention{AfterMS: 60_000}, 3, 30_000, nil, []int{0, 1, 2}},
		{"after the time limit", Retention{AfterMS: 60_000}, 3, 200_000, []int{0, 1, 2}, nil},
		{"only those past the limit", Retention{AfterMS: 60_000}, 3, 63_500, []int{0, 1}, []int{2}},
		{"count cap keeps the newest", Retention{MaxFinished: 20}, 60, 70_000, []int{0, 10, 39}, []int{40, 59}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := New(WithRetention(tc.r))
			s.Apply(&events.Event{V: 1, ID: "reg", Type: events.NodeRegistered, TS: 1, Node: node, Rack: "/r1", VCores: 8, MemoryMB: 8192})
			applyAll(s, lifecycle("run", 1000, node, false))
			for i := range tc.n {
				applyAll(s, lifecycle("done-"+strconv.Itoa(i), 1000+int64(i)*1000, node, true))
			}
			s.Apply(&events.Event{V: 1, ID: "hb", Type: events.NodeHeartbeat, TS: tc.now, Node: node})
			for _, i := range tc.wantGone {
				id := "done-" + strconv.Itoa(i)
				if s.App(id) != nil || !s.Gone(id) || s.Attempt("attempt_"+id+"_m_000000_0") != nil {
					t.Errorf("%s still in the model (app %v, gone %v)", id, s.App(id) != nil, s.Gone(id))
				}
			}
			for _, i := range tc.wantKept {
				if id := "done-" + strconv.Itoa(i); s.App(id) == nil {
					t.Errorf("%s forgotten too early", id)
				}
			}
			// The running app stays whatever the retention, with its running attempt.
			if a := s.App("run"); a == nil || a.Finished() || len(s.Node(node).Running) != 1 {
				t.Fatalf("running app or its container lost: %+v", s.App("run"))
			}
			for _, a := range s.Apps() {
				if s.App(a.ID) != a {
					t.Errorf("Apps lists %s, which App does not know", a.ID)
				}
			}
			sum := s.Summarize()
			if sum.Apps != len(s.Apps()) || sum.Containers != 1 {
				t.Errorf("summary %+v", sum)
			}
		})
	}
}

func TestRetentionIgnoresLateEventsAndSurvivesCheckpoint(t *testing.T) {
	const node = "nm1:8041"
	s := New(WithRetention(Retention{AfterMS: 60_000}))
	old := lifecycle("old", 1000, node, true)
	applyAll(s, old)
	applyAll(s, lifecycle("run", 5000, node, false))
	s.Apply(&events.Event{V: 1, ID: "hb", Type: events.NodeHeartbeat, TS: 100_000, Node: node})
	if s.App("old") != nil {
		t.Fatal("old app not forgotten")
	}
	// Restart from a checkpoint through JSON, as the sidecar does.
	b, err := json.Marshal(s.Checkpoint())
	if err != nil {
		t.Fatal(err)
	}
	var ck Checkpoint
	if err := json.Unmarshal(b, &ck); err != nil {
		t.Fatal(err)
	}
	r, err := Restore(&ck, WithRetention(Retention{AfterMS: 60_000}))
	if err != nil {
		t.Fatal(err)
	}
	for name, st := range map[string]*State{"live": s, "restored": r} {
		// Re-delivered events of the forgotten app change nothing.
		for i := range old {
			if st.Apply(&old[i]) {
				t.Errorf("%s: re-delivered %s of a forgotten app changed the state", name, old[i].Type)
			}
		}
		if st.App("old") != nil || len(st.Apps()) != 1 {
			t.Errorf("%s: forgotten app came back: %d apps", name, len(st.Apps()))
		}
	}
	// The restored state's retention queue works: the running app finishes
	// and is forgotten after the limit.
	r.Apply(&events.Event{V: 1, ID: "run-e", Type: events.AppFinished, TS: 110_000, App: "run", State: "KILLED"})
	r.Apply(&events.Event{V: 1, ID: "hb2", Type: events.NodeHeartbeat, TS: 200_000, Node: node})
	if r.App("run") != nil || len(r.Node(node).Running) != 0 {
		t.Errorf("finished app or its container kept after retention in the restored state")
	}
}

// TestGoneCheckedPerEvent holds the check of a forgotten app's events (with
// the last app found not gone remembered) to its definition: an event of an
// app that Gone reports changes nothing. Random events of a few apps, each
// app's events in runs (so the remembered app is hit), apps finishing and
// being forgotten while remembered, and late events after that.
func TestGoneCheckedPerEvent(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	s := New(WithRetention(Retention{AfterMS: 1}))
	applyAll(s, []events.Event{{V: 1, ID: "n", Type: events.NodeRegistered, TS: 1, Node: "n1", Rack: "/r", VCores: 8, MemoryMB: 8192}})
	ts, seq := int64(10), 0
	for step := range 20_000 {
		app := "app_" + strconv.Itoa(r.IntN(8))
		for range 1 + r.IntN(4) {
			ts += int64(r.IntN(700))
			seq++
			task := "task_" + app + "_m_" + strconv.Itoa(r.IntN(3))
			ev := events.Event{V: 1, ID: strconv.Itoa(seq), TS: ts, App: app, Task: task}
			switch r.IntN(6) {
			case 0:
				ev.Type, ev.Maps = events.AppSubmitted, 3
			case 1:
				ev.Type, ev.State = events.AppFinished, events.StateSucceeded
			case 2:
				ev.Type, ev.Kind = events.TaskPending, events.Map
			case 3:
				ev.Type, ev.Attempt, ev.Container, ev.Node = events.ContainerAllocated, task+"_0", "c"+ev.ID, "n1"
			default:
				ev.Type, ev.Attempt, ev.Progress = events.TaskProgress, task+"_0", r.Float64()
			}
			gone := s.Gone(app)
			if changed := s.Apply(&ev); gone && (changed || s.App(app) != nil) {
				t.Fatalf("step %d: %s of forgotten app %s applied (changed %v)", step, ev.Type, app, changed)
			}
		}
	}
	if len(s.goneList) == 0 {
		t.Fatal("no app was forgotten: the test did not test")
	}
}
