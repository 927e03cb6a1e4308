package tmar

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/rmsidecar/rmsidecar/events"
)

// Random event streams over two apps (maps and reducers first seen by
// task.pending or by an attempt, attempts that succeed, fail or are killed
// and report outputs again, tasks pending again, an app's end): outputTotal,
// kept per task and updated from the events Observe sees, equals the sum
// over every task after any event.
func TestOutputTotalFollowsEvents(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 9))
	for iter := range 200 {
		e, p := build(t, Name, nil)
		ctx := context.Background()
		var list evs
		cluster3(&list)
		list.add(events.Event{Type: events.AppSubmitted, TS: 2000, App: "a2", Name: "wc", Queue: "q", User: "u", JobType: "wordcount", Maps: 3, Reduces: 1})
		for i := range list.list {
			e.Apply(ctx, &list.list[i])
		}
		ts := int64(3000)
		attempts := map[string]int{}
		for step := range 300 {
			app := fmt.Sprint("a", 1+rng.IntN(2))
			kind, letter := events.Map, "m"
			if rng.IntN(4) == 0 {
				kind, letter = events.Reduce, "r"
			}
			task := fmt.Sprintf("task_%s_%s_%06d", app, letter, rng.IntN(6))
			node := fmt.Sprintf("n%d:8041", 1+rng.IntN(3))
			ts += int64(rng.IntN(3)) * 100
			att := fmt.Sprintf("%s_%d", task, attempts[task])
			var ev events.Event
			switch rng.IntN(6) {
			case 0:
				ev = events.Event{Type: events.TaskPending, App: app, Task: task, Kind: kind}
				if kind == events.Reduce {
					part := rng.IntN(2)
					ev.Partition = &part
				}
			case 1:
				attempts[task]++
				att = fmt.Sprintf("%s_%d", task, attempts[task])
				ev = events.Event{Type: events.ContainerAllocated, App: app, Task: task, Attempt: att, Container: "c" + att, Node: node}
			case 2, 3:
				st := []string{events.StateSucceeded, events.StateSucceeded, events.StateFailed, events.StateKilled}[rng.IntN(4)]
				ev = events.Event{Type: events.TaskFinished, App: app, Task: task, Attempt: att, State: st}
			case 4:
				var parts []events.PartitionSize
				for k := range rng.IntN(3) {
					parts = append(parts, events.PartitionSize{ID: k, Bytes: int64(1 + rng.IntN(1000))})
				}
				ev = events.Event{Type: events.MapOutput, App: app, Task: task, Attempt: att, Node: node, Partitions: parts}
			default:
				if rng.IntN(40) == 0 {
					ev = events.Event{Type: events.AppFinished, App: app, State: events.StateSucceeded}
				} else {
					continue
				}
			}
			ev.TS = ts
			list.addApply(ctx, e, ev)
			if rng.IntN(3) > 0 {
				continue // let changes pile up between reads
			}
			for _, id := range []string{"a1", "a2"} {
				a := e.State().App(id)
				if a == nil {
					continue
				}
				var want int64
				for _, t := range a.Tasks {
					want += mapOutputBytes(t)
				}
				if got := p.outputTotal(a); got != want {
					t.Fatalf("instance %d step %d app %s: outputTotal %d, want %d", iter, step, id, got, want)
				}
			}
		}
	}
}
