package tmar

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/rmsidecar/rmsidecar/events"
)

// Random apps whose reducers are added, made pending again with another
// partition or kind, started and finished (Observe sees every event, as
// in the engine): after each event, reducersOf's kept counts are
// countReducers' for every partition, so Observe's learning reads the
// same count as the walk it replaced.
func TestReducersOfSameAsCount(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 2))
	e, p, list := buildOnCluster3(t)
	ctx := context.Background()
	ts := int64(3000)
	var apps []string
	var tasks [][]string // per app
	check := func(step int) {
		t.Helper()
		for _, app := range apps {
			a := e.State().App(app)
			if a == nil {
				continue
			}
			for part := -1; part < 5; part++ {
				if got, want := p.reducersOf(a)[part], countReducers(a, part); got != want {
					t.Fatalf("step %d: reducersOf(%s)[%d] = %d, want %d", step, app, part, got, want)
				}
			}
		}
	}
	nodes := []string{"n1:8041", "n2:8041", "n3:8041"}
	for step := range 3000 {
		ts += 10
		var ev events.Event
		switch r := rng.IntN(10); {
		case r == 0 || len(apps) == 0:
			app := fmt.Sprint("app", len(apps))
			apps, tasks = append(apps, app), append(tasks, nil)
			ev = events.Event{Type: events.AppSubmitted, App: app, Name: "wc", Queue: "q", User: "u", JobType: "wordcount",
				Maps: 2, Reduces: 3}
		case r < 6: // a new task, or one pending again (kind and partition may change)
			k := rng.IntN(len(apps))
			var task string
			if len(tasks[k]) > 0 && rng.IntN(2) == 0 {
				task = tasks[k][rng.IntN(len(tasks[k]))]
			} else {
				task = fmt.Sprintf("task_%d_%d", k, len(tasks[k]))
				tasks[k] = append(tasks[k], task)
			}
			kind := events.Reduce
			if rng.IntN(3) == 0 {
				kind = events.Map
			}
			part := rng.IntN(5) - 1
			ev = events.Event{Type: events.TaskPending, App: apps[k], Task: task, Kind: kind, Partition: &part}
		case r < 8: // an attempt of a task not seen yet (its kind from its id) or seen
			k := rng.IntN(len(apps))
			task := fmt.Sprintf("task_%d_%d_%c_%d", k, step, "mr"[rng.IntN(2)], step)
			if len(tasks[k]) > 0 && rng.IntN(2) == 0 {
				task = tasks[k][rng.IntN(len(tasks[k]))]
			} else {
				tasks[k] = append(tasks[k], task)
			}
			att := fmt.Sprintf("%s_a%d", task, step)
			ev = events.Event{Type: events.ContainerAllocated, App: apps[k], Task: task, Attempt: att, Container: "c" + att,
				Node: nodes[rng.IntN(len(nodes))]}
		default:
			k := rng.IntN(len(apps))
			if rng.IntN(8) == 0 {
				ev = events.Event{Type: events.AppFinished, App: apps[k], State: events.StateSucceeded}
				break
			}
			if len(tasks[k]) == 0 {
				continue
			}
			task := tasks[k][rng.IntN(len(tasks[k]))]
			a := e.State().App(apps[k])
			if a == nil || a.Task(task) == nil || len(a.Task(task).Attempts) == 0 {
				continue
			}
			at := a.Task(task).Attempts[0]
			ev = events.Event{Type: events.TaskFinished, App: apps[k], Task: task, Attempt: at.ID, State: events.StateSucceeded}
		}
		ev.TS = ts
		list.addApply(ctx, e, ev)
		check(step)
	}
}
