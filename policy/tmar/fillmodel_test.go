package tmar

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/rmsidecar/rmsidecar/cluster"
	"github.com/rmsidecar/rmsidecar/events"
)

// Random clusters (nodes registering with 0 to 4 cores, lost and back),
// maps and reducers running on them, and pending maps reserved on random
// nodes until random finishes (some past): after each model, fillModel
// gives every machine's earliest core and its time, bit for bit, as fill's
// pass over every core does.
func TestFillModelSameAsFill(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 4))
	e, p := build(t, Name, nil)
	ctx := context.Background()
	f := newFeed(ctx, e, rng, 3, 500)
	add := f.add
	v := e.State()
	tasks, checks, touched, held := 0, 0, 0, 0
	var running []events.Event
	for round := range 400 {
		nodes := 4 + round/20
		for range 1 + rng.IntN(6) {
			node := fmt.Sprintf("n%d:8041", rng.IntN(nodes))
			switch k := rng.IntN(12); {
			case k < 3:
				add(events.Event{Type: events.NodeRegistered, Node: node, Rack: fmt.Sprintf("/r%d", rng.IntN(3)),
					VCores: rng.IntN(5), MemoryMB: 4096, CPUMHz: 2400, PowerIdleW: 100, PowerMaxW: 300})
			case k < 4:
				add(events.Event{Type: events.NodeLost, Node: node, Reason: "test"})
			case k < 9:
				n := v.Node(node)
				if n == nil || n.State != cluster.NodeRunning {
					continue
				}
				tasks++
				app := fmt.Sprint("app", rng.IntN(3))
				if v.App(app) == nil {
					add(events.Event{Type: events.AppSubmitted, App: app, Name: "wc", Queue: "q", User: "u", JobType: "wordcount", Maps: 4, Reduces: 2})
				}
				task, att := fmt.Sprintf("t%d", tasks), fmt.Sprintf("t%d_0", tasks)
				add(events.Event{Type: events.TaskPending, App: app, Task: task, Kind: events.Map,
					Splits: []events.Split{{Path: "f", Length: int64(rng.IntN(1 << 28)), Hosts: []string{node}}}})
				if k < 6 { // left pending, reserved on some node
					other := fmt.Sprintf("n%d:8041", rng.IntN(nodes))
					tk := v.App(app).Task(task)
					p.reserve(task, reservation{task: tk, node: other, finish: float64(f.ts)/1000 + float64(rng.IntN(40)-5)})
					continue
				}
				al := events.Event{Type: events.ContainerAllocated, App: app, Task: task, Attempt: att, Container: "c" + att, Node: node}
				add(al)
				running = append(running, al)
			case len(running) > 0:
				j := rng.IntN(len(running))
				al := running[j]
				running = slices.Delete(running, j, j+1)
				add(events.Event{Type: events.TaskFinished, App: al.App, Task: al.Task, Attempt: al.Attempt, State: events.StateSucceeded})
			}
		}
		p.modelAt = -1
		ms := p.model(ctx, v)
		if !p.early.model {
			t.Fatalf("round %d: a new model is not marked for fillModel", round)
		}
		touched += len(p.early.touched)
		held += len(p.holdSc.hs)
		p.early.fillModel(ms)
		var want earliestCache
		want.fill(ms)
		checks++
		if !slices.Equal(p.early.cores, want.cores) || !slices.EqualFunc(p.early.frees, want.frees, sameBits) {
			t.Fatalf("round %d: fillModel %v %v, fill %v %v", round, p.early.cores, p.early.frees, want.cores, want.frees)
		}
		if !p.early.ok || p.early.model {
			t.Fatalf("round %d: fillModel left ok %v, model %v", round, p.early.ok, p.early.model)
		}
	}
	if checks < 400 || touched < 1000 || held < 200 {
		t.Fatalf("%d checks, %d touched, %d held", checks, touched, held)
	}
	t.Logf("%d checks, %d touched machines, %d held reservations", checks, touched, held)
}
