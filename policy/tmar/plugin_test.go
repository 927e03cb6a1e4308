package tmar

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/rmsidecar/rmsidecar/cluster"
	"github.com/rmsidecar/rmsidecar/engine"
	"github.com/rmsidecar/rmsidecar/events"
	"github.com/rmsidecar/rmsidecar/policy"
	"github.com/rmsidecar/rmsidecar/profiles"
)

type evs struct {
	list []events.Event
	n    int
}

func (e *evs) add(ev events.Event) {
	e.n++
	ev.ID = fmt.Sprintf("e%d", e.n)
	e.list = append(e.list, ev)
}

// addApply adds ev and applies the list's copy of it to eng, which keeps
// a pointer to it.
func (e *evs) addApply(ctx context.Context, eng *engine.Engine, ev events.Event) {
	e.add(ev)
	eng.Apply(ctx, &e.list[len(e.list)-1])
}

// cluster3 has three 2-core nodes; n1 is twice as fast as the others (by clock).
func cluster3(e *evs) {
	for i, mhz := range []int{4800, 2400, 2400} {
		e.add(events.Event{Type: events.NodeRegistered, TS: 1000, Node: fmt.Sprintf("n%d:8041", i+1), Rack: "/r1",
			VCores: 2, MemoryMB: 4096, CPUMHz: mhz, PowerIdleW: 100, PowerMaxW: 300})
	}
	e.add(events.Event{Type: events.AppSubmitted, TS: 2000, App: "a1", Name: "wc", Queue: "q", User: "u", JobType: "wordcount", Maps: 3, Reduces: 1})
}

// mapsDone adds app a1's maps 0-2, run on n1, n2 and n3 from 3 s to 9 s,
// each reporting the partitions parts(i).
func mapsDone(e *evs, parts func(i int) []events.PartitionSize) {
	for i, node := range []string{"n1:8041", "n2:8041", "n3:8041"} {
		task, att := mapTask(i), fmt.Sprintf("m%d_0", i)
		e.add(events.Event{Type: events.TaskPending, TS: 2000, App: "a1", Task: task, Kind: events.Map})
		e.add(events.Event{Type: events.ContainerAllocated, TS: 3000, App: "a1", Task: task, Attempt: att, Container: "c" + att, Node: node})
		e.add(events.Event{Type: events.TaskFinished, TS: 9000, App: "a1", Task: task, Attempt: att, State: events.StateSucceeded})
		e.add(events.Event{Type: events.MapOutput, TS: 9000, App: "a1", Task: task, Attempt: att, Node: node, Partitions: parts(i)})
	}
}

func mapTask(i int) string { return fmt.Sprintf("task_1_0001_m_%06d", i) }

func build(t *testing.T, name string, store policy.ProfileStore) (*engine.Engine, *Plugin) {
	t.Helper()
	var p policy.Plugin
	var err error
	h := policy.Handle{Profiles: store}
	if name == NamePower {
		p, err = NewPower(context.Background(), h)
	} else {
		p, err = New(context.Background(), h)
	}
	if err != nil {
		t.Fatal(err)
	}
	return engine.New(policy.NewStack(p), engine.Options{}), p.(*Plugin)
}

// buildOnCluster3 is build(t, Name, nil) with cluster3's nodes and app
// applied, and their list, which numbers the events a test adds next.
func buildOnCluster3(t *testing.T) (*engine.Engine, *Plugin, *evs) {
	t.Helper()
	e, p := build(t, Name, nil)
	list := &evs{}
	cluster3(list)
	applyAll(e, list.list)
	return e, p, list
}

func applyAll(e *engine.Engine, list []events.Event) []policy.Hint {
	var out []policy.Hint
	for i := range list {
		out = append(out, e.Apply(context.Background(), &list[i])...)
	}
	return out
}

// Maps go where they finish first. Defaults: 20 s per map at 2400 MHz, so
// 10 s on the 4800 MHz node n1. Maps 1-2 take n1's cores (done at 10 s);
// maps 3-4 tie there (10+10 = 20 s) with n2 (20 s) and stay on n1, the
// first in order; map 5 would wait until 30 s on n1 and goes to n2 (20 s).
func TestPlaceFollowsAlgorithm1(t *testing.T) {
	var e evs
	cluster3(&e)
	for i := range 5 {
		e.add(events.Event{Type: events.TaskPending, TS: 2000, App: "a1", Task: mapTask(i), Kind: events.Map})
	}
	eng, _ := build(t, Name, nil)
	hints := applyAll(eng, e.list)
	var first []string
	for _, h := range hints {
		if h.Kind == policy.KindPlace {
			first = append(first, h.Nodes[0].Node)
		}
	}
	want := []string{"n1:8041", "n1:8041", "n1:8041", "n1:8041", "n2:8041"}
	if fmt.Sprint(first) != fmt.Sprint(want) {
		t.Fatalf("placements = %v, want %v", first, want)
	}
}

// A strict hold also names the nodes where the map finishes as early at the
// same locality (the first of them to heartbeat takes it): maps 3-4 finish
// at 20 s on n1, n2 and n3 alike; map 5 at 20 s on n2 or n3. TMaR* leaves
// the choice among equal finishes to power and names one node.
func TestStrictHoldNamesEqualNodes(t *testing.T) {
	for _, c := range []struct {
		name string
		want []string
	}{
		{Name, []string{"[n1:8041]", "[n1:8041]", "[n1:8041 n2:8041 n3:8041]", "[n1:8041 n2:8041 n3:8041]", "[n2:8041 n3:8041]"}},
		{NamePower, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			var e evs
			cluster3(&e)
			for i := range 5 {
				e.add(events.Event{Type: events.TaskPending, TS: 2000, App: "a1", Task: mapTask(i), Kind: events.Map})
			}
			eng, _ := build(t, c.name, nil)
			var got []string
			for _, h := range applyAll(eng, e.list) {
				if h.Kind != policy.KindPlace {
					continue
				}
				var ns []string
				for _, n := range h.Nodes {
					ns = append(ns, n.Node)
				}
				if len(ns) > 1 && c.want == nil {
					t.Fatalf("tmar-power hold %s names %v, want one node", h.Task, ns)
				}
				got = append(got, fmt.Sprint(ns))
			}
			if c.want != nil && fmt.Sprint(got) != fmt.Sprint(c.want) {
				t.Fatalf("holds = %v, want %v", got, c.want)
			}
		})
	}
}

// Map_Matrix learns seconds per GB of split after the task overhead (R) and
// a factor per node (F), so one row serves maps of any split size: 4 s for
// a 512 MB split is (4 - 1) / (512e6 / 2^30) = 6.291456 s/GB, and a 256 MB
// map is then expected to take 1 + 3 / 2 = 2.5 s.
func TestLearnsMapMatrixAndPersists(t *testing.T) {
	var e evs
	cluster3(&e)
	split := func(b int64) []events.Split { return []events.Split{{Path: "/in", Length: b}} }
	e.add(events.Event{Type: events.TaskPending, TS: 2000, App: "a1", Task: mapTask(0), Kind: events.Map, Splits: split(512e6)})
	e.add(events.Event{Type: events.ContainerAllocated, TS: 3000, App: "a1", Task: mapTask(0), Attempt: "m0_0", Container: "c0", Node: "n3:8041"})
	e.add(events.Event{Type: events.TaskFinished, TS: 7000, App: "a1", Task: mapTask(0), Attempt: "m0_0", State: events.StateSucceeded})
	store := profiles.NewMemory()
	eng, p := build(t, Name, store)
	applyAll(eng, e.list)
	// The job's first map says nothing about its node (F stays unknown:
	// n3's clock, 2400 MHz, gives 1).
	if m := p.rows(context.Background(), "wordcount"); math.Abs(m.RateSGB-6.291456) > 1e-9 || m.NodeFactor["n3:8041"] != 0 {
		t.Fatalf("learned R = %v s/GB, F[n3] = %v; want 6.291456 and none", m.RateSGB, m.NodeFactor["n3:8041"])
	}
	if err := eng.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	// A new instance (a restart) reads the learned row from the store.
	_, p2 := build(t, Name, store)
	n3 := &cluster.Node{ID: "n3:8041", CPUMHz: 2400}
	small := &cluster.Task{App: &cluster.App{JobType: "wordcount"}, Kind: events.Map, Splits: split(256e6)}
	if got := p2.mapExec(context.Background(), small, n3); math.Abs(got-2.5) > 1e-9 {
		t.Fatalf("after restart mapExec(256 MB) = %v, want 1 + 3 / 2 = 2.5 s", got)
	}
	// A record of version 1 (seconds per map) still serves as a fallback.
	p2.rows(context.Background(), "old").Map["n3:8041"] = 9
	old := &cluster.Task{App: &cluster.App{JobType: "old"}, Kind: events.Map, Splits: split(256e6)}
	if got := p2.mapExec(context.Background(), old, n3); got != 9 {
		t.Fatalf("mapExec from a per-map entry = %v, want 9", got)
	}
}

func TestBindAfterAllMapOutputs(t *testing.T) {
	var e evs
	cluster3(&e)
	// Partition 0 is big and mostly on n2; partition 1 small.
	mapsDone(&e, func(i int) []events.PartitionSize {
		big := int64(100e6)
		if i == 1 {
			big = 2e9
		}
		return []events.PartitionSize{{ID: 0, Bytes: big}, {ID: 1, Bytes: 10e6}}
	})
	e.add(events.Event{Type: events.NodeHeartbeat, TS: 12000, Node: "n1:8041"})
	// Partition 0: 2.2 GB, R_split 1 GiB -> N_R = 3. On n1 (twice the
	// clock, 30 s/GB of 2^30 bytes) the 2.1 GB remote arrive through its
	// link at +16.8 s; on n2, where 2 GB lie, at +0.8 s, but it reduces at
	// 60 s/GB.
	for _, c := range []struct {
		name   string
		spawn  bool
		paper  bool // shared_links: false
		reason string
	}{
		// One reducer per partition (stock MapReduce), paying the 1 s task
		// overhead: n1 16.8 + 1 + 61.5 = 79.3 s, n2 0.8 + 1 + 122.9 s. Alone
		// on the links, both models agree.
		{"one reducer", false, false, "PRB: reducers finish at +79.3s there (eq. 3-5)"},
		{"one reducer, paper's link vector", false, true, "PRB: reducers finish at +79.3s there (eq. 3-5)"},
		// The paper's N_R = 3 reducers of 0.73 GB on 2 cores. Shared links:
		// two fetch 0.7 GB each at once through n1's link (11.2 s) and
		// reduce (1 + 20.5 s); the third fetches alone from 32.7 s (5.6 s)
		// and ends at 59.8. The paper's vector: all data at 16.8, then two
		// rounds of 21.5 s: 59.8 too.
		{"spawn N_R", true, false, "PRB: reducers finish at +59.8s there (eq. 3-5)"},
		{"spawn N_R, paper's link vector", true, true, "PRB: reducers finish at +59.8s there (eq. 3-5)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			p, err := New(context.Background(), policy.Handle{Args: argsFunc(func(_ string, into any) error {
				into.(*Config).SpawnReducers = c.spawn
				into.(*Config).SharedLinks = !c.paper
				return nil
			})})
			if err != nil {
				t.Fatal(err)
			}
			eng := engine.New(policy.NewStack(p), engine.Options{})
			var binds []policy.Hint
			for _, h := range applyAll(eng, e.list) {
				if h.Kind == policy.KindReduceBinding {
					binds = append(binds, h)
				}
			}
			if len(binds) != 2 {
				t.Fatalf("reduce-binding hints = %+v", binds)
			}
			if b := binds[0]; b.Partition != 0 || b.Reducers != 3 || b.Node != "n1:8041" || b.Reason != c.reason {
				t.Fatalf("partition 0 binding = %+v, want n1, N_R 3, %q", b, c.reason)
			}
			if b := binds[1]; b.Partition != 1 || b.Reducers != 1 {
				t.Fatalf("partition 1 binding = %+v", b)
			}
			// Extra reports the plan: bound at 12 s, submitted at 2 s, so the
			// predicted completion is 10 s + partition 0's finish (the later; the
			// reason rounds it to 0.1 s).
			var after float64
			if _, err := fmt.Sscanf(c.reason, "PRB: reducers finish at +%fs", &after); err != nil {
				t.Fatal(err)
			}
			x := p.(*Plugin).Extra()
			if got := x["tmar_plan_jct_s"]; math.Abs(got-(10+after)) > 0.05 || x["tmar_planned_apps"] != 1 {
				t.Fatalf("Extra = %v, want tmar_plan_jct_s %v over 1 app", x, 10+after)
			}
			// Renewed each tick, but the engine drops repeats while in force.
			for _, h := range eng.Tick(context.Background(), 20000) {
				if h.Kind == policy.KindReduceBinding {
					t.Fatalf("rebound: %+v", h)
				}
			}
		})
	}
}

// An app whose reducer started while its maps ran (MapReduce's slow
// start) has no reducer left to place once every map output exists: PRB
// makes no binding for it, and it is not counted as planned. The same app
// with its reducer still waiting for a container gets its binding.
func TestNoBindingWhenEveryReducerStarted(t *testing.T) {
	for _, c := range []struct {
		name    string
		started bool
	}{{"reducer running", true}, {"reducer pending", false}} {
		t.Run(c.name, func(t *testing.T) {
			var e evs
			cluster3(&e)
			part := 0
			red := "task_1_0001_r_000000"
			e.add(events.Event{Type: events.TaskPending, TS: 4000, App: "a1", Task: red, Kind: events.Reduce, Partition: &part})
			if c.started {
				e.add(events.Event{Type: events.ContainerAllocated, TS: 5000, App: "a1", Task: red, Attempt: "r0_0", Container: "cr0_0", Node: "n3:8041"})
			}
			mapsDone(&e, func(int) []events.PartitionSize { return []events.PartitionSize{{ID: 0, Bytes: 2e9}} })
			e.add(events.Event{Type: events.NodeHeartbeat, TS: 12000, Node: "n1:8041"})
			eng, p := build(t, Name, nil)
			hs := applyAll(eng, e.list)
			hs = append(hs, eng.Tick(context.Background(), 20000)...)
			binds := 0
			for _, h := range hs {
				if h.Kind == policy.KindReduceBinding {
					binds++
				}
			}
			plan, planned := p.plans["a1"]
			if !planned {
				t.Fatal("no plan made for a1 once its map outputs exist")
			}
			apps := p.Extra()["tmar_planned_apps"]
			if c.started && (binds != 0 || len(plan) != 0 || apps != 0) {
				t.Fatalf("every reducer started: %d bindings, plan %v, %v planned apps; want none", binds, plan, apps)
			}
			if !c.started && (binds != 1 || len(plan) != 1 || apps != 1) {
				t.Fatalf("reducer pending: %d bindings, plan %v, %v planned apps; want one", binds, plan, apps)
			}
		})
	}
}

// A reducer requested once every map output exists gets its partition's
// PRB node at once, as a strict place hint (before the next tick), and that
// node agrees with the reduce-binding hint of the tick.
func TestReducerPlacedOnBoundNodeWhenRequested(t *testing.T) {
	var e evs
	cluster3(&e)
	mapsDone(&e, func(int) []events.PartitionSize { return []events.PartitionSize{{ID: 0, Bytes: 2e9}} })
	part := 0
	e.add(events.Event{Type: events.TaskPending, TS: 9000, App: "a1", Task: "task_1_0001_r_000000", Kind: events.Reduce, Partition: &part})
	eng, _ := build(t, Name, nil)
	var place *policy.Hint
	for _, h := range applyAll(eng, e.list) {
		if h.Kind == policy.KindPlace && h.Task == "task_1_0001_r_000000" {
			place = &h
		}
	}
	if place == nil || !place.Strict || len(place.Nodes) != 1 {
		t.Fatalf("reducer place hint = %+v, want one strict node", place)
	}
	// 6 GB, 2 GB on each node: n1 (30 s/GB) gets 4 GB in 32 s and reduces
	// in 180 s; n2, n3 need 360 s. PRB picks n1.
	if place.Nodes[0].Node != "n1:8041" {
		t.Fatalf("reducer placed on %s, want n1:8041", place.Nodes[0].Node)
	}
	var bound string
	for _, h := range eng.Tick(context.Background(), 10000) {
		if h.Kind == policy.KindReduceBinding && h.Partition == 0 {
			bound = h.Node
		}
	}
	if bound != place.Nodes[0].Node {
		t.Fatalf("reduce-binding on %q, place hint on %q", bound, place.Nodes[0].Node)
	}
}

func TestConfigValidation(t *testing.T) {
	_, err := New(context.Background(), policy.Handle{Args: argsFunc(func(_ string, into any) error {
		into.(*Config).Alpha = 2
		return nil
	})})
	if err == nil || err.Error() != "policies.tmar.alpha: must be within (0, 1]" {
		t.Fatalf("err = %v", err)
	}
}

type argsFunc func(string, any) error

func (f argsFunc) Decode(name string, into any) error { return f(name, into) }

// plainNet hides rackNet's RackNetwork methods, so BindPartitions takes the
// per-machine-pair path of eq. 5.
type plainNet struct{ n rackNet }

func (p plainNet) Bandwidth(a, b int) float64 { return p.n.Bandwidth(a, b) }
func (p plainNet) Latency(a, b int) float64   { return p.n.Latency(a, b) }

// The per-rack sums give the same bindings as the per-pair eq. 5, with
// pieces on both racks, on the machine itself and on a departed node (-1).
func TestRackSumsMatchPairwiseTransfer(t *testing.T) {
	racks := []string{"/a", "/b", "/a", "/b", "/a"}
	net := newRackNet(racks, 125e6, 40e6, 0.0002)
	parts := []Partition{
		{ID: 0, Bytes: 900e6, At: map[int]int64{0: 100e6, 1: 300e6, 2: 200e6, 3: 100e6, -1: 200e6}, Run: 1},
		{ID: 1, Bytes: 600e6, At: map[int]int64{1: 400e6, 4: 200e6}, Run: 1},
		{ID: 2, Bytes: 300e6, At: map[int]int64{2: 300e6}, Run: 1},
	}
	exec := func(m int, b int64) float64 { return float64(b) / 1e9 * []float64{60, 30, 40, 50, 20}[m] }
	machines := func() []Machine {
		ms := make([]Machine, len(racks))
		for i := range ms {
			ms[i] = Machine{CoreFree: []float64{0, 5}}
		}
		return ms
	}
	fast := BindPartitions(machines(), parts, net, 1<<30, 0, exec)
	slow := BindPartitions(machines(), parts, plainNet{net}, 1<<30, 0, exec)
	if len(fast) != len(parts) || len(slow) != len(parts) {
		t.Fatalf("bindings: %+v vs %+v", fast, slow)
	}
	for i := range fast {
		if fast[i].Machine != slow[i].Machine || math.Abs(fast[i].Finish-slow[i].Finish) > 1e-9 || math.Abs(fast[i].Start-slow[i].Start) > 1e-9 {
			t.Errorf("partition %d: per-rack %+v, per-pair %+v", fast[i].Partition, fast[i], slow[i])
		}
	}
}

// A planned map that has not started is planned again on the tick with the
// Map_Matrix learned meanwhile: m0 goes to n1 (twice the clock, 10 s a
// map); a map then takes 100 s on n1, so the next tick moves m0 to n2
// (20 s). Without replan nothing renews m0's hold once its planned finish
// has passed.
func TestReplanUsesLearnedMatrix(t *testing.T) {
	for _, c := range []struct {
		name   string
		replan bool
		want   string // node of m0's renewed hold at the tick, "" when none
	}{
		{"replan", true, "n2:8041"},
		{"no replan", false, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			var e evs
			cluster3(&e)
			split := []events.Split{{Path: "/in", Length: 128e6}}
			e.add(events.Event{Type: events.TaskPending, TS: 2000, App: "a1", Task: mapTask(0), Kind: events.Map, Splits: split})
			e.add(events.Event{Type: events.TaskPending, TS: 2000, App: "a1", Task: mapTask(1), Kind: events.Map, Splits: split})
			e.add(events.Event{Type: events.ContainerAllocated, TS: 3000, App: "a1", Task: mapTask(1), Attempt: "m1_0", Container: "c1", Node: "n1:8041"})
			// m3 takes 20 s on n2, m1 100 s on n1: n1 is the slow node for
			// this job.
			e.add(events.Event{Type: events.TaskPending, TS: 2000, App: "a1", Task: mapTask(3), Kind: events.Map, Splits: split})
			e.add(events.Event{Type: events.ContainerAllocated, TS: 3000, App: "a1", Task: mapTask(3), Attempt: "m3_0", Container: "c3", Node: "n2:8041"})
			e.add(events.Event{Type: events.TaskFinished, TS: 23000, App: "a1", Task: mapTask(3), Attempt: "m3_0", State: events.StateSucceeded})
			e.add(events.Event{Type: events.TaskFinished, TS: 103000, App: "a1", Task: mapTask(1), Attempt: "m1_0", State: events.StateSucceeded})
			// Another map placed after m0's planned finish passed must not
			// make TMaR forget m0's plan.
			e.add(events.Event{Type: events.TaskPending, TS: 103500, App: "a1", Task: mapTask(2), Kind: events.Map})
			p, err := New(context.Background(), policy.Handle{Args: argsFunc(func(_ string, into any) error {
				into.(*Config).Replan = c.replan
				return nil
			})})
			if err != nil {
				t.Fatal(err)
			}
			eng := engine.New(policy.NewStack(p), engine.Options{ManualTick: true})
			var first string
			for _, h := range applyAll(eng, e.list) {
				if h.Kind == policy.KindPlace && h.Task == mapTask(0) && first == "" {
					first = h.Nodes[0].Node
				}
			}
			if first != "n1:8041" {
				t.Fatalf("m0 first planned on %q, want n1:8041", first)
			}
			var got string
			for _, h := range eng.Tick(context.Background(), 104000) {
				if h.Kind == policy.KindPlace && h.Task == mapTask(0) {
					got = h.Nodes[0].Node
				}
			}
			if got != c.want {
				t.Fatalf("m0's hold at the tick: %q, want %q", got, c.want)
			}
		})
	}
}

// A running attempt past its Map_Matrix time is expected to end by its
// progress rate: both of n1's cores run maps started at 3 s (10 s each by
// the matrix) that report half done at 53 s, so they end near 103 s; a map
// pending at 53 s then finishes first on n2 (73 s), not on n1 (63 s by the
// matrix alone, 113 s in fact).
func TestOverdueAttemptsEndByProgress(t *testing.T) {
	var e evs
	cluster3(&e)
	for i := range 2 {
		e.add(events.Event{Type: events.TaskPending, TS: 2000, App: "a1", Task: mapTask(i), Kind: events.Map})
	}
	for i := range 2 {
		e.add(events.Event{Type: events.ContainerAllocated, TS: 3000, App: "a1", Task: mapTask(i), Attempt: fmt.Sprintf("m%d_0", i),
			Container: fmt.Sprintf("c%d", i), Node: "n1:8041"})
	}
	for i := range 2 {
		e.add(events.Event{Type: events.TaskProgress, TS: 53000, App: "a1", Task: mapTask(i), Attempt: fmt.Sprintf("m%d_0", i),
			Progress: 0.5, Phase: "map"})
	}
	e.add(events.Event{Type: events.TaskPending, TS: 53000, App: "a1", Task: mapTask(2), Kind: events.Map})
	eng, _ := build(t, Name, nil)
	var got string
	for _, h := range applyAll(eng, e.list) {
		if h.Kind == policy.KindPlace && h.Task == mapTask(2) {
			got = h.Nodes[0].Node
		}
	}
	if got != "n2:8041" {
		t.Fatalf("map pending at 53 s placed on %q, want n2:8041", got)
	}
}

// A running attempt past its expected end that reports no progress still
// holds its core: the model counts it busy for its expected time again
// from now, not free at now. Both of n1's cores run maps started at 3 s
// (10 s each there by the matrix) that never report progress, and a
// reducer runs on n2 from 3 s the same way; at 153 s n1's cores are free
// at 163 s, n2's first core at 153 s plus the reducer's time and its
// second at 153 s. When such cores counted free, the FB-2010 day's maps
// were held to nodes whose every core ran a reducer waiting for them.
func TestModelOverdueBusy(t *testing.T) {
	var e evs
	cluster3(&e)
	for i := range 2 {
		e.add(events.Event{Type: events.TaskPending, TS: 2000, App: "a1", Task: mapTask(i), Kind: events.Map})
		e.add(events.Event{Type: events.ContainerAllocated, TS: 3000, App: "a1", Task: mapTask(i), Attempt: fmt.Sprintf("m%d_0", i),
			Container: fmt.Sprintf("c%d", i), Node: "n1:8041"})
	}
	part := 0
	e.add(events.Event{Type: events.TaskPending, TS: 2000, App: "a1", Task: "task_1_0001_r_000000", Kind: events.Reduce, Partition: &part})
	e.add(events.Event{Type: events.ContainerAllocated, TS: 3000, App: "a1", Task: "task_1_0001_r_000000", Attempt: "r0_0",
		Container: "cr", Node: "n2:8041"})
	e.add(events.Event{Type: events.AppSubmitted, TS: 153000, App: "a2", Name: "wc", Queue: "q", User: "u", JobType: "wordcount", Maps: 1, Reduces: 1})
	eng, p := build(t, Name, nil)
	applyAll(eng, e.list)
	ms := p.model(context.Background(), eng.State())
	byName := map[string]Machine{}
	for _, m := range ms {
		byName[m.Name] = m
	}
	redEst := p.reducerEst(context.Background(), eng.State().App("a1").Task("task_1_0001_r_000000"), eng.State().Node("n2:8041"))
	for _, c := range []struct {
		node string
		want []float64
	}{
		{"n1:8041", []float64{163, 163}},
		{"n2:8041", []float64{153 + redEst, 153}},
		{"n3:8041", []float64{153, 153}},
	} {
		got := byName[c.node].CoreFree
		if len(got) != len(c.want) {
			t.Fatalf("%s: cores %v, want %v", c.node, got, c.want)
		}
		for k := range got {
			if math.Abs(got[k]-c.want[k]) > 1e-6 {
				t.Fatalf("%s: cores free at %v, want %v", c.node, got, c.want)
			}
		}
	}
}

// attemptEnd: on time, by its start and estimate; overdue, by its progress
// rate when it tells something, else its estimate again from now.
func TestAttemptEnd(t *testing.T) {
	for _, c := range []struct {
		name               string
		start, progTS      int64
		progress, est, now float64
		want               float64
	}{
		{"on time", 10000, 0, 0, 30, 20, 40},
		{"due now", 10000, 0, 0, 10, 20, 30},
		{"overdue, rate known", 10000, 50000, 0.5, 10, 60, 90},
		{"overdue, rate behind now", 10000, 20000, 0.9, 5, 60, 60},
		{"overdue, no progress", 10000, 0, 0, 10, 60, 70},
		{"overdue, progress too small", 10000, 50000, minProgress / 2, 10, 60, 70},
	} {
		t.Run(c.name, func(t *testing.T) {
			at := &cluster.Attempt{StartTS: c.start, Progress: c.progress, ProgressTS: c.progTS}
			if got := attemptEnd(at, c.est, c.now); math.Abs(got-c.want) > 1e-9 {
				t.Fatalf("attemptEnd = %v, want %v", got, c.want)
			}
		})
	}
}

// A node's factor is learned against each job's own rate: a slow job of the
// same type on n1 does not make n1 look slower than n2, which ran the fast
// job at half n1's speed.
func TestNodeFactorIgnoresJobMix(t *testing.T) {
	ctx := context.Background()
	pl, err := New(context.Background(), policy.Handle{})
	if err != nil {
		t.Fatal(err)
	}
	p := pl.(*Plugin)
	m := p.rows(ctx, "swim")
	n1, n2 := &cluster.Node{ID: "n1"}, &cluster.Node{ID: "n2"}
	for range 5 { // job A: 10 s/GB on n1, 20 s/GB on n2
		p.learnMap("swim", m, "A", n1, 10)
		p.learnMap("swim", m, "A", n2, 20)
	}
	p.learnMap("swim", m, "B", n1, 40) // job B: four times A's work per GB
	if f1, f2 := m.NodeFactor["n1"], m.NodeFactor["n2"]; !(f2 > 1.2*f1) {
		t.Fatalf("F[n1] = %v, F[n2] = %v: want n2 clearly slower", f1, f2)
	}
	task := &cluster.Task{ID: "b1", App: &cluster.App{ID: "B", JobType: "swim"}, Kind: events.Map,
		Splits: []events.Split{{Path: "/in", Length: 512e6}}}
	e1, e2 := p.mapExec(ctx, task, n1), p.mapExec(ctx, task, n2)
	if !(e1 < e2) {
		t.Fatalf("job B's map: %v s on n1, %v s on n2; want n1 faster", e1, e2)
	}
	// The old per-node seconds per GB would have moved n1 to 0.7 x 10 +
	// 0.3 x 40 = 19 s/GB against n2's 20: nearly equal.
}

// A node the job type has no factor for takes its seeded Map_Matrix entry
// over the seeded row's mean (the paper's profiling runs), else its clock.
func TestPriorFactorFromSeeds(t *testing.T) {
	ctx := context.Background()
	pl, err := New(context.Background(), policy.Handle{Args: argsFunc(func(_ string, into any) error {
		into.(*Config).MapMatrix = map[string]map[string]float64{"sort": {"n1": 10, "n2": 20, "n3": 30}}
		return nil
	})})
	if err != nil {
		t.Fatal(err)
	}
	p := pl.(*Plugin)
	p.rows(ctx, "sort").RateSGB = 8
	task := &cluster.Task{ID: "m", App: &cluster.App{ID: "a", JobType: "sort"}, Kind: events.Map,
		Splits: []events.Split{{Path: "/in", Length: 1 << 30}}}
	for _, c := range []struct {
		node *cluster.Node
		want float64
	}{
		{&cluster.Node{ID: "n3"}, 1 + 8*1.5},               // 30 / mean 20
		{&cluster.Node{ID: "n1"}, 1 + 8*0.5},               // 10 / 20
		{&cluster.Node{ID: "n4", CPUMHz: 4800}, 1 + 8*0.5}, // not seeded: 2400 / 4800
		{&cluster.Node{ID: "n5"}, 1 + 8},                   // nothing known: 1
	} {
		if got := p.mapExec(ctx, task, c.node); math.Abs(got-c.want) > 1e-9 {
			t.Errorf("mapExec on %s = %v, want %v", c.node.ID, got, c.want)
		}
	}
}

// The shared-link model needs every transfer: when the map outputs name
// fewer partitions than the job has reducers (the simulator lists at most
// 200 per output), PRB falls back to the paper's per-destination vector; so
// it does when the plan would take too long.
func TestSharedModelOnlyWhenEveryPartitionIsKnown(t *testing.T) {
	for _, c := range []struct {
		name              string
		shared            bool
		reduces, seen     int
		sources, machines int
		want              bool
	}{
		{"every partition known", true, 20, 20, 10, 10, true},
		{"more outputs than reducers", true, 1, 2, 3, 3, true},
		{"reducers beyond the listed partitions", true, 700, 200, 30, 30, false},
		{"paper's largest job", true, 175, 175, 30, 30, true},
		{"too much work", true, 2000, 2000, 600, 600, false},
		{"shared_links off", false, 20, 20, 10, 10, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			p, err := New(context.Background(), policy.Handle{Args: argsFunc(func(_ string, into any) error {
				into.(*Config).SharedLinks = c.shared
				return nil
			})})
			if err != nil {
				t.Fatal(err)
			}
			if got := p.(*Plugin).sharedModel(&cluster.App{Reduces: c.reduces}, c.seen, c.sources, c.machines); got != c.want {
				t.Fatalf("sharedModel = %v, want %v", got, c.want)
			}
		})
	}
}

// feed applies events to an engine at random rising times (from 1000 ms,
// each a random 0..steps-1 multiple of stepMS later), as the randomized
// equivalence tests drive it; ts is the last event's time.
type feed struct {
	ctx    context.Context
	e      *engine.Engine
	rng    *rand.Rand
	list   evs
	ts     int64
	steps  int
	stepMS int64
}

func newFeed(ctx context.Context, e *engine.Engine, rng *rand.Rand, steps int, stepMS int64) *feed {
	return &feed{ctx: ctx, e: e, rng: rng, ts: 1000, steps: steps, stepMS: stepMS}
}

func (f *feed) add(ev events.Event) {
	f.ts += int64(f.rng.IntN(f.steps)) * f.stepMS
	ev.TS = f.ts
	f.list.addApply(f.ctx, f.e, ev)
}
