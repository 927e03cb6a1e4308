package tmar

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/rmsidecar/rmsidecar/cluster"
	"github.com/rmsidecar/rmsidecar/events"
)

// modelNodesRef is the model's machines and node index as made before
// modelNodes: the cores counted first, each machine's cores set to now
// and appended, then indexNodesRef.
func (p *Plugin) modelNodesRef(ctx context.Context, v cluster.View, now float64) {
	p.machines, p.nodeAt = p.machines[:0], p.nodeAt[:0]
	var app appRows
	total := 0
	for _, n := range v.Nodes() {
		if n.State == cluster.NodeRunning {
			total += max(0, n.VCores/p.cfg.ContainerVCores)
		}
	}
	coreBuf := make([]float64, 0, total)
	for _, n := range v.Nodes() {
		if n.State != cluster.NodeRunning {
			continue
		}
		cores := n.VCores / p.cfg.ContainerVCores
		if cores <= 0 {
			continue
		}
		at0 := len(coreBuf)
		coreBuf = coreBuf[:at0+cores]
		for k := at0; k < len(coreBuf); k++ {
			coreBuf[k] = now
		}
		m := Machine{Name: n.ID, CoreFree: coreBuf[at0:len(coreBuf):len(coreBuf)], PowerIdleW: n.PowerIdleW, PowerMaxW: n.PowerMaxW}
		busy := 0
		for _, at := range n.Running {
			if busy >= cores {
				break
			}
			var est float64
			if at.Task.Kind == events.Map {
				est = p.mapExecOf(ctx, &app, at.Task, n)
			} else {
				est = p.reducerEst(ctx, at.Task, n)
			}
			m.CoreFree[busy] = attemptEnd(at, est, now)
			busy++
		}
		p.machines = append(p.machines, m)
		p.nodeAt = append(p.nodeAt, n)
	}
	same := p.index != nil && len(p.idxNodes) == len(p.nodeAt)
	for i := 0; same && i < len(p.nodeAt); i++ {
		n := p.nodeAt[i]
		same = n == p.idxNodes[i] && n.ID == p.idxIDs[i] && n.Rack == p.idxRacks[i]
	}
	p.indexNodes(same)
}

// nodeIndex is what indexNodes leaves, copied.
type nodeIndex struct {
	gen              uint64
	index, hostIdx   map[string]int
	rackIx           []int
	idxNodes         []*cluster.Node
	idxIDs, idxRacks []string
	machines         []Machine
	nodeAt           []*cluster.Node
}

func (p *Plugin) saveIndex() nodeIndex {
	return nodeIndex{gen: p.idxGen, index: maps.Clone(p.index), hostIdx: maps.Clone(p.hostIdx), rackIx: slices.Clone(p.rackIx),
		idxNodes: slices.Clone(p.idxNodes), idxIDs: slices.Clone(p.idxIDs), idxRacks: slices.Clone(p.idxRacks),
		machines: cloneMachines(p.machines), nodeAt: slices.Clone(p.nodeAt)}
}

func (p *Plugin) restoreIndex(x nodeIndex) {
	p.idxGen, p.index, p.hostIdx, p.rackIx = x.gen, maps.Clone(x.index), maps.Clone(x.hostIdx), slices.Clone(x.rackIx)
	p.idxNodes, p.idxIDs, p.idxRacks = slices.Clone(x.idxNodes), slices.Clone(x.idxIDs), slices.Clone(x.idxRacks)
}

// Random clusters of up to 24 nodes registering (racks, cores and power
// changing on a new registration, ids and racks made as new strings),
// lost and back, with maps and reducers starting, reporting progress and
// finishing on them, and node lists growing past every buffer before:
// after every few events modelNodes gives the machines (names, powers and
// every core's bits), node list and node index (its generation too) of
// modelNodesRef, from the same index before.
func TestModelNodesSameAsRef(t *testing.T) {
	rng := rand.New(rand.NewPCG(10, 20))
	e, p := build(t, Name, nil)
	ctx := context.Background()
	f := newFeed(ctx, e, rng, 3, 500)
	add := f.add
	v := e.State()
	tasks, checks, regen, busy := 0, 0, 0, 0
	var running []events.Event // allocations not finished
	for round := range 400 {
		nodes := 4 + round/20 // the cluster grows
		for range 1 + rng.IntN(5) {
			node := fmt.Sprintf("n%d:8041", rng.IntN(nodes))
			switch k := rng.IntN(10); {
			case k < 3:
				add(events.Event{Type: events.NodeRegistered, Node: node, Rack: fmt.Sprintf("/r%d", rng.IntN(3)),
					VCores: rng.IntN(5), MemoryMB: 4096, CPUMHz: 2400 * (1 + rng.IntN(2)),
					PowerIdleW: float64(100 + rng.IntN(2)), PowerMaxW: float64(300 + rng.IntN(2))})
			case k < 4:
				add(events.Event{Type: events.NodeLost, Node: node, Reason: "test"})
			case k < 7:
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
				if rng.IntN(3) > 0 {
					add(events.Event{Type: events.TaskPending, App: app, Task: task, Kind: events.Map,
						Splits: []events.Split{{Path: "f", Length: int64(rng.IntN(1 << 28)), Hosts: []string{node}}}})
				} else {
					part := rng.IntN(2)
					add(events.Event{Type: events.TaskPending, App: app, Task: task, Kind: events.Reduce, Partition: &part})
				}
				al := events.Event{Type: events.ContainerAllocated, App: app, Task: task, Attempt: att, Container: "c" + att, Node: node}
				add(al)
				running = append(running, al)
			case k < 8 && len(running) > 0:
				al := running[rng.IntN(len(running))]
				add(events.Event{Type: events.TaskProgress, App: al.App, Task: al.Task, Attempt: al.Attempt, Progress: rng.Float64()})
			case len(running) > 0:
				j := rng.IntN(len(running))
				al := running[j]
				running = slices.Delete(running, j, j+1)
				add(events.Event{Type: events.TaskFinished, App: al.App, Task: al.Task, Attempt: al.Attempt, State: events.StateSucceeded})
			}
		}
		if rng.IntN(3) == 0 {
			// Two models at one instant, and a model after a node's
			// strings were made again with the same text.
			if n := v.Node(fmt.Sprintf("n%d:8041", rng.IntN(nodes))); n != nil && rng.IntN(4) == 0 {
				n.Rack = string([]byte(n.Rack))
			}
		}
		before := p.saveIndex()
		now := float64(v.Now()) / 1000
		p.beginReducerApps()
		var app appRows
		p.modelNodes(ctx, v, now, &app)
		got := p.saveIndex()
		p.restoreIndex(before)
		p.beginReducerApps()
		p.modelNodesRef(ctx, v, now)
		want := p.saveIndex()
		checks++
		if got.gen != before.gen {
			regen++
		}
		for _, m := range got.machines {
			for _, c := range m.CoreFree {
				if c != now {
					busy++
				}
			}
		}
		if got.gen != want.gen || !maps.Equal(got.index, want.index) || !maps.Equal(got.hostIdx, want.hostIdx) ||
			!slices.Equal(got.rackIx, want.rackIx) || !slices.Equal(got.idxNodes, want.idxNodes) ||
			!slices.Equal(got.idxIDs, want.idxIDs) || !slices.Equal(got.idxRacks, want.idxRacks) {
			t.Fatalf("round %d: index (gen %d) differs from the reference's (gen %d)", round, got.gen, want.gen)
		}
		if !slices.Equal(got.nodeAt, want.nodeAt) || len(got.machines) != len(want.machines) {
			t.Fatalf("round %d: %d machines, want %d", round, len(got.machines), len(want.machines))
		}
		for i := range got.machines {
			g, w := got.machines[i], want.machines[i]
			if g.Name != w.Name || !sameBits(g.PowerIdleW, w.PowerIdleW) || !sameBits(g.PowerMaxW, w.PowerMaxW) ||
				!slices.EqualFunc(g.CoreFree, w.CoreFree, sameBits) {
				t.Fatalf("round %d: machine %d = %+v, want %+v", round, i, g, w)
			}
		}
		// The model as used: machines kept from one model to the next
		// are written over by the planners.
		buf := p.coreBuf[:cap(p.coreBuf)]
		for c := range buf {
			buf[c] = float64(rng.IntN(100))
		}
	}
	// The rounds must cover new indexes and busy cores.
	if checks < 400 || regen < 40 || busy < 1000 {
		t.Fatalf("%d checks, %d new indexes, %d busy cores", checks, regen, busy)
	}
	t.Logf("%d checks, %d new indexes, %d busy cores, %d buffer", checks, regen, busy, cap(p.coreBuf))
}
