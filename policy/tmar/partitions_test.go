package tmar

import (
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"sort"
	"testing"

	"github.com/rmsidecar/rmsidecar/cluster"
	"github.com/rmsidecar/rmsidecar/events"
)

// Random apps (maps on running nodes and on nodes outside the model, map
// outputs with repeated, empty, large and negative partition ids, maps
// without an output yet), one plugin throughout so partitions' table is
// reused: partitions returns what partitionsRef, the code before the
// table, returns, and partitionBytes partitionBytesRef's sums.
func TestPartitionsSameAsRef(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 11))
	e, p, list := buildOnCluster3(t)
	ctx := context.Background()
	ts := int64(3000)
	nodes := []string{"n1:8041", "n2:8041", "n3:8041", "gone:8041"}
	ids := []int{0, 1, 2, 3, 7, 200, maxDenseID - 1, maxDenseID, 1 << 20, -1}
	for iter := range 300 {
		app := fmt.Sprint("app", iter)
		maps := 1 + rng.IntN(8)
		add := func(ev events.Event) {
			ts += 10
			ev.TS = ts
			list.addApply(ctx, e, ev)
		}
		add(events.Event{Type: events.AppSubmitted, App: app, Name: "wc", Queue: "q", User: "u", JobType: "wordcount", Maps: maps, Reduces: 2})
		for m := range maps {
			task := fmt.Sprintf("task_%d_m_%06d", iter, m)
			att := task + "_0"
			add(events.Event{Type: events.TaskPending, App: app, Task: task, Kind: events.Map})
			if rng.IntN(20) == 0 {
				continue // no attempt: no output yet
			}
			node := nodes[rng.IntN(len(nodes))]
			add(events.Event{Type: events.ContainerAllocated, App: app, Task: task, Attempt: att, Container: "c" + att, Node: node})
			add(events.Event{Type: events.TaskFinished, App: app, Task: task, Attempt: att, State: events.StateSucceeded})
			if rng.IntN(20) == 0 {
				continue // no output reported
			}
			parts := []events.PartitionSize{}
			for range rng.IntN(5) {
				parts = append(parts, events.PartitionSize{ID: ids[rng.IntN(len(ids))], Bytes: int64(rng.IntN(3)) * int64(1+rng.IntN(1e9))})
			}
			add(events.Event{Type: events.MapOutput, App: app, Task: task, Attempt: att, Node: node, Partitions: parts})
		}
		p.model(ctx, e.State()) // indexes the nodes, as plan does first
		a := e.State().App(app)
		got, gotOK := p.partitions(a)
		order := piecesOrderRef(p, a)
		for _, pt := range got { // the pieces in order of first report
			var ms []int
			for _, pc := range pt.pieces {
				ms = append(ms, pc.machine)
			}
			if !reflect.DeepEqual(ms, order[pt.ID]) {
				t.Fatalf("app %d partition %d: pieces on %v, want %v", iter, pt.ID, ms, order[pt.ID])
			}
		}
		for k := range got { // pieces as partitionsRef's At
			if got[k].At != nil {
				t.Fatalf("app %d: partition %d has an At", iter, got[k].ID)
			}
			got[k].At, got[k].pieces = piecesMap(got[k].pieces), nil
		}
		want, wantOK := p.partitionsRef(a)
		if gotOK != wantOK || !reflect.DeepEqual(got, want) {
			t.Fatalf("app %d: partitions = %v, %v\nwant %v, %v", iter, got, gotOK, want, wantOK)
		}
		for _, id := range append(ids, -7, 5, maxDenseID+1) {
			if got, want := p.partitionBytes(a, id), partitionBytesRef(a, id); got != want {
				t.Fatalf("app %d partition %d: partitionBytes %d, want %d", iter, id, got, want)
			}
		}
	}
}

// piecesOrderRef is the machines of each partition's pieces in the order
// partitions lists them: of first report, over the app's maps in task
// order and each map's outputs in order (-1: a node outside the model).
func piecesOrderRef(p *Plugin, a *cluster.App) map[int][]int {
	out := map[int][]int{}
	for _, t := range a.Tasks {
		at := succeeded(t)
		if t.Kind != events.Map || at == nil {
			continue
		}
		m := -1
		if i, ok := p.index[at.Node]; ok {
			m = i
		}
		for _, o := range at.Output {
			if !slices.Contains(out[o.ID], m) {
				out[o.ID] = append(out[o.ID], m)
			}
		}
	}
	return out
}

// partitionsRef is partitions before its dense table (the reference of
// TestPartitionsSameAsRef): it gathers the app's partition sizes and where their pieces lie.
func (p *Plugin) partitionsRef(a *cluster.App) ([]Partition, bool) {
	byID := map[int]*Partition{}
	// A partition has a piece on at most every machine (and the gone ones)
	// and on at most every map: its map is made that size at once.
	size := len(p.index) + 1
	if m := a.Count[events.Map]; m != nil {
		size = min(size, m.Succeeded+1)
	}
	for _, t := range a.Tasks {
		if t.Kind != events.Map {
			continue
		}
		at := succeeded(t)
		if at == nil || at.Output == nil {
			return nil, false // an output is still missing
		}
		i, ok := p.index[at.Node]
		if !ok {
			i = -1 // output on a node no longer running: counts as remote everywhere
		}
		for _, o := range at.Output {
			part := byID[o.ID]
			if part == nil {
				part = &Partition{ID: o.ID, At: make(map[int]int64, size)}
				byID[o.ID] = part
			}
			part.Bytes += o.Bytes
			part.At[i] += o.Bytes
			if !p.cfg.SpawnReducers {
				part.Run = 1
			}
		}
	}
	ids := make([]int, 0, len(byID))
	for id := range byID {
		ids = append(ids, id)
	}
	sort.Ints(ids)
	out := make([]Partition, 0, len(ids))
	for _, id := range ids {
		out = append(out, *byID[id])
	}
	return out, len(out) > 0
}

// partitionBytesRef is partitionBytes before its sums were a slice: the
// partition summed over the outputs of the app's successful maps.
func partitionBytesRef(a *cluster.App, part int) int64 {
	if part < 0 {
		return 0
	}
	sums := map[int]int64{}
	for _, t := range a.Tasks {
		at := succeeded(t)
		if t.Kind != events.Map || at == nil {
			continue
		}
		for _, x := range at.Output {
			if t.State == cluster.TaskSucceeded {
				sums[x.ID] += x.Bytes
			}
		}
	}
	return sums[part]
}
