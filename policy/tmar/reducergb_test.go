package tmar

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/rmsidecar/rmsidecar/cluster"
	"github.com/rmsidecar/rmsidecar/events"
)

// Random apps with maps reporting outputs and reducers of repeated
// partitions, random plans (some partitions left out, some apps without
// one), reducers and outputs added between models: within each model,
// reducerGBOf gives reducerGB's bits for every reducer, asked in a random
// order and more than once.
func TestReducerGBOfSameAsReducerGB(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 20))
	e, p, list := buildOnCluster3(t)
	ctx := context.Background()
	ts := int64(3000)
	add := func(ev events.Event) {
		ts += 10
		ev.TS = ts
		list.addApply(ctx, e, ev)
	}
	nodes := []string{"n1:8041", "n2:8041", "n3:8041"}
	var apps []string
	tasks := 0
	for round := range 60 {
		// New apps, maps with outputs and reducers.
		for range 1 + rng.IntN(3) {
			app := fmt.Sprint("app", len(apps))
			apps = append(apps, app)
			add(events.Event{Type: events.AppSubmitted, App: app, Name: "wc", Queue: "q", User: "u", JobType: "wordcount",
				Maps: 1 + rng.IntN(4), Reduces: rng.IntN(4)})
		}
		for range 1 + rng.IntN(6) {
			app := apps[rng.IntN(len(apps))]
			tasks++
			task, att := fmt.Sprintf("t%d", tasks), fmt.Sprintf("t%d_0", tasks)
			if rng.IntN(2) == 0 {
				node := nodes[rng.IntN(len(nodes))]
				add(events.Event{Type: events.TaskPending, App: app, Task: task, Kind: events.Map})
				add(events.Event{Type: events.ContainerAllocated, App: app, Task: task, Attempt: att, Container: "c" + att, Node: node})
				add(events.Event{Type: events.TaskFinished, App: app, Task: task, Attempt: att, State: events.StateSucceeded})
				var parts []events.PartitionSize
				for range rng.IntN(4) {
					parts = append(parts, events.PartitionSize{ID: rng.IntN(4), Bytes: int64(rng.IntN(3)) * int64(1+rng.IntN(1e9))})
				}
				add(events.Event{Type: events.MapOutput, App: app, Task: task, Attempt: att, Node: node, Partitions: parts})
				continue
			}
			part := rng.IntN(4)
			add(events.Event{Type: events.TaskPending, App: app, Task: task, Kind: events.Reduce, Partition: &part})
		}
		// Plans for some apps, of some partitions.
		for _, app := range apps {
			if rng.IntN(4) != 0 {
				continue
			}
			if rng.IntN(3) == 0 {
				delete(p.plans, app)
				continue
			}
			plan := map[int]Binding{}
			for k := range 4 {
				if rng.IntN(3) > 0 {
					plan[k] = Binding{Partition: k, Bytes: int64(rng.IntN(1 << 34))}
				}
			}
			p.plans[app] = plan
		}
		// One model's reads.
		var reds []*cluster.Task
		for _, app := range apps {
			for _, x := range e.State().App(app).Tasks {
				if x.Kind == events.Reduce {
					reds = append(reds, x)
				}
			}
		}
		p.beginReducerApps()
		for range 3 * len(reds) {
			x := reds[rng.IntN(len(reds))]
			if got, want := p.reducerGBOf(x), p.reducerGB(x); !sameBits(got, want) {
				t.Fatalf("round %d: reducerGBOf(%s of %s, partition %d) = %v, want %v", round, x.ID, x.App.ID, x.Partition, got, want)
			}
		}
	}
}
