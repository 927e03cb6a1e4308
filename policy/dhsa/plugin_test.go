package dhsa

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/rmsidecar/rmsidecar/events"
	"github.com/rmsidecar/rmsidecar/policy"
	"github.com/rmsidecar/rmsidecar/policy/clustertest"
)

// args is a policy.Args over plain maps, as the config package hands them.
type args map[string]map[string]any

func (a args) Decode(name string, into any) error {
	m, ok := a[name]
	if !ok {
		return nil
	}
	c := into.(*Config)
	for k, v := range m {
		switch k {
		case "map_slots":
			c.MapSlots = v.(int)
		case "reduce_slots":
			c.ReduceSlots = v.(int)
		case "scope":
			c.Scope = Scope(v.(string))
		case "percentage_of_borrowed_map_slots":
			c.PercentageOfBorrowedMapSlots = v.(float64)
		case "assign":
			c.Assign = v.(bool)
		case "reduce_rampup_limit":
			c.ReduceRampupLimit = v.(float64)
		default:
			return fmt.Errorf("%s: unknown key", k)
		}
	}
	return nil
}

// cluster of two 12-core nodes; app1 in queue "etl" with pending maps.
func build(t *testing.T, maps, reduces int) *clustertest.Builder {
	t.Helper()
	b := clustertest.New(1000)
	b.Node("n1", "r1", 12, 24576, 0, 0)
	b.Node("n2", "r1", 12, 24576, 0, 0)
	b.Apply(events.Event{Type: events.AppSubmitted, App: "app1", Name: "sort", Queue: "etl", User: "u",
		JobType: "sort", Maps: maps, Reduces: reduces})
	for i := range maps {
		b.Apply(events.Event{Type: events.TaskPending, App: "app1", Task: fmt.Sprintf("task_1_0001_m_%06d", i),
			Kind: events.Map, Splits: []events.Split{{Path: "/in", Hosts: []string{"n1"}}}})
	}
	for i := range reduces {
		b.Pending("app1", fmt.Sprintf("task_1_0001_r_%06d", i), events.Reduce)
	}
	return b
}

// subjects drops the per-node ratio hints, keeping those of queues and apps.
func subjects(hs []policy.Hint) []policy.Hint {
	var out []policy.Hint
	for _, h := range hs {
		if h.Node == "" {
			out = append(out, h)
		}
	}
	return out
}

// byNode returns the per-node caps of hs.
func byNode(hs []policy.Hint) map[string]Slots {
	out := map[string]Slots{}
	for _, h := range hs {
		if h.Kind == policy.KindRatio && h.Node != "" {
			out[h.Node] = Slots{h.MaxMaps, h.MaxReduces}
		}
	}
	return out
}

func ratio(t *testing.T, hs []policy.Hint) (int, int) {
	t.Helper()
	hs = subjects(hs)
	if len(hs) != 1 || hs[0].Kind != policy.KindRatio {
		t.Fatalf("hints = %+v, want one ratio hint", hs)
	}
	return hs[0].MaxMaps, hs[0].MaxReduces
}

// A 1/11 map/reduce split per node (§3.2.2's worst static configuration):
// with only maps pending, DHSA lets maps borrow every idle reduce slot; once
// reduces are pending they take their reduce share first and the maps keep
// only their own slots plus the reduce slots still idle. (The AM's reduce
// ramp-up limit is off here: MRv1, the paper's setting, has none.)
func TestShapeRatioFollowsDemand(t *testing.T) {
	for _, name := range []string{NamePI, NamePD} {
		t.Run(name, func(t *testing.T) {
			h := policy.Handle{Args: args{name: {"map_slots": 1, "reduce_slots": 11, "reduce_rampup_limit": 0.0}}}
			var p policy.Plugin
			var err error
			if name == NamePI {
				p, err = NewPI(context.Background(), h)
			} else {
				p, err = NewPD(context.Background(), h)
			}
			if err != nil {
				t.Fatal(err)
			}
			shaper := p.(policy.Shaper)
			b := build(t, 30, 0)
			hs, st := shaper.Shape(context.Background(), b.State)
			if !st.IsSuccess() {
				t.Fatal(st.Message())
			}
			if q := subjects(hs)[0].Queue; q != "etl" {
				t.Errorf("queue = %q, want etl", q)
			}
			if m, r := ratio(t, hs); m != 24 || r != 0 {
				t.Errorf("maps only: max maps %d, reduces %d; want 24, 0 (2 map + 22 borrowed reduce slots)", m, r)
			}
			for i := range 5 {
				b.Pending("app1", fmt.Sprintf("task_1_0001_r_%06d", i), events.Reduce)
			}
			hs, _ = shaper.Shape(context.Background(), b.State)
			if m, r := ratio(t, hs); m != 19 || r != 5 {
				t.Errorf("5 reduces pending: max maps %d, reduces %d; want 19, 5", m, r)
			}
		})
	}
}

// Finished apps and idle clusters produce nothing.
func TestShapeSkips(t *testing.T) {
	p, err := New(NamePI, DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	b := clustertest.New(1000)
	if _, st := p.Shape(context.Background(), b.State); st.Code() != policy.Skip {
		t.Errorf("no nodes: status %v, want Skip", st.Code())
	}
	b = build(t, 2, 0)
	b.AppFinished("app1", "SUCCEEDED")
	if hs, st := p.Shape(context.Background(), b.State); st.Code() != policy.Skip || len(hs) != 0 {
		t.Errorf("finished app: %d hints, status %v; want none, Skip", len(hs), st.Code())
	}
}

// scope: app splits the queue's grant among its apps max-min by demand.
func TestShapeScopeApp(t *testing.T) {
	cfg := DefaultConfig()
	cfg.MapSlots, cfg.ReduceSlots, cfg.Scope = 4, 4, ScopeApp
	p, err := New(NamePI, cfg)
	if err != nil {
		t.Fatal(err)
	}
	b := build(t, 20, 0)
	b.Apply(events.Event{Type: events.AppSubmitted, App: "app2", Name: "grep", Queue: "etl", User: "u", Maps: 3})
	for i := range 3 {
		b.Pending("app2", fmt.Sprintf("task_1_0002_m_%06d", i), events.Map)
	}
	hs, st := p.Shape(context.Background(), b.State)
	hs = subjects(hs)
	if !st.IsSuccess() || len(hs) != 2 {
		t.Fatalf("hints %+v, status %v", hs, st.Message())
	}
	got := map[string][2]int{}
	for _, h := range hs {
		got[h.App] = [2]int{h.MaxMaps, h.MaxReduces}
	}
	// 16 slots, 23 maps demanded: app2 gets its 3, app1 the other 13.
	if got["app1"] != [2]int{13, 0} || got["app2"] != [2]int{3, 0} {
		t.Errorf("caps = %v, want app1 [13 0], app2 [3 0]", got)
	}
}

func TestConfigErrorsNameTheKey(t *testing.T) {
	tests := []struct {
		mutate func(*Config)
		key    string
	}{
		{func(c *Config) { c.MapShare = 1.5 }, "map_share"},
		{func(c *Config) { c.PercentageOfBorrowedMapSlots = -0.1 }, "percentage_of_borrowed_map_slots"},
		{func(c *Config) { c.ReduceSlotWeight = 0 }, "reduce_slot_weight"},
		{func(c *Config) { c.Pools = map[string]float64{"etl": 0} }, "pools.etl"},
		{func(c *Config) { c.Scope = "node" }, "scope"},
		{func(c *Config) { c.NodeCapsRefresh = 0 }, "node_caps_refresh"},
	}
	for _, tt := range tests {
		c := DefaultConfig()
		tt.mutate(&c)
		err := c.Validate()
		if err == nil || !strings.HasPrefix(err.Error(), tt.key+":") {
			t.Errorf("Validate() = %v, want an error starting with %q", err, tt.key+":")
		}
	}
	if _, err := NewPD(context.Background(), policy.Handle{Args: args{NamePD: {"bogus": 1}}}); err == nil || !strings.Contains(err.Error(), "dhsa-pd settings") {
		t.Errorf("unknown key: err = %v, want one naming dhsa-pd settings", err)
	}
}

func TestNodeSlots(t *testing.T) {
	c := DefaultConfig()
	if m, r := c.NodeSlots(12); m != 6 || r != 6 {
		t.Errorf("default 12 cores = %d/%d, want 6/6", m, r)
	}
	c.MapShare = 1.0 / 12
	if m, r := c.NodeSlots(12); m != 1 || r != 11 {
		t.Errorf("share 1/12 = %d/%d, want 1/11", m, r)
	}
	c.MapSlots, c.ReduceSlots = 8, 4
	if m, r := c.NodeSlots(12); m != 8 || r != 4 {
		t.Errorf("fixed 8/4 = %d/%d", m, r)
	}
}

// dhsa-pd with assign: true places tasks on the heartbeating node.
func TestAssignPlaceHints(t *testing.T) {
	pl, err := NewPD(context.Background(), policy.Handle{Args: args{NamePD: {"map_slots": 1, "reduce_slots": 1, "assign": true}}})
	if err != nil {
		t.Fatal(err)
	}
	p, ok := pl.(policy.Assigner)
	if !ok {
		t.Fatalf("dhsa-pd with assign: true is %T, not an Assigner", pl)
	}
	b := build(t, 3, 1)
	hs, st := p.Assign(context.Background(), b.State, b.State.Node("n1"))
	if !st.IsSuccess() {
		t.Fatal(st.Message())
	}
	var got []string
	for _, h := range hs {
		if h.Kind != policy.KindPlace || len(h.Nodes) != 1 || h.Nodes[0].Node != "n1" {
			t.Fatalf("hint %+v: want a place hint naming n1", h)
		}
		got = append(got, h.Task+"@"+string(h.Nodes[0].Locality))
	}
	want := "task_1_0001_m_000000@node task_1_0001_r_000000@"
	if strings.Join(got, " ") != want {
		t.Errorf("placed %v, want %s", got, want)
	}
	// dhsa-pi, and dhsa-pd without assign, are no Assigners.
	for _, f := range []policy.Factory{NewPI, NewPD} {
		pl, err := f(context.Background(), policy.Handle{Args: args{NamePI: {"map_slots": 1}, NamePD: {"map_slots": 1}}})
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := pl.(policy.Assigner); ok {
			t.Errorf("%s is an Assigner", pl.Name())
		}
	}
}

func TestShapeOnDemandEvents(t *testing.T) {
	p, _ := New(NamePI, DefaultConfig())
	for typ, want := range map[events.Type]bool{
		events.TaskPending: true, events.AppSubmitted: true, events.TaskFinished: true, events.NodeLost: true,
		events.ContainerAllocated: true, events.TaskProgress: false, events.NodeHeartbeat: false,
	} {
		if got := p.ShapeOn(&events.Event{Type: typ}); got != want {
			t.Errorf("ShapeOn(%s) = %v, want %v", typ, got, want)
		}
	}
}

// With the MapReduce AM's ramp-up limit (0.5 by default), reducers the AM
// does not ask for yet are not demand: 4 running maps allow
// max(1, 0.5·(4+0+1)) = 2 reducers while maps remain.
func TestReduceDemandFollowsRampup(t *testing.T) {
	cfg := DefaultConfig()
	cfg.MapSlots, cfg.ReduceSlots = 1, 11
	p, err := New(NamePI, cfg)
	if err != nil {
		t.Fatal(err)
	}
	b := build(t, 10, 0)
	for i := range 4 {
		b.Start("app1", fmt.Sprintf("task_1_0001_m_%06d", i), events.Map, fmt.Sprintf("attempt_m%d", i), "n1", false)
	}
	for i := range 5 {
		b.Pending("app1", fmt.Sprintf("task_1_0001_r_%06d", i), events.Reduce)
	}
	if m, r := p.appDemand(b.State.App("app1")); m != 10 || r != 2 {
		t.Errorf("demand = %d maps, %d reduces; want 10, 2", m, r)
	}
	hs, _ := p.Shape(context.Background(), b.State)
	// 24 slots: reduces granted 2 of their 22, maps 2 own + 20 borrowed >= 10.
	if m, r := ratio(t, hs); m != 22 || r != 2+12 {
		t.Errorf("caps = %d maps, %d reduces; want 22, 14", m, r)
	}
}

// The caches behind Shape follow the view: finished apps leave the index,
// new apps join it, another view starts it over, and a lost node (seen by
// ShapeOn) takes its slots away.
func TestShapeCachesFollowTheView(t *testing.T) {
	cfg := DefaultConfig()
	cfg.MapSlots, cfg.ReduceSlots = 2, 2
	p, _ := New(NamePI, cfg)
	b := build(t, 3, 0)
	if got := len(p.apps.unfinished(b.State)); got != 1 {
		t.Fatalf("unfinished = %d, want 1", got)
	}
	b.Apply(events.Event{Type: events.AppSubmitted, App: "app2", Name: "x", Queue: "etl", User: "u", Maps: 1})
	b.AppFinished("app1", "SUCCEEDED")
	if got := p.apps.unfinished(b.State); len(got) != 1 || got[0].ID != "app2" {
		t.Fatalf("unfinished = %v, want [app2]", got)
	}
	if s := p.ClusterSlots(b.State); s != (Slots{4, 4}) {
		t.Fatalf("slots = %+v, want {4 4}", s)
	}
	lost := events.Event{Type: events.NodeLost, Node: "n2", Reason: "gone"}
	b.Apply(lost)
	if !p.ShapeOn(&lost) {
		t.Fatal("ShapeOn(node.lost) = false")
	}
	if s := p.ClusterSlots(b.State); s != (Slots{2, 2}) {
		t.Errorf("slots after n2 lost = %+v, want {2 2}", s)
	}
	other := build(t, 1, 0)
	if got := p.apps.unfinished(other.State); len(got) != 1 || got[0] != other.State.App("app1") {
		t.Errorf("another view: unfinished = %v, want its app1", got)
	}
}

// Node caps: a phase that borrows nothing runs up to the node's own slots;
// one that borrows may also take the node's slots of the other kind, up to
// what it borrows cluster-wide (converted by the slot weights); the reduce
// grant is spread over the nodes by their slots.
func TestNodeCaps(t *testing.T) {
	eq := Weights{Map: 1, Reduce: 1}
	tests := []struct {
		name                    string
		allowed, granted, total Slots
		own                     Slots
		w                       Weights
		wantMaps, wantReduce    int
	}{
		{"no borrowing, reduce grant fills the slots: own slots", Slots{60, 60}, Slots{60, 60}, Slots{60, 60}, Slots{6, 6}, eq, 6, 6},
		{"maps borrow every reduce slot", Slots{24, 0}, Slots{24, 0}, Slots{2, 22}, Slots{1, 11}, eq, 12, 1},
		{"maps borrow 3 reduce slots cluster-wide", Slots{63, 57}, Slots{63, 57}, Slots{60, 60}, Slots{6, 6}, eq, 9, 6},
		{"30 reduces granted on 10 nodes of 12: 3 a node", Slots{110, 110}, Slots{90, 30}, Slots{10, 110}, Slots{1, 11}, eq, 12, 3},
		{"uneven nodes: spread by slots", Slots{60, 60}, Slots{60, 30}, Slots{60, 60}, Slots{12, 12}, eq, 12, 6},
		{"reduces borrow map slots", Slots{10, 70}, Slots{10, 70}, Slots{60, 60}, Slots{8, 4}, eq, 8, 7},
		{"slot weights 1 and 2: a reduce slot runs 2 maps", Slots{40, 0}, Slots{40, 0}, Slots{8, 4}, Slots{8, 4}, Weights{Map: 1, Reduce: 2}, 16, 1},
		{"no map slots, nothing borrowed: zero maps", Slots{0, 120}, Slots{0, 120}, Slots{0, 120}, Slots{0, 12}, eq, 0, 12},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, r := NodeCaps(tt.allowed, tt.granted, tt.total, tt.own, tt.w)
			if m != tt.wantMaps || r != tt.wantReduce {
				t.Errorf("NodeCaps(%v, %v, %v, %v) = %d, %d; want %d, %d", tt.allowed, tt.granted, tt.total, tt.own, m, r, tt.wantMaps, tt.wantReduce)
			}
		})
	}
}

// Shape emits a ratio hint per running node (field node) with NodeCaps of
// the pools' caps; a recompute that changes nothing sends none until the
// refresh is due; node_caps: false sends none.
func TestShapeNodeHints(t *testing.T) {
	cfg := DefaultConfig()
	cfg.MapSlots, cfg.ReduceSlots, cfg.ReduceRampupLimit = 1, 11, 0
	p, err := New(NamePI, cfg)
	if err != nil {
		t.Fatal(err)
	}
	b := build(t, 30, 0)
	hs, _ := p.Shape(context.Background(), b.State)
	if got := byNode(hs); len(got) != 2 || got["n1"] != (Slots{12, 1}) || got["n2"] != (Slots{12, 1}) {
		t.Fatalf("maps only: node caps %v, want n1 and n2 at 12 maps (1 + 11 borrowed), 1 reduce (none granted)", got)
	}
	for _, h := range hs {
		if err := h.Validate(); err != nil {
			t.Fatalf("invalid hint %+v: %v", h, err)
		}
	}
	if hs, _ = p.Shape(context.Background(), b.State); len(byNode(hs)) != 0 {
		t.Errorf("unchanged caps sent again at once: %v", byNode(hs))
	}
	for i := range 5 {
		b.Pending("app1", fmt.Sprintf("task_1_0001_r_%06d", i), events.Reduce)
	}
	hs, _ = p.Shape(context.Background(), b.State)
	if got := byNode(hs); got["n1"] != (Slots{12, 3}) || got["n2"] != (Slots{12, 3}) {
		t.Errorf("5 reduces pending: node caps %v, want 12 maps (still borrowing), 3 reduces (5 granted spread over 2 nodes)", got)
	}
	for i := range 22 {
		b.Pending("app1", fmt.Sprintf("task_1_0001_r_%06d", 5+i), events.Reduce)
	}
	hs, _ = p.Shape(context.Background(), b.State)
	if got := byNode(hs); got["n1"] != (Slots{1, 11}) || got["n2"] != (Slots{1, 11}) {
		t.Errorf("27 reduces pending (none borrowed): node caps %v, want own slots 1 map, 11 reduces", got)
	}
	b.At(b.Now() + cfg.NodeCapsRefresh.Milliseconds())
	b.Heartbeat("n1", 0, 0)
	if hs, _ = p.Shape(context.Background(), b.State); len(byNode(hs)) != 2 {
		t.Errorf("after the refresh interval: %d node hints, want 2", len(byNode(hs)))
	}
	cfg.NodeCaps = false
	off, _ := New(NamePI, cfg)
	if hs, _ = off.Shape(context.Background(), b.State); len(byNode(hs)) != 0 {
		t.Errorf("node_caps false: node hints %v", byNode(hs))
	}
}
