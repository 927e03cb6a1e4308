package learning

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/rmsidecar/rmsidecar/engine"
	"github.com/rmsidecar/rmsidecar/events"
	"github.com/rmsidecar/rmsidecar/policy"
	"github.com/rmsidecar/rmsidecar/profiles"
)

const t0 = int64(1_700_000_000_000)

// mapArgs is policy.Args over a map of per-policy settings.
type mapArgs map[string]func(*Config)

func (a mapArgs) Decode(name string, into any) error {
	if f := a[name]; f != nil {
		f(into.(*Config))
	}
	return nil
}

func testHandle(store policy.ProfileStore, args policy.Args) policy.Handle {
	return policy.Handle{Args: args, Profiles: store, Log: zerolog.Nop(), Seed: 1}
}

// world writes events of a small cluster for plugin tests.
type world struct {
	t   *testing.T
	eng *engine.Engine
	seq int
	now int64
}

func newWorld(t *testing.T, p policy.Plugin) *world {
	return &world{t: t, eng: engine.New(policy.NewStack(p), engine.Options{TickMS: 5000}), now: t0}
}

func (w *world) apply(ev events.Event) []policy.Hint {
	w.seq++
	ev.V, ev.ID = 1, fmt.Sprintf("e%05d", w.seq)
	if ev.TS == 0 {
		ev.TS = w.now
	}
	return append([]policy.Hint(nil), w.eng.Apply(context.Background(), &ev)...)
}

func (w *world) node(id string, cores int) {
	w.apply(events.Event{Type: events.NodeRegistered, Node: id, Rack: "r1", VCores: cores, MemoryMB: cores * 1024, CPUMHz: 2400})
}

func (w *world) job(app, jobType string, maps int, f *events.Features, utility string) {
	w.apply(events.Event{Type: events.AppSubmitted, App: app, Name: app, Queue: "q", User: "u", JobType: jobType,
		Maps: maps, Features: f, Utility: utility})
	for i := range maps {
		w.apply(events.Event{Type: events.TaskPending, App: app, Task: fmt.Sprintf("%s_m_%d", app, i), Kind: events.Map,
			Splits: []events.Split{{Path: "/in", Length: 1, Hosts: []string{"n2"}}}})
	}
}

func (w *world) heartbeat(node string, load float64, dt int64) []policy.Hint {
	w.now += dt
	return w.apply(events.Event{Type: events.NodeHeartbeat, Node: node, Load1: load})
}

func places(hs []policy.Hint) []policy.Hint {
	var out []policy.Hint
	for _, h := range hs {
		if h.Kind == policy.KindPlace {
			out = append(out, h)
		}
	}
	return out
}

// noExplore turns exploration off, so every assignment is the classifier's.
var noExplore = mapArgs{NameNB: func(c *Config) { c.Explore = 0 }, NamePerceptron: func(c *Config) { c.Explore = 0 }}

func TestJudgedAtNextHeartbeat(t *testing.T) {
	p, err := New(context.Background(), NameNB, testHandle(nil, noExplore))
	if err != nil {
		t.Fatal(err)
	}
	w := newWorld(t, p)
	w.node("n1", 4)
	w.node("n2", 4)
	w.job("app1", "wc", 3, &events.Features{CPU: 5, Memory: 6, Disk: 8, Network: 5}, "")

	// First heartbeat: untrained, so the candidate is good; a place hint names n1.
	ph := places(w.heartbeat("n1", 1.0, 5000))
	if len(ph) != 1 || ph[0].Nodes[0].Node != "n1" || ph[0].App != "app1" || ph[0].Policy != NameNB {
		t.Fatalf("first heartbeat place hints = %+v", ph)
	}
	if ph[0].Nodes[0].Locality != events.RackLocal {
		t.Errorf("locality %q, want rack (the split is on n2, same rack)", ph[0].Nodes[0].Locality)
	}
	if p.Judged() != 0 {
		t.Fatal("judged before the next heartbeat")
	}
	// Another node's heartbeat does not judge n1's decision; n2 holds the
	// input, so its task is node-local, and not the one placed on n1.
	ph2 := places(w.heartbeat("n2", 0, 1000))
	if len(ph2) != 1 || ph2[0].Nodes[0].Locality != events.NodeLocal || ph2[0].Task == ph[0].Task {
		t.Fatalf("n2 place hints = %+v", ph2)
	}
	if got := p.m.NB.Class; got != [2]float64{0, 0} {
		t.Fatalf("class counts after n2's heartbeat = %v, want none (n1 not yet judged)", got)
	}
	// n1's next heartbeat: load 2 on 4 cores is under the target 1: good.
	// A new decision is made at this heartbeat, with features close to
	// the good one.
	if len(places(w.heartbeat("n1", 2.0, 4000))) != 1 {
		t.Fatal("no decision at the second heartbeat")
	}
	if got := p.m.NB.Class; got != [2]float64{0, 1} {
		t.Fatalf("class counts = %v, want one good", got)
	}
	// It is judged at the following heartbeat: load 4.8 is over: bad.
	w.heartbeat("n1", 4.8, 5000)
	if got := p.m.NB.Class; got != [2]float64{1, 1} {
		t.Fatalf("class counts = %v, want one bad, one good", got)
	}
	acc := p.Accuracy()
	if len(acc) != 1 || acc[0].Decisions != 2 || acc[0].Correct != 1 {
		t.Fatalf("accuracy = %+v, want one right and one wrong decision", acc)
	}
	// Every judged decision's bins were counted: the job's cpu feature 5 is bin 4.
	if p.m.NB.Count[0][0][4] != 1 || p.m.NB.Count[1][0][4] != 1 {
		t.Errorf("cpu histogram bad=%v good=%v", p.m.NB.Count[0][0], p.m.NB.Count[1][0])
	}
	if got := p.AccuracyOf("wc"); len(got) != 1 || got[0].Decisions != 2 {
		t.Errorf("per-type accuracy %+v", got)
	}
}

// TestAllBadNoAssignmentAndShrink teaches the classifier that this job
// overloads the node at high load; then no task is assigned, the node's
// advertised capacity shrinks, and it is restored when a candidate is good.
func TestAllBadNoAssignmentAndShrink(t *testing.T) {
	p, err := New(context.Background(), NameNB, testHandle(nil, noExplore))
	if err != nil {
		t.Fatal(err)
	}
	w := newWorld(t, p)
	w.node("n1", 4)
	w.job("app1", "cpu", 40, &events.Features{CPU: 10, Memory: 5, Disk: 5, Network: 3}, "")
	// Blocks of low-load heartbeats (a decision there is judged good) and
	// high-load ones (judged bad), ending with a high block.
	var hs []policy.Hint
	for i := range 32 {
		load := 0.4
		if i/4%2 == 1 {
			load = 6.0
		}
		out := w.heartbeat("n1", load, 5000)
		if i >= 28 {
			hs = append(hs, out...)
		}
		if i == 31 && len(places(out)) != 0 {
			t.Fatalf("assigned at high load: %+v", places(out))
		}
	}
	// The last capacity hint of the high block shrinks n1 to what it uses
	// (the engine suppresses identical repeats, so it may come early).
	var shrink *policy.Hint
	for i := range hs {
		if hs[i].Kind == policy.KindNodeCapacity {
			shrink = &hs[i]
		}
	}
	if shrink == nil || shrink.Node != "n1" || shrink.VCores != 1 || shrink.MemoryMB != 1 {
		t.Fatalf("want a node-capacity shrink of n1 to its use, got %+v", hs)
	}
	// Low load again: good, assigned, capacity restored.
	hs = w.heartbeat("n1", 0.4, 5000)
	if len(places(hs)) != 1 {
		t.Fatalf("no assignment at low load: %+v", hs)
	}
	restored := false
	for _, h := range hs {
		if h.Kind == policy.KindNodeCapacity && h.VCores == 4 && h.MemoryMB == 4096 {
			restored = true
		}
	}
	if !restored {
		t.Fatalf("capacity not restored: %+v", hs)
	}
	// Shrunk again at high load, then no heartbeat for longer than
	// shrink_hold: the stale prediction no longer holds the node.
	w.heartbeat("n1", 6.0, 5000)
	w.heartbeat("n1", 6.0, 5000)
	if !p.nodes["n1"].shrunk {
		t.Fatal("not shrunk at high load")
	}
	// (Shapers read event time: another node's heartbeat moves it on.)
	w.node("n9", 4)
	restored = false
	for _, h := range w.heartbeat("n9", 0, p.cfg.ShrinkHold.Milliseconds()+1000) {
		if h.Kind == policy.KindNodeCapacity && h.VCores == 4 {
			restored = true
		}
	}
	if !restored || p.nodes["n1"].shrunk {
		t.Fatal("a stale prediction still holds the node shrunk")
	}
}

// TestShrinkOneLessWhenOverloaded: a node already over the target and
// predicted to overload advertises one container less than it runs.
func TestShrinkOneLessWhenOverloaded(t *testing.T) {
	p, err := New(context.Background(), NameNB, testHandle(nil, noExplore))
	if err != nil {
		t.Fatal(err)
	}
	st := newWorld(t, p)
	st.node("n1", 4)
	st.job("app1", "cpu", 4, nil, "")
	st.now += 5000
	st.apply(events.Event{Type: events.NodeHeartbeat, Node: "n1", Load1: 5, UsedVCores: 3, UsedMemoryMB: 3072})
	p.nodes["n1"].overload = true // as if every candidate had been bad at this heartbeat
	hs, _ := p.Shape(context.Background(), st.eng.State())
	if len(hs) != 1 || hs[0].VCores != 2 || hs[0].MemoryMB != 2048 {
		t.Fatalf("shape = %+v, want n1 at 2 vcores, 2048 MB", hs)
	}
	// Not overloaded (load 3 on 4 cores): capacity = what it uses.
	st.now += 5000
	st.apply(events.Event{Type: events.NodeHeartbeat, Node: "n1", Load1: 3, UsedVCores: 3, UsedMemoryMB: 3072})
	p.nodes["n1"].overload = true
	hs, _ = p.Shape(context.Background(), st.eng.State())
	if len(hs) != 1 || hs[0].VCores != 3 || hs[0].MemoryMB != 3072 {
		t.Fatalf("shape = %+v, want n1 at 3 vcores, 3072 MB", hs)
	}
}

func TestPickMaxExpectedUtility(t *testing.T) {
	p, err := New(context.Background(), NameNB, testHandle(nil, nil))
	if err != nil {
		t.Fatal(err)
	}
	w := newWorld(t, p)
	w.node("n1", 4)
	f := &events.Features{CPU: 3, Memory: 3, Disk: 3, Network: 3}
	w.job("cheap", "a", 2, f, "revenue:1")
	w.job("rich", "a", 2, f, "revenue:5")
	ph := places(w.heartbeat("n1", 0, 5000))
	if len(ph) != 1 || ph[0].App != "rich" {
		t.Fatalf("want the higher-revenue job, got %+v", ph)
	}
	if !strings.Contains(ph[0].Reason, "E.U.") {
		t.Errorf("reason %q", ph[0].Reason)
	}
}

func TestPerceptronPluginLearnsFromMistakes(t *testing.T) {
	p, err := New(context.Background(), NamePerceptron, testHandle(nil, noExplore))
	if err != nil {
		t.Fatal(err)
	}
	w := newWorld(t, p)
	w.node("n1", 4)
	w.job("app1", "cpu", 10, &events.Features{CPU: 10, Memory: 5, Disk: 5, Network: 3}, "")
	if len(places(w.heartbeat("n1", 0.5, 5000))) != 1 {
		t.Fatal("initial bias > 0 should label the job good")
	}
	w.heartbeat("n1", 8, 5000) // judged bad: mistake, update
	if p.Perceptron().Updates != 1 || p.Perceptron().B != p.cfg.InitialBias-1 {
		t.Fatalf("perceptron after one mistake: %+v", p.Perceptron())
	}
}

func TestPersistenceAcrossInstances(t *testing.T) {
	store := profiles.NewMemory()
	ctx := context.Background()
	for _, name := range []string{NameNB, NamePerceptron} {
		a, err := New(context.Background(), name, testHandle(store, nil))
		if err != nil {
			t.Fatal(err)
		}
		w := newWorld(t, a)
		w.node("n1", 4)
		w.job("app1", "wc", 20, &events.Features{CPU: 5, Memory: 6, Disk: 8, Network: 5}, "")
		for i := range 6 {
			w.heartbeat("n1", float64(i%3)*3, 5000)
		}
		if err := w.eng.Flush(ctx); err != nil {
			t.Fatal(err)
		}
		b, err := New(context.Background(), name, testHandle(store, nil))
		if err != nil {
			t.Fatal(err)
		}
		if a.Judged() == 0 || b.Judged() != a.Judged() {
			t.Fatalf("%s: judged %d, restored %d", name, a.Judged(), b.Judged())
		}
		if name == NameNB && fmt.Sprint(b.NaiveBayes()) != fmt.Sprint(a.NaiveBayes()) {
			t.Fatalf("restored NB differs:\n%v\n%v", b.NaiveBayes(), a.NaiveBayes())
		}
		if name == NamePerceptron && fmt.Sprint(b.Perceptron()) != fmt.Sprint(a.Perceptron()) {
			t.Fatalf("restored perceptron differs:\n%v\n%v", b.Perceptron(), a.Perceptron())
		}
		// The job type's features were remembered: an app of that type without
		// features gets them.
		if got := b.jobs.ByType["wc"]; got != (JobFeatures{5, 6, 8, 5}) {
			t.Fatalf("remembered features %+v", got)
		}
		// Other overload rules: the stored model is not reused.
		c, err := New(context.Background(), name, testHandle(store, mapArgs{name: func(c *Config) { c.Target = 2 }}))
		if err != nil {
			t.Fatal(err)
		}
		if c.Judged() != 0 {
			t.Fatalf("%s: model learned under other rules was reused", name)
		}
	}
}

func TestJobFeaturesFromHistory(t *testing.T) {
	p, err := New(context.Background(), NameNB, testHandle(nil, nil))
	if err != nil {
		t.Fatal(err)
	}
	w := newWorld(t, p)
	w.node("n1", 4)
	w.job("a1", "wc", 1, &events.Features{CPU: 5, Memory: 6, Disk: 8, Network: 5}, "")
	w.job("a2", "grep", 1, &events.Features{CPU: 3, Memory: 6, Disk: 8, Network: 2}, "")
	w.job("a3", "sort", 1, &events.Features{CPU: 3, Memory: 4, Disk: 7, Network: 2}, "")
	w.job("a4", "wc", 1, nil, "")
	w.job("a5", "unknown", 1, nil, "")
	st := w.eng.State()
	if got := p.jobFeatures(st.App("a4")); got != (JobFeatures{5, 6, 8, 5}) {
		t.Errorf("same job type: %+v", got)
	}
	// Mode per resource: cpu 3, memory 6, disk 8, network 2.
	if got := p.jobFeatures(st.App("a5")); got != (JobFeatures{3, 6, 8, 2}) {
		t.Errorf("mode of seen values: %+v", got)
	}
}

func TestBadArgsNameKey(t *testing.T) {
	_, err := New(context.Background(), NameNB, testHandle(nil, mapArgs{NameNB: func(c *Config) { c.Target = -1 }}))
	if err == nil || !strings.Contains(err.Error(), "policies.learning-nb.target") {
		t.Fatalf("err = %v", err)
	}
}

// TestLateHeartbeatDecidesNothing: an older heartbeat applied after a newer
// one neither judges nor decides again.
func TestLateHeartbeatDecidesNothing(t *testing.T) {
	p, err := New(context.Background(), NameNB, testHandle(nil, noExplore))
	if err != nil {
		t.Fatal(err)
	}
	w := newWorld(t, p)
	w.node("n1", 4)
	w.job("app1", "wc", 5, nil, "")
	if len(places(w.heartbeat("n1", 1, 5000))) != 1 {
		t.Fatal("no decision")
	}
	late := w.apply(events.Event{Type: events.NodeHeartbeat, Node: "n1", Load1: 9, TS: w.now - 2000})
	if len(places(late)) != 0 || p.Judged() != 0 || len(p.pending["n1"]) != 1 {
		t.Fatalf("late heartbeat: places %v, judged %d, pending %d", places(late), p.Judged(), len(p.pending["n1"]))
	}
}

// TestPaceAdvertisesUsePlusK: with pace, a node not predicted to overload
// advertises what it uses plus tasks_per_heartbeat containers (one vcore and
// the memory per vcore when nothing runs), and its registered capacity once
// that is reached; a node predicted to overload is still shrunk to its use.
func TestPaceAdvertisesUsePlusK(t *testing.T) {
	tests := []struct {
		name         string
		k            int
		usedV, usedM int
		predicted    bool
		wantV, wantM int // 0, 0: no hint
	}{
		{"idle node: one container", 1, 0, 0, false, 1, 1024},
		{"two used: three", 1, 2, 2048, false, 3, 3072},
		{"k = 2", 2, 1, 1024, false, 3, 3072},
		{"full: registered capacity", 1, 4, 4096, false, 4, 4096},
		{"predicted to overload: its use", 1, 2, 2048, true, 2, 2048},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := mapArgs{NameNB: func(c *Config) { c.Pace, c.TasksPerHeartbeat, c.Explore = true, tt.k, 0 }}
			p, err := New(context.Background(), NameNB, testHandle(nil, args))
			if err != nil {
				t.Fatal(err)
			}
			w := newWorld(t, p)
			w.node("n1", 4)
			w.job("app1", "cpu", 8, nil, "")
			// The engine's tick shapes after each heartbeat too; the last
			// capacity hint of either is what the node advertises.
			last := func(hs []policy.Hint) *policy.Hint {
				var h *policy.Hint
				for i := range hs {
					if hs[i].Kind == policy.KindNodeCapacity {
						h = &hs[i]
					}
				}
				return h
			}
			// First paced at idle (shrunk from 4 to k), so a later "full"
			// answer restores the registered capacity.
			w.now += 5000
			w.apply(events.Event{Type: events.NodeHeartbeat, Node: "n1", Load1: 0})
			if hs, _ := p.Shape(context.Background(), w.eng.State()); last(hs) == nil || last(hs).VCores != tt.k {
				t.Fatalf("idle: shape = %+v, want %d vcores", hs, tt.k)
			}
			w.now += 5000
			ticked := w.apply(events.Event{Type: events.NodeHeartbeat, Node: "n1", Load1: 1, UsedVCores: tt.usedV, UsedMemoryMB: tt.usedM})
			st := p.nodes["n1"]
			st.overload = tt.predicted
			st.predictedAt = w.eng.State().Node("n1").HeartbeatTS
			hs, _ := p.Shape(context.Background(), w.eng.State())
			h := last(append(ticked, hs...))
			if h == nil || h.VCores != tt.wantV || h.MemoryMB != tt.wantM {
				t.Fatalf("hints = %+v, want n1 at %d vcores, %d MB", append(ticked, hs...), tt.wantV, tt.wantM)
			}
		})
	}
}

// TestLocalityOnRealNodeIDs: NodeManager ids carry a port ("nm2.example:8041")
// and HDFS names split hosts without one ("nm2.example"); a map whose split
// is on nm2 is node-local on nm2 and rack-local on its rack neighbour nm1.
// Before node identity moved to the cluster model the plugin compared the
// split host with the node id and called both off-rack.
func TestLocalityOnRealNodeIDs(t *testing.T) {
	p, err := New(context.Background(), NameNB, testHandle(nil, noExplore))
	if err != nil {
		t.Fatal(err)
	}
	w := newWorld(t, p)
	w.node("nm1.example:8041", 4)
	w.node("nm2.example:8041", 4)
	w.apply(events.Event{Type: events.AppSubmitted, App: "app1", Name: "app1", Queue: "q", User: "u", JobType: "wc", Maps: 2,
		Features: &events.Features{CPU: 5, Memory: 6, Disk: 8, Network: 5}})
	for i := range 2 {
		w.apply(events.Event{Type: events.TaskPending, App: "app1", Task: fmt.Sprintf("app1_m_%d", i), Kind: events.Map,
			Splits: []events.Split{{Path: "/in", Length: 1, Hosts: []string{"nm2.example"}}}})
	}
	ph := places(w.heartbeat("nm1.example:8041", 1.0, 5000))
	if len(ph) != 1 || ph[0].Nodes[0].Locality != events.RackLocal {
		t.Fatalf("nm1: place hints %+v, want one rack-local (the split is on nm2, same rack)", ph)
	}
	ph = places(w.heartbeat("nm2.example:8041", 0, 1000))
	if len(ph) != 1 || ph[0].Nodes[0].Locality != events.NodeLocal {
		t.Fatalf("nm2: place hints %+v, want one node-local (the split is on nm2)", ph)
	}
}

// TestLocalityOnSharedHost: two NodeManagers on one host (a minicluster,
// with model.host_aliases naming node ids): a map whose split names one of
// them is node-local there and placed there, not on its neighbour.
func TestLocalityOnSharedHost(t *testing.T) {
	p, err := New(context.Background(), NameNB, testHandle(nil, noExplore))
	if err != nil {
		t.Fatal(err)
	}
	w := newWorld(t, p)
	w.node("localhost:40001", 4)
	w.node("localhost:40002", 4)
	w.apply(events.Event{Type: events.AppSubmitted, App: "app1", Name: "app1", Queue: "q", User: "u", JobType: "wc", Maps: 2,
		Features: &events.Features{CPU: 5, Memory: 6, Disk: 8, Network: 5}})
	for i, host := range []string{"localhost:40001", "localhost:40002"} {
		w.apply(events.Event{Type: events.TaskPending, App: "app1", Task: fmt.Sprintf("app1_m_%d", i), Kind: events.Map,
			Splits: []events.Split{{Path: "/in", Length: 1, Hosts: []string{host}}}})
	}
	ph := places(w.heartbeat("localhost:40002", 0, 1000))
	if len(ph) != 1 || ph[0].Task != "app1_m_1" || ph[0].Nodes[0].Locality != events.NodeLocal {
		t.Fatalf("localhost:40002: place hints %+v, want app1_m_1 node-local (its split names this NodeManager)", ph)
	}
}
