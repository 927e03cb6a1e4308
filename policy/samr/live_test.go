package samr_test

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rmsidecar/rmsidecar/engine"
	"github.com/rmsidecar/rmsidecar/events"
	"github.com/rmsidecar/rmsidecar/policy"
	"github.com/rmsidecar/rmsidecar/policy/plugins"
	"github.com/rmsidecar/rmsidecar/profiles"
)

var update = flag.Bool("update", false, "rewrite testdata/slow-node.jsonl from its generator")

const slowNodeLog = "testdata/slow-node.jsonl"

// slowNodeEvents is the recorded log of TestLiveSlowNode: one sort job of 26
// maps on four nodes. Maps take 90 s (72 s map, 18 s sort) on n1-n3, which
// have 4 vcores and run two waves: 12 maps from t0, then 11 from t0+90 s
// (n1 keeps one vcore free). n4 has 8 vcores, runs 3 maps from t0 at a
// quarter of the others' rate and so always has room. Heartbeats and
// progress come every 3 s until t0+175 s. A backup must never use n4's room.
func slowNodeEvents() []events.Event {
	const (
		t0  = int64(1763719200000)
		app = "application_1763719200000_0001"
	)
	var out []events.Event
	seq := 0
	add := func(ev events.Event) {
		seq++
		ev.V, ev.ID = events.Version, fmt.Sprintf("e%05d", seq)
		out = append(out, ev)
	}
	nodes := []string{"n1", "n2", "n3", "n4"}
	vcores := map[string]int{"n1": 4, "n2": 4, "n3": 4, "n4": 8}
	for i, n := range nodes {
		add(events.Event{Type: events.NodeRegistered, TS: t0, Node: n, Rack: fmt.Sprintf("r%d", i%2+1),
			VCores: vcores[n], MemoryMB: 2048 * vcores[n]})
	}
	type task struct {
		id, attempt, node string
		start             int64 // ms after t0
		mapMS, sortMS     int64
		started, done     bool
	}
	var tasks []*task
	addTask := func(node string, start int64) {
		i := len(tasks)
		tk := &task{id: fmt.Sprintf("task_1763719200000_0001_m_%06d", i), node: node, start: start, mapMS: 72_000, sortMS: 18_000}
		tk.attempt = strings.Replace(tk.id, "task_", "attempt_", 1) + "_0"
		if node == "n4" {
			tk.mapMS, tk.sortMS = 4*tk.mapMS, 4*tk.sortMS
		}
		tasks = append(tasks, tk)
	}
	for _, n := range nodes {
		k := 4
		if n == "n4" {
			k = 3
		}
		for range k {
			addTask(n, 0)
		}
	}
	for _, n := range []string{"n1", "n2", "n3"} {
		k := 4
		if n == "n1" {
			k = 3
		}
		for range k {
			addTask(n, 90_000)
		}
	}
	add(events.Event{Type: events.AppSubmitted, TS: t0, App: app, Name: "sort-1", Queue: "default", User: "u",
		JobType: "sort", Maps: len(tasks)})
	for _, tk := range tasks {
		add(events.Event{Type: events.TaskPending, TS: t0, App: app, Task: tk.id, Kind: events.Map})
	}
	for ts := t0; ts <= t0+175_000; ts += 3000 {
		el := ts - t0
		for i, tk := range tasks {
			if !tk.started && el >= tk.start {
				tk.started = true
				add(events.Event{Type: events.ContainerAllocated, TS: ts, App: app, Task: tk.id, Attempt: tk.attempt,
					Container: fmt.Sprintf("container_1763719200000_0001_01_%06d", i+2), Node: tk.node,
					VCores: 1, MemoryMB: 1024, Locality: events.NodeLocal})
				continue
			}
			if !tk.started || tk.done {
				continue
			}
			switch run := el - tk.start; {
			case run >= tk.mapMS+tk.sortMS:
				tk.done = true
				add(events.Event{Type: events.TaskFinished, TS: ts, App: app, Task: tk.id, Attempt: tk.attempt,
					State: events.StateSucceeded, PhaseMS: &events.PhaseDurations{Map: tk.mapMS, Sort: tk.sortMS}})
			case run >= tk.mapMS:
				pp := float64(run-tk.mapMS) / float64(tk.sortMS)
				add(events.Event{Type: events.TaskProgress, TS: ts, App: app, Task: tk.id, Attempt: tk.attempt,
					Progress: 2.0/3 + pp/3, Phase: events.PhaseSort, PhaseProgress: &pp})
			default:
				pp := float64(run) / float64(tk.mapMS)
				add(events.Event{Type: events.TaskProgress, TS: ts, App: app, Task: tk.id, Attempt: tk.attempt,
					Progress: 2.0 / 3 * pp, Phase: events.PhaseMap, PhaseProgress: &pp})
			}
		}
		for _, n := range nodes {
			used := 0
			for _, tk := range tasks {
				if tk.node == n && tk.started && !tk.done {
					used++
				}
			}
			running := used
			add(events.Event{Type: events.NodeHeartbeat, TS: ts, Node: n, UsedVCores: used, UsedMemoryMB: 1024 * used,
				Load1: float64(used), CPUUtil: float64(used) / float64(vcores[n]), RunningContainers: &running})
		}
	}
	return out
}

func encodeLog(t *testing.T, evs []events.Event) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := events.NewWriter(&buf)
	for i := range evs {
		if err := w.Write(&evs[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestSlowNodeLogIsCurrent(t *testing.T) {
	want := encodeLog(t, slowNodeEvents())
	if *update {
		if err := os.WriteFile(slowNodeLog, want, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(slowNodeLog)
	if err != nil {
		t.Fatalf("%v (run go test -run TestSlowNodeLogIsCurrent -update)", err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s is stale: run go test ./policy/samr -run TestSlowNodeLogIsCurrent -update", slowNodeLog)
	}
}

// replay runs the recorded log through the engine with the registry's samr.
func replay(t *testing.T) []policy.Hint {
	t.Helper()
	f, err := os.Open(filepath.Clean(slowNodeLog))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	stack, err := plugins.NewRegistry().Build(context.Background(), "samr", policy.Handle{Profiles: profiles.NewMemory(), Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	eng := engine.New(stack, engine.Options{})
	ctx := context.Background()
	var hints []policy.Hint
	r := events.NewReader(f)
	for {
		ev, err := r.Next()
		if err != nil {
			if err.Error() == "EOF" || strings.HasSuffix(err.Error(), "EOF") {
				break
			}
			t.Fatal(err)
		}
		hints = append(hints, eng.Apply(ctx, &ev)...)
	}
	if st := eng.Stats(); len(st.Panics) > 0 || len(st.Errors) > 0 || len(st.Invalid) > 0 {
		t.Fatalf("engine stats: panics %v errors %v invalid %v", st.Panics, st.Errors, st.Invalid)
	}
	if err := eng.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	return hints
}

// TestLiveSlowNode is the live path: replaying a log in which n4 runs maps at
// a quarter of the others' rate yields a node-class hint marking n4
// map-slow, and backups of n4's tasks aimed at other nodes, never at n4.
func TestLiveSlowNode(t *testing.T) {
	hints := replay(t)
	n4Tasks := map[string]bool{}
	for _, ev := range slowNodeEvents() {
		if ev.Type == events.ContainerAllocated && ev.Node == "n4" {
			n4Tasks[ev.Task] = true
		}
	}
	var slowMarked bool
	var backups int
	for _, h := range hints {
		switch h.Kind {
		case policy.KindNodeClass:
			if h.Node != "n4" {
				t.Errorf("only n4 is slow: %+v", h)
			}
			if h.Node == "n4" && !h.MapSlow {
				t.Errorf("n4 cleared although it stays slow: %+v", h)
			}
			slowMarked = slowMarked || (h.Node == "n4" && h.MapSlow && !h.ReduceSlow)
		case policy.KindSpeculate:
			backups++
			if h.Node == "n4" {
				t.Errorf("backup aimed at the map-slow node: %+v", h)
			}
			if !n4Tasks[h.Task] {
				t.Errorf("backup of a task that does not run on n4: %+v", h)
			}
			if h.Policy != "samr" || h.EstRemainingMS <= 0 || h.EstBackupMS <= 0 {
				t.Errorf("incomplete hint: %+v", h)
			}
		default:
			t.Errorf("unexpected hint %+v", h)
		}
	}
	if !slowMarked {
		t.Error("no node-class hint marks n4 map-slow")
	}
	// n1's one free vcore takes one backup; n4's five free vcores none.
	if backups < 1 {
		t.Errorf("%d backups, want at least one", backups)
	}
}

// TestLiveSlowNodeDeterministic: the same log gives the same hints.
func TestLiveSlowNodeDeterministic(t *testing.T) {
	a, _ := json.Marshal(replay(t))
	b, _ := json.Marshal(replay(t))
	if !bytes.Equal(a, b) {
		t.Fatal("two replays of the same log differ")
	}
}
