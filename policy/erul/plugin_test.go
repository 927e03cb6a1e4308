package erul

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/rmsidecar/rmsidecar/cluster"
	"github.com/rmsidecar/rmsidecar/engine"
	"github.com/rmsidecar/rmsidecar/events"
	"github.com/rmsidecar/rmsidecar/policy"
	"github.com/rmsidecar/rmsidecar/profiles"
)

const (
	t0 = int64(1_700_000_000_000)
	mb = int64(1 << 20)
)

// scenario writes the events of a small cluster: four nodes on two racks
// (n1, n2 on r1; n3, n4 on r2), one app.
type scenario struct {
	evs []events.Event
	seq int
}

func (s *scenario) add(ev events.Event) {
	s.seq++
	ev.V, ev.ID = 1, fmt.Sprintf("e%04d", s.seq)
	s.evs = append(s.evs, ev)
}

func newScenario(app string, maps int) *scenario {
	s := &scenario{}
	for i, rack := range []string{"r1", "r1", "r2", "r2"} {
		s.add(events.Event{Type: events.NodeRegistered, TS: t0, Node: fmt.Sprintf("n%d", i+1), Rack: rack, VCores: 4, MemoryMB: 8192})
	}
	s.add(events.Event{Type: events.AppSubmitted, TS: t0, App: app, Name: "wc", Queue: "q", User: "u", JobType: "wordcount", Maps: maps, Reduces: 1})
	return s
}

func taskID(kind events.TaskKind, i int) string {
	k := "m"
	if kind == events.Reduce {
		k = "r"
	}
	return fmt.Sprintf("task_1_0001_%s_%06d", k, i)
}

// run starts attempt 0 of task i on node at start with the given locality.
func (s *scenario) run(app string, kind events.TaskKind, i int, node string, loc events.Locality, start int64, hosts ...string) string {
	tid := taskID(kind, i)
	var splits []events.Split
	if kind == events.Map {
		splits = []events.Split{{Path: "/in", Offset: int64(i) * 128 * mb, Length: 128 * mb, Hosts: hosts}}
	}
	s.add(events.Event{Type: events.TaskPending, TS: start, App: app, Task: tid, Kind: kind, Splits: splits})
	att := fmt.Sprintf("attempt_%s_%d", tid, len(s.evs))
	s.add(events.Event{Type: events.ContainerAllocated, TS: start, App: app, Task: tid, Attempt: att, Container: "c_" + att, Node: node, Locality: loc})
	return att
}

func (s *scenario) progress(app string, kind events.TaskKind, i int, att string, ts int64, p float64) {
	s.add(events.Event{Type: events.TaskProgress, TS: ts, App: app, Task: taskID(kind, i), Attempt: att, Progress: p, Phase: events.PhaseMap})
}

func (s *scenario) finish(app string, kind events.TaskKind, i int, att string, ts int64) {
	s.add(events.Event{Type: events.TaskFinished, TS: ts, App: app, Task: taskID(kind, i), Attempt: att, State: events.StateSucceeded})
}

func (s *scenario) heartbeat(node string, ts int64, usedVCores int, load float64) {
	s.add(events.Event{Type: events.NodeHeartbeat, TS: ts, Node: node, UsedVCores: usedVCores, UsedMemoryMB: usedVCores * 1024, Load1: load})
}

// learnedCluster: n1 took 160 s for a data-local 128 MB map, n2–n4 took 40 s,
// so n1 is slow for data-local maps (1.25 s/MB against a 0.547 average).
// Then map 4 starts on n1 (replicas on n1 and n3) and reports 20 % after
// 60 s: 240 s left by eq. 9 at constant load.
func learnedCluster() (*scenario, string) {
	s := newScenario("a", 6)
	for i, n := range []string{"n1", "n2", "n3", "n4"} {
		att := s.run("a", events.Map, i, n, events.NodeLocal, t0, n)
		d := int64(40_000)
		if n == "n1" {
			d = 160_000
		}
		s.finish("a", events.Map, i, att, t0+d)
	}
	start := t0 + 200_000
	for _, n := range []string{"n1", "n2", "n3", "n4"} {
		s.heartbeat(n, start-5_000, 0, 1) // the load when the straggler starts
	}
	att := s.run("a", events.Map, 4, "n1", events.NodeLocal, start, "n1", "n3")
	for ts := start + 5_000; ts <= start+60_000; ts += 5_000 {
		for _, n := range []string{"n1", "n2", "n3", "n4"} {
			used := 0
			if n == "n1" {
				used = 1
			}
			s.heartbeat(n, ts, used, 1)
		}
	}
	s.progress("a", events.Map, 4, att, start+60_000, 0.2)
	return s, att
}

func build(t *testing.T, f policy.Factory, h policy.Handle) *Plugin {
	t.Helper()
	p, err := f(context.Background(), h)
	if err != nil {
		t.Fatal(err)
	}
	return p.(*Plugin)
}

// replay feeds the events through a real engine and returns every hint.
func replay(t *testing.T, p *Plugin, evs []events.Event) []policy.Hint {
	t.Helper()
	e := engine.New(policy.NewStack(p), engine.Options{})
	var out []policy.Hint
	for i := range evs {
		out = append(out, e.Apply(context.Background(), &evs[i])...)
	}
	// The engine ticks when event time crosses a tick; give the last event its tick.
	out = append(out, e.Tick(context.Background(), e.State().Now()+engine.DefaultTickMS)...)
	st := e.Stats()
	if len(st.Invalid) > 0 || len(st.Panics) > 0 || len(st.Errors) > 0 {
		t.Fatalf("engine stats: invalid %v panics %v errors %v", st.Invalid, st.Panics, st.Errors)
	}
	return out
}

func TestSpeculatesStragglerOnFastNode(t *testing.T) {
	for _, f := range []struct {
		name string
		f    policy.Factory
	}{{NameERUL, NewERUL}, {NameMCP, NewMCP}, {NameExMCP, NewExMCP}} {
		t.Run(f.name, func(t *testing.T) {
			s, att := learnedCluster()
			p := build(t, f.f, policy.Handle{})
			hints := replay(t, p, s.evs)
			if len(hints) != 1 {
				t.Fatalf("hints = %+v, want one", hints)
			}
			h := hints[0]
			if h.Kind != policy.KindSpeculate || h.App != "a" || h.Task != taskID(events.Map, 4) || h.Attempt != att || h.Policy != f.name {
				t.Fatalf("hint = %+v", h)
			}
			// n1 is slow for data-local maps and runs the original; n2 (rack-local,
			// scaled from its data-local 0.3125 s/MB) comes first of the fast nodes.
			if h.Node != "n2" {
				t.Fatalf("target = %s, want n2", h.Node)
			}
			if h.EstRemainingMS != 240_000 || h.EstBackupMS != 40_000 {
				t.Fatalf("est_remaining_ms %d, est_backup_ms %d, want 240000 and 40000", h.EstRemainingMS, h.EstBackupMS)
			}
			if got, ok := p.Capability("n1", DataLocal); !ok || !near(got, 160.0/128) {
				t.Fatalf("n1 data-local capability = %g %v, want 1.25 s/MB", got, ok)
			}
		})
	}
}

func TestNoSpeculationBeforeLagOrWithARunningCopy(t *testing.T) {
	s, att := learnedCluster()
	// Same straggler, but the progress report comes 20 s in (< speculativeLag).
	early := &scenario{seq: s.seq}
	for _, ev := range s.evs {
		if ev.Type == events.TaskProgress || ev.TS > t0+220_000 {
			continue
		}
		early.evs = append(early.evs, ev)
	}
	early.progress("a", events.Map, 4, att, t0+220_000, 0.07)
	if h := replay(t, build(t, NewERUL, policy.Handle{}), early.evs); len(h) != 0 {
		t.Fatalf("before speculativeLag: hints %+v, want none", h)
	}

	// A backup already runs on n3: never a third copy.
	tid := taskID(events.Map, 4)
	s.add(events.Event{Type: events.ContainerAllocated, TS: t0 + 255_000, App: "a", Task: tid, Attempt: att + "_b",
		Container: "cb", Node: "n3", Speculative: true, Locality: events.NodeLocal})
	evs := append([]events.Event(nil), s.evs...)
	// keep time order: move the allocation before the last progress report
	last := len(evs) - 1
	evs[last], evs[last-1] = evs[last-1], evs[last]
	evs = append(evs, events.Event{V: 1, ID: "late", Type: events.TaskProgress, TS: t0 + 300_000, App: "a", Task: tid, Attempt: att, Progress: 0.25})
	if h := replay(t, build(t, NewERUL, policy.Handle{}), evs); len(h) != 0 {
		t.Fatalf("with a running copy: hints %+v, want none", h)
	}
}

// §3.3: a node slow for a class gets no backups of that class. n1 is slow
// for data-local maps (learnedCluster); a straggler on n2 may go to n3 when
// n3 has room, never to n1 when only n1 has.
func TestSlowNodesGetNoBackups(t *testing.T) {
	for _, tt := range []struct {
		freeNode string
		want     int
	}{{"n1", 0}, {"n3", 1}} {
		s := newScenario("a", 6)
		for i, n := range []string{"n1", "n2", "n3", "n4"} {
			att := s.run("a", events.Map, i, n, events.NodeLocal, t0, n)
			d := int64(40_000)
			if n == "n1" {
				d = 160_000
			}
			s.finish("a", events.Map, i, att, t0+d)
		}
		start := t0 + 200_000
		att := s.run("a", events.Map, 4, "n2", events.NodeLocal, start, "n1", "n2", "n3")
		for _, n := range []string{"n1", "n2", "n3", "n4"} {
			used := 4
			if n == tt.freeNode {
				used = 0
			}
			s.heartbeat(n, start+60_000, used, 0)
		}
		s.progress("a", events.Map, 4, att, start+60_000, 0.1)
		hints := replay(t, build(t, NewERUL, policy.Handle{}), s.evs)
		if len(hints) != tt.want {
			t.Fatalf("only %s free: hints %+v, want %d", tt.freeNode, hints, tt.want)
		}
		for _, h := range hints {
			if h.Node != tt.freeNode {
				t.Fatalf("hint %+v, want target %s", h, tt.freeNode)
			}
		}
	}
}

// §3.5: Off-Rack maps are considered before Data-Local ones whatever their
// priority. With one free container, the off-rack map gets it even though
// the data-local straggler has the higher eq. 12 priority.
func TestCandidateOrderOffRackFirst(t *testing.T) {
	s := newScenario("a", 8)
	for i, n := range []string{"n1", "n2", "n3", "n4"} {
		att := s.run("a", events.Map, i, n, events.NodeLocal, t0, n)
		s.finish("a", events.Map, i, att, t0+40_000)
	}
	start := t0 + 100_000
	dl := s.run("a", events.Map, 4, "n1", events.NodeLocal, start, "n1")
	off := s.run("a", events.Map, 5, "n2", events.OffRack, start, "n4")
	ts := start + 60_000
	s.heartbeat("n1", ts, 4, 0)
	s.heartbeat("n2", ts, 4, 0)
	s.heartbeat("n3", ts, 3, 0) // one free container in the cluster
	s.heartbeat("n4", ts, 4, 0)
	s.progress("a", events.Map, 4, dl, ts, 0.1)   // 540 s left: priority 4.69 s/MB
	s.progress("a", events.Map, 5, off, ts, 0.25) // 180 s left: priority 1.875 s/MB
	hints := replay(t, build(t, NewERUL, policy.Handle{}), s.evs)
	if len(hints) != 1 || hints[0].Task != taskID(events.Map, 5) || hints[0].Node != "n3" {
		t.Fatalf("hints = %+v, want only the off-rack map on n3", hints)
	}
}

// Eq. 16–17 wired to the cluster: a backup 1.5× faster than the remaining
// time is worth it on an idle cluster (η = 0) but not when many tasks wait
// for few containers (η large, bound → 2).
func TestMCPLoadFactorFromCluster(t *testing.T) {
	mk := func(pending int) []events.Event {
		s, att := learnedCluster()
		evs := s.evs[:len(s.evs)-1] // drop the 20 % report
		s.evs = evs
		for i := 0; i < pending; i++ {
			s.add(events.Event{Type: events.TaskPending, TS: t0 + 259_000, App: "a", Task: fmt.Sprintf("task_1_0001_m_%06d", 100+i), Kind: events.Map})
		}
		// 60 s in at progress 0.5: 60 s left; a backup on n2 takes 40 s, so
		// rem/backup = 1.5: above the bound 1 at η = 0, below ~1.93 at η = 200/15.
		s.progress("a", events.Map, 4, att, t0+260_000, 0.5)
		return s.evs
	}
	if h := replay(t, build(t, NewMCP, policy.Handle{}), mk(0)); len(h) != 1 {
		t.Fatalf("η=0: hints %+v, want one", h)
	}
	if h := replay(t, build(t, NewMCP, policy.Handle{}), mk(200)); len(h) != 0 {
		t.Fatalf("η=200/15: hints %+v, want none", h)
	}
}

// Eq. 19 wired to the capabilities: t_A is the original node's capability
// for the task's class. Reducer on n1, backup candidate n2 (60 s), η = 1:
// MCP speculates (100/60 > 1.5); exMCP does when n1 is a valuable slot
// (t_A = 40 s: 60 + 20 < 100) and not when it is a poor one (t_A = 160 s).
func TestExMCPUsesOriginalSlotValue(t *testing.T) {
	for _, tt := range []struct {
		name    string
		f       policy.Factory
		origCap float64
		want    bool
	}{
		{"mcp", NewMCP, 160, true},
		{"exmcp poor original slot", NewExMCP, 160, false},
		{"exmcp valuable original slot", NewExMCP, 40, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			st := cluster.New()
			for i, rack := range []string{"r1", "r1", "r2"} {
				st.Apply(&events.Event{ID: fmt.Sprint("n", i), Type: events.NodeRegistered, TS: t0, Node: fmt.Sprintf("n%d", i+1), Rack: rack, VCores: 4, MemoryMB: 8192})
			}
			tid := taskID(events.Reduce, 0)
			st.Apply(&events.Event{ID: "p", Type: events.TaskPending, TS: t0, App: "a", Task: tid, Kind: events.Reduce})
			st.Apply(&events.Event{ID: "c", Type: events.ContainerAllocated, TS: t0, App: "a", Task: tid, Attempt: "r0", Container: "c", Node: "n1"})
			p := build(t, tt.f, policy.Handle{})
			at := st.Attempt("r0")
			table := capTable{caps: map[string]*[numClasses]float64{
				"n1": {Reduce: tt.origCap}, "n2": {Reduce: 60}, "n3": {Reduce: 400},
			}}
			table.threshold[Reduce] = 200
			order, _ := p.freeSlots(st)
			h, ok := p.consider(st, candidate{at: at, class: Reduce, rem: 100}, p.newTargets(order, table), 1, t0+60_000)
			if ok != tt.want {
				t.Fatalf("speculate = %v (%+v), want %v", ok, h, tt.want)
			}
			if ok && (h.Node != "n2" || h.EstBackupMS != 60_000 || h.EstRemainingMS != 100_000) {
				t.Fatalf("hint = %+v", h)
			}
		})
	}
}

// The ERUL estimate follows the node load; the MCP one does not.
func TestERULFollowsLoadMCPDoesNot(t *testing.T) {
	s := newScenario("a", 1)
	s.heartbeat("n1", t0-1000, 1, 1) // the load when the attempt starts
	att := s.run("a", events.Map, 0, "n1", events.NodeLocal, t0, "n1")
	for i := int64(0); i <= 12; i++ {
		load := 1.0
		if i > 6 {
			load = 5 // the node gets busy half way
		}
		s.heartbeat("n1", t0+i*5000, 1, load)
	}
	for i := int64(1); i <= 12; i++ {
		s.progress("a", events.Map, 0, att, t0+i*5000, 0.04*float64(i))
	}
	rem := map[string]float64{}
	for _, f := range []struct {
		name string
		f    policy.Factory
	}{{NameERUL, NewERUL}, {NameMCP, NewMCP}} {
		p := build(t, f.f, policy.Handle{})
		st := cluster.New()
		for i := range s.evs {
			if st.Apply(&s.evs[i]) {
				p.Observe(context.Background(), &s.evs[i], st)
			}
		}
		r, ok := p.remaining(st, st.Attempt(att), t0+60_000)
		if !ok {
			t.Fatalf("%s: no estimate", f.name)
		}
		rem[f.name] = r
	}
	// progress 0.48 after 60 s at a steady 0.008/s: 65 s left unloaded.
	if !near(rem[NameMCP], 65) {
		t.Fatalf("mcp remaining = %g, want 65", rem[NameMCP])
	}
	// ERUL: the start load 1, samples at 5..30 s of 1 and at 35..60 s of 5
	// (the heartbeat at the start itself is < δ after the seed): n = 13,
	// Z̄_now = 37/13; the last five are all 5, Z̄_est = (25 + 37/13)/6;
	// eq. 11: 65·(1 + Z̄_est)/(1 + Z̄_now) ≈ 100.6 s.
	want := 65 * (1 + (25+37.0/13)/6) / (1 + 37.0/13)
	if !near(rem[NameERUL], want) || rem[NameERUL] <= rem[NameMCP] {
		t.Fatalf("erul remaining = %g, want %g (> mcp)", rem[NameERUL], want)
	}
}

func TestCapabilitiesPersistAcrossInstances(t *testing.T) {
	db := profiles.NewMemory()
	defer db.Close()
	s, _ := learnedCluster()
	p1 := build(t, NewERUL, policy.Handle{Profiles: db})
	replay(t, p1, s.evs)
	if err := p1.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	p2 := build(t, NewERUL, policy.Handle{Profiles: db})
	for _, n := range []string{"n1", "n2", "n3", "n4"} {
		c1, ok1 := p1.Capability(n, DataLocal)
		c2, ok2 := p2.Capability(n, DataLocal)
		if !ok1 || !ok2 || c1 != c2 {
			t.Fatalf("%s: capability %g/%v before, %g/%v after restart", n, c1, ok1, c2, ok2)
		}
	}
	if _, ok := p2.Capability("n1", Reduce); ok {
		t.Fatal("reduce capability appeared from nowhere")
	}
	// Each policy keeps its own record: mcp did not learn what erul did.
	if _, ok := build(t, NewMCP, policy.Handle{Profiles: db}).Capability("n1", DataLocal); ok {
		t.Fatal("mcp read erul's capabilities")
	}
	// The second instance speculates at once, from what the first learned.
	fresh := newScenario("a", 6)
	start := t0 + 200_000
	att := fresh.run("a", events.Map, 4, "n1", events.NodeLocal, start, "n1", "n3")
	fresh.progress("a", events.Map, 4, att, start+60_000, 0.2)
	if h := replay(t, p2, fresh.evs); len(h) != 1 || h[0].Node == "n1" {
		t.Fatalf("after restart: hints %+v, want one away from n1", h)
	}
}

type failingStore struct{ err error }

func (f failingStore) Get(context.Context, string, string, any) (bool, error) { return false, f.err }
func (f failingStore) Put(context.Context, string, string, any) error         { return f.err }

func TestProfileErrorsAreWrapped(t *testing.T) {
	boom := errors.New("disk gone")
	if _, err := NewERUL(context.Background(), policy.Handle{Profiles: failingStore{boom}}); !errors.Is(err, boom) {
		t.Fatalf("load error = %v, want wrapping %v", err, boom)
	}
}

type args map[string]map[string]any

func (a args) Decode(name string, into any) error {
	c := into.(*Config)
	for k, v := range a[name] {
		switch k {
		case "k":
			c.K = v.(int)
		case "estimator":
			c.Estimator = Estimator(v.(string))
		default:
			return fmt.Errorf("unknown key %q", k)
		}
	}
	return nil
}

func TestConfigFromArgs(t *testing.T) {
	p := build(t, NewExMCP, policy.Handle{Args: args{"exmcp": {"k": 3, "estimator": "erul"}}})
	if c := p.Config(); c.K != 3 || c.Estimator != EstimatorERUL || c.Alpha != 0.3 || c.SpeculativeLag.Seconds() != 30 {
		t.Fatalf("config = %+v", c)
	}
	def := build(t, NewMCP, policy.Handle{}).Config()
	if def.Delta.Seconds() != 5 || def.K != 5 || def.Alpha != 0.3 || !near(def.ReduceAlpha, 1.0/3) || !near(def.ReduceBeta, 2.0/3) || def.Estimator != EstimatorEWMA {
		t.Fatalf("defaults = %+v", def)
	}
	for _, tt := range []struct {
		a    args
		want string
	}{
		{args{"erul": {"k": 0}}, "policies.erul.k"},
		{args{"erul": {"estimator": "crystal-ball"}}, "policies.erul.estimator"},
		{args{"erul": {"zzz": 1}}, `unknown key "zzz"`},
	} {
		if _, err := NewERUL(context.Background(), policy.Handle{Args: tt.a}); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("args %v: err = %v, want %q", tt.a, err, tt.want)
		}
	}
}

func TestDeterministic(t *testing.T) {
	s, _ := learnedCluster()
	a := replay(t, build(t, NewERUL, policy.Handle{}), s.evs)
	b := replay(t, build(t, NewERUL, policy.Handle{}), s.evs)
	if !reflect.DeepEqual(a, b) {
		t.Fatalf("two runs differ:\n%+v\n%+v", a, b)
	}
}

// A reducer copying while its job's maps still run waits for them, not for
// its node: it is no straggler until the maps have been done for
// speculativeLag.
func TestReducerWaitingForMapsIsNoStraggler(t *testing.T) {
	st := cluster.New()
	p := build(t, NewMCP, policy.Handle{})
	apply := func(ev events.Event) {
		ev.ID = fmt.Sprint(ev.Type, ev.TS, ev.Attempt, ev.Task)
		if st.Apply(&ev) {
			p.Observe(context.Background(), &ev, st)
		}
	}
	mid, rid := taskID(events.Map, 0), taskID(events.Reduce, 0)
	apply(events.Event{Type: events.TaskPending, TS: t0, App: "a", Task: mid, Kind: events.Map})
	apply(events.Event{Type: events.ContainerAllocated, TS: t0, App: "a", Task: mid, Attempt: "m0", Container: "c1", Node: "n1"})
	apply(events.Event{Type: events.TaskPending, TS: t0, App: "a", Task: rid, Kind: events.Reduce})
	apply(events.Event{Type: events.ContainerAllocated, TS: t0, App: "a", Task: rid, Attempt: "r0", Container: "c2", Node: "n2"})
	apply(events.Event{Type: events.TaskProgress, TS: t0 + 40_000, App: "a", Task: rid, Attempt: "r0", Progress: 0.05, Phase: events.PhaseShuffle})
	r := st.Attempt("r0")
	if !p.waitsForMaps(r, t0+40_000) {
		t.Fatal("maps still running: the reducer waits for them")
	}
	apply(events.Event{Type: events.TaskFinished, TS: t0 + 50_000, App: "a", Task: mid, Attempt: "m0", State: events.StateSucceeded})
	if !p.waitsForMaps(r, t0+70_000) {
		t.Fatal("maps done 20 s ago (< speculativeLag): still settling")
	}
	if p.waitsForMaps(r, t0+80_000) {
		t.Fatal("maps done 30 s ago: the reducer is judged on its own")
	}
	apply(events.Event{Type: events.TaskProgress, TS: t0 + 85_000, App: "a", Task: rid, Attempt: "r0", Progress: 0.5, Phase: events.PhaseReduce})
	if p.waitsForMaps(r, t0+85_000) {
		t.Fatal("past the copy phase a reducer is judged on its own")
	}
}

// A plugin built mid-run (a restart) rebuilds an attempt's load series from
// the node's heartbeat history and estimates what one that saw every event
// estimates.
func TestLoadSeriesRebuiltFromHistory(t *testing.T) {
	s := newScenario("a", 1)
	s.heartbeat("n1", t0-2000, 1, 2)
	att := s.run("a", events.Map, 0, "n1", events.NodeLocal, t0, "n1")
	for i := int64(1); i <= 12; i++ {
		s.heartbeat("n1", t0+i*5000, 1, float64(1+i%4))
	}
	s.progress("a", events.Map, 0, att, t0+60_000, 0.4)
	st := cluster.New()
	seen := build(t, NewERUL, policy.Handle{})
	for i := range s.evs {
		if st.Apply(&s.evs[i]) {
			seen.Observe(context.Background(), &s.evs[i], st)
		}
	}
	fresh := build(t, NewERUL, policy.Handle{})
	a, okA := seen.remaining(st, st.Attempt(att), t0+60_000)
	b, okB := fresh.remaining(st, st.Attempt(att), t0+60_000)
	if !okA || !okB || !near(a, b) {
		t.Fatalf("observed %g %v, rebuilt %g %v", a, okA, b, okB)
	}
	if near(a, remainingNow(0.4, 60)) {
		t.Fatalf("the load varied: eq. 11 (%g) should differ from eq. 9", a)
	}
}
