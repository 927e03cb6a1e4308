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

// modelReplanningRef is the re-plan's model as made before replanKept:
// its pass over every reservation in order of submission skips the maps
// not started.
func (p *Plugin) modelReplanningRef(ctx context.Context, v cluster.View) []Machine {
	now := float64(v.Now()) / 1000
	p.modelAt = v.Now()
	p.beginReducerApps()
	var app appRows
	p.modelNodes(ctx, v, now, &app)
	var hs []held
	for _, r := range p.bySubmit.sorted() {
		if r.task.Kind == events.Map && r.task.State == cluster.TaskPending {
			continue
		}
		if r.task.State != cluster.TaskPending || r.task.App.Finished() {
			p.unreserve(r.task.ID, r)
			continue
		}
		if r.finish <= now {
			continue
		}
		if i, ok := p.index[r.node]; ok {
			hs = append(hs, held{i, r.finish})
		}
	}
	holdCores(p.machines, hs, &holdScratch{})
	return p.machines
}

// Random apps whose maps and reducers are pending, running, finished or
// of a finished app, reserved on nodes of the model or not, with finishes
// before and after now, some reservations dropped: the re-plan's model
// over replanSplit's kept reservations gives the machines (every core's
// bits) and drops the reservations of modelReplanningRef, and
// replanSplit's pending maps are the maps not started in order of
// submission.
func TestReplanModelSameAsRef(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 30))
	e, p := build(t, Name, nil)
	ctx := context.Background()
	f := newFeed(ctx, e, rng, 2, 700)
	add := f.add
	for i := range 6 {
		add(events.Event{Type: events.NodeRegistered, Node: fmt.Sprintf("n%d:8041", i), Rack: fmt.Sprintf("/r%d", i%2),
			VCores: 1 + rng.IntN(3), MemoryMB: 4096, CPUMHz: 2400, PowerIdleW: 100, PowerMaxW: 300})
	}
	v := e.State()
	var tasks []*cluster.Task
	apps, n, dropped, kept := 0, 0, 0, 0
	for round := range 300 {
		if rng.IntN(3) == 0 || apps == 0 {
			apps++
			add(events.Event{Type: events.AppSubmitted, App: fmt.Sprint("app", apps), Name: "wc", Queue: "q", User: "u", JobType: "wordcount", Maps: 4, Reduces: 2})
		}
		for range 1 + rng.IntN(6) {
			app := fmt.Sprint("app", 1+rng.IntN(apps))
			if a := v.App(app); a == nil || a.Finished() {
				continue
			}
			n++
			task := fmt.Sprintf("t%04d", n)
			if rng.IntN(3) > 0 {
				add(events.Event{Type: events.TaskPending, App: app, Task: task, Kind: events.Map})
			} else {
				part := rng.IntN(2)
				add(events.Event{Type: events.TaskPending, App: app, Task: task, Kind: events.Reduce, Partition: &part})
			}
			x := v.App(app).Task(task)
			if x == nil {
				t.Fatalf("round %d: task %s not in the state", round, task)
			}
			tasks = append(tasks, x)
		}
		// Some tasks start, some finish, an app ends now and then.
		for range rng.IntN(4) {
			x := tasks[rng.IntN(len(tasks))]
			if x.State != cluster.TaskPending || x.App.Finished() {
				continue
			}
			att := x.ID + "_0"
			add(events.Event{Type: events.ContainerAllocated, App: x.App.ID, Task: x.ID, Attempt: att, Container: "c" + att, Node: fmt.Sprintf("n%d:8041", rng.IntN(6))})
			if rng.IntN(2) == 0 {
				add(events.Event{Type: events.TaskFinished, App: x.App.ID, Task: x.ID, Attempt: att, State: events.StateSucceeded})
			}
		}
		if rng.IntN(15) == 0 {
			add(events.Event{Type: events.AppFinished, App: fmt.Sprint("app", 1+rng.IntN(apps))})
		}
		// Reservations of ours (besides those Place made), some dropped.
		now := float64(v.Now()) / 1000
		for range rng.IntN(8) {
			x := tasks[rng.IntN(len(tasks))]
			node := fmt.Sprintf("n%d:8041", rng.IntN(7)) // n6 is not a node
			p.reserve(x.ID, reservation{task: x, node: node, finish: now + float64(rng.IntN(30)-8)})
		}
		for range rng.IntN(2) {
			if live := p.bySubmit.sorted(); len(live) > 0 {
				r := live[rng.IntN(len(live))]
				p.unreserve(r.task.ID, r)
			}
		}
		// The reference first; the reservations it drops are put back.
		before := slices.Clone(p.bySubmit.sorted())
		var wantPending []*reservation
		for _, r := range before {
			if r.task.Kind == events.Map && r.task.State == cluster.TaskPending {
				wantPending = append(wantPending, r)
			}
		}
		want := cloneMachines(p.modelReplanningRef(ctx, v))
		var wantDead []*reservation
		for _, r := range before {
			if r.dead {
				wantDead = append(wantDead, r)
			}
		}
		p.byID.sorted()
		p.bySubmit.sorted()
		for _, r := range wantDead {
			r.dead = false
			p.reserved[r.task.ID] = r
			p.byID.add(r)
			p.bySubmit.add(r)
		}
		if got := p.bySubmit.sorted(); !slices.Equal(got, before) {
			t.Fatalf("round %d: the reservations were not put back", round)
		}
		pending, keptRs := p.replanSplit()
		if !slices.Equal(pending, wantPending) {
			t.Fatalf("round %d: replanSplit's pending maps differ from the maps not started", round)
		}
		kept += len(keptRs)
		p.modelAt = -1
		got := cloneMachines(p.modelReplanning(ctx, v, keptRs))
		p.replanRs, p.replanKeptBuf = pending[:0], keptRs[:0]
		var gotDead []*reservation
		for _, r := range before {
			if r.dead {
				gotDead = append(gotDead, r)
			}
		}
		dropped += len(gotDead)
		if !slices.Equal(gotDead, wantDead) {
			t.Fatalf("round %d: %d reservations dropped, want %d", round, len(gotDead), len(wantDead))
		}
		if len(got) != len(want) {
			t.Fatalf("round %d: %d machines, want %d", round, len(got), len(want))
		}
		for i := range got {
			if !slices.EqualFunc(got[i].CoreFree, want[i].CoreFree, sameBits) {
				t.Fatalf("round %d: machine %d cores %v, want %v", round, i, got[i].CoreFree, want[i].CoreFree)
			}
		}
	}
	// The rounds must cover reservations kept and dropped.
	if dropped < 50 || kept < 300 {
		t.Fatalf("%d reservations dropped, %d kept: the rounds do not cover the model", dropped, kept)
	}
	t.Logf("%d reservations dropped, %d kept", dropped, kept)
}
