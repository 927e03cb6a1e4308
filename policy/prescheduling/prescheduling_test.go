package prescheduling

import (
	"context"
	"fmt"
	"testing"

	"github.com/rmsidecar/rmsidecar/cluster"
	"github.com/rmsidecar/rmsidecar/events"
	"github.com/rmsidecar/rmsidecar/policy"
	"github.com/rmsidecar/rmsidecar/policy/clustertest"
)

// Steps 1–3 and Definitions 1–2 of §2.3 on the nodes of the Fig. 6 layout:
// 4 map slots per node, a load factor of 10/16 puts the balancing line at
// ceil(2.5) = 3 slots.
func TestIdleCapacity(t *testing.T) {
	lf := LoadFactor(10, 16)
	if lf != 0.625 {
		t.Fatalf("LoadFactor(10, 16) = %v, want 0.625", lf)
	}
	tests := []struct {
		name                     string
		lf                       float64
		slots, used              int
		wantAllowable, wantExtra int
	}{
		{"Fig. 6 tasktracker 1: below the line", lf, 4, 1, 2, 1},
		{"Fig. 6 tasktracker 2: at the line, extra idle only", lf, 4, 3, 0, 1},
		{"full node", lf, 4, 4, 0, 0},
		{"overloaded cluster: the line is the node's capacity", 1.7, 4, 3, 1, 0},
		{"above the line", 0.25, 4, 3, 0, 1},
		{"idle cluster", 0, 4, 0, 0, 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, e := IdleCapacity(tt.lf, tt.slots, tt.used)
			if a != tt.wantAllowable || e != tt.wantExtra {
				t.Errorf("IdleCapacity(%v, %d, %d) = allowable %d, extra %d; want %d, %d",
					tt.lf, tt.slots, tt.used, a, e, tt.wantAllowable, tt.wantExtra)
			}
		})
	}
}

// fig6 builds the layout of Fig. 6: two racks of two tasktrackers with 4 map
// slots each; tasktrackers 1 and 3 run one map, 2 and 4 run three; J1 (head
// of the fair order, nothing running) has two pending maps whose blocks have
// replicas on tasktrackers 2 and 4; J2–J4 run the eight busy slots.
func fig6(t *testing.T) *clustertest.Builder {
	t.Helper()
	b := clustertest.New(1000)
	nodes := []struct {
		id, rack string
		used     int
	}{{"tt1", "r1", 1}, {"tt2", "r1", 3}, {"tt3", "r2", 1}, {"tt4", "r2", 3}}
	for _, n := range nodes {
		b.Node(n.id, n.rack, 4, 8192, n.used, n.used*1024)
	}
	for i, app := range []string{"j1", "j2", "j3", "j4"} {
		b.At(int64(2000 + i))
		b.Apply(events.Event{Type: events.AppSubmitted, App: app, Name: app, Queue: "default", User: "u", JobType: "sort", Maps: 4})
	}
	k := 0
	for _, n := range nodes {
		node := n.id
		for range n.used {
			app := []string{"j2", "j3", "j4"}[k%3]
			b.Start(app, fmt.Sprintf("task_%s_m_%03d", app, 100+k), events.Map, fmt.Sprintf("attempt_%d", k), node, false)
			k++
		}
	}
	split := func(app, task string, hosts ...string) {
		b.Apply(events.Event{Type: events.TaskPending, App: app, Task: task, Kind: events.Map,
			Splits: []events.Split{{Path: "/in/" + task, Length: 128 << 20, Hosts: hosts}}})
	}
	split("j1", "task_j1_m_000", "tt2", "tt4")
	split("j1", "task_j1_m_001", "tt4", "tt2")
	return b
}

func TestAssignFig6(t *testing.T) {
	p, err := New(DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	b := fig6(t)
	v := b.State
	// Load factor: 8 running + 2 pending over 16 slots.
	if s := p.State(v, v.Node("tt2")); s.LoadFactor != 0.625 || s.Allowable != 0 || s.Extra != 1 {
		t.Fatalf("tt2 state = %+v, want load factor 0.625, allowable 0, extra 1", s)
	}
	if h := p.HeadJob(v); h == nil || h.ID != "j1" {
		t.Fatalf("head job = %v, want j1", h)
	}
	tests := []struct {
		node     string
		wantCode policy.Code
		wantTask string
	}{
		// Tasktrackers 2 and 4: extra idle, no allowable idle, local input of
		// J1: pre-schedule J1's map there.
		{"tt2", policy.Success, "task_j1_m_000"},
		{"tt4", policy.Success, "task_j1_m_000"},
		// Tasktrackers 1 and 3: allowable idle slots: delay scheduling's case.
		{"tt1", policy.Skip, ""},
		{"tt3", policy.Skip, ""},
	}
	for _, tt := range tests {
		t.Run(tt.node, func(t *testing.T) {
			hs, st := p.Assign(ctx, v, v.Node(tt.node))
			if st.Code() != tt.wantCode {
				t.Fatalf("status %v (%s), want %v", st.Code(), st.Message(), tt.wantCode)
			}
			if tt.wantTask == "" {
				if len(hs) != 0 {
					t.Errorf("hints %+v, want none", hs)
				}
				return
			}
			if len(hs) != 1 {
				t.Fatalf("hints %+v, want one (max_per_heartbeat 1)", hs)
			}
			h := hs[0]
			if h.Kind != policy.KindPlace || h.App != "j1" || h.Task != tt.wantTask ||
				len(h.Nodes) != 1 || h.Nodes[0].Node != tt.node || h.Nodes[0].Locality != events.NodeLocal {
				t.Errorf("hint %+v, want place %s on %s node-local", h, tt.wantTask, tt.node)
			}
			if err := h.Validate(); err != nil {
				t.Error(err)
			}
		})
	}
}

// Only the head job is pre-scheduled: a later job with input on the node is
// not served out of fair order.
func TestAssignOnlyHeadJob(t *testing.T) {
	p, _ := New(DefaultConfig())
	b := fig6(t)
	// A job submitted before J1, with nothing running, becomes the head; its
	// input is on tt1 only.
	b.At(1500)
	b.Apply(events.Event{Type: events.AppSubmitted, App: "j0", Name: "j0", Queue: "default", User: "u", Maps: 1})
	b.Apply(events.Event{Type: events.TaskPending, App: "j0", Task: "task_j0_m_000", Kind: events.Map,
		Splits: []events.Split{{Path: "/in/j0", Hosts: []string{"tt1"}}}})
	hs, st := p.Assign(context.Background(), b.State, b.State.Node("tt2"))
	if st.Code() != policy.Skip || len(hs) != 0 {
		t.Errorf("head j0 has no input on tt2: got %d hints, status %v; want none, Skip", len(hs), st.Code())
	}
}

// The DHSA case of §2.3.2: no idle map slot, an idle reduce slot, a local
// pending map: borrow the reduce slot.
func TestAssignBorrowsIdleReduceSlot(t *testing.T) {
	cfg := DefaultConfig()
	cfg.MapSlots, cfg.ReduceSlots, cfg.BorrowReduceSlots, cfg.MaxPerHeartbeat = 2, 2, true, 4
	p, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	b := clustertest.New(1000)
	b.Node("n1", "r1", 4, 8192, 2, 2048)
	b.App("a1", "sort", 5, 0)
	b.Start("a1", "task_a1_m_100", events.Map, "at1", "n1", false)
	b.Start("a1", "task_a1_m_101", events.Map, "at2", "n1", false)
	for i := range 3 {
		b.Apply(events.Event{Type: events.TaskPending, App: "a1", Task: fmt.Sprintf("task_a1_m_%03d", i), Kind: events.Map,
			Splits: []events.Split{{Path: "/in", Hosts: []string{"n1"}}}})
	}
	hs, st := p.Assign(context.Background(), b.State, b.State.Node("n1"))
	if !st.IsSuccess() || len(hs) != 2 {
		t.Fatalf("got %d hints (%s), want 2 maps on the 2 idle reduce slots", len(hs), st.Message())
	}
	cfg.BorrowReduceSlots = false
	p, _ = New(cfg)
	if hs, _ := p.Assign(context.Background(), b.State, b.State.Node("n1")); len(hs) != 0 {
		t.Errorf("without borrowing: %d hints, want none", len(hs))
	}
}

func TestConfigValidate(t *testing.T) {
	c := DefaultConfig()
	c.BorrowReduceSlots = true
	if err := c.Validate(); err == nil {
		t.Error("borrow_reduce_slots without reduce_slots: no error")
	}
	c = DefaultConfig()
	c.MaxPerHeartbeat = 0
	if err := c.Validate(); err == nil {
		t.Error("max_per_heartbeat 0: no error")
	}
	c = DefaultConfig()
	c.Pools = map[string]float64{"etl": 1, "adhoc": -1}
	if err := c.Validate(); err == nil || err.Error() != "pools.adhoc: weight must be > 0, got -1" {
		t.Errorf("a negative pool weight: got %v", err)
	}
}

// The head job follows the fair scheduler's hierarchy: the most starved
// queue first, then the job with the fewest running tasks in it.
func TestHeadJobHierarchy(t *testing.T) {
	p, _ := New(DefaultConfig())
	b := clustertest.New(1000)
	b.Node("n1", "r1", 16, 32768, 0, 0)
	submit := func(app, queue string, ts int64) {
		b.At(ts)
		b.Apply(events.Event{Type: events.AppSubmitted, App: app, Name: app, Queue: queue, User: "u", Maps: 10})
		b.Apply(events.Event{Type: events.TaskPending, App: app, Task: "task_" + app + "_m_999", Kind: events.Map})
	}
	// Queue "many": three jobs running 2 maps each (6 in all); queue "one":
	// one job running 4. Per job "many" looks starved, per queue "one" is.
	for i, app := range []string{"m1", "m2", "m3"} {
		submit(app, "many", int64(1000+i))
		for k := range 2 {
			b.Start(app, fmt.Sprintf("task_%s_m_%03d", app, k), events.Map, fmt.Sprintf("at_%s_%d", app, k), "n1", false)
		}
	}
	submit("o1", "one", 2000)
	for k := range 4 {
		b.Start("o1", fmt.Sprintf("task_o1_m_%03d", k), events.Map, fmt.Sprintf("at_o1_%d", k), "n1", false)
	}
	if h := p.HeadJob(b.State); h == nil || h.ID != "o1" {
		t.Fatalf("head = %v, want o1 (queue one runs 4 < 6)", h)
	}
	// Weight 2 on "many" makes it 3 per weight < 4: its least-running,
	// earliest job is the head.
	p, _ = New(Config{VCoresPerSlot: 1, MaxPerHeartbeat: 1, Pools: map[string]float64{"many": 2}})
	if h := p.HeadJob(b.State); h == nil || h.ID != "m1" {
		t.Fatalf("head = %v, want m1", h)
	}
}

// TestLocalMapsRealNodeIDs: a map whose split is on host nm1.example is
// local to the node nm1.example:8041 (failed before: split hosts were
// compared with the node id, port included).
func TestLocalMapsRealNodeIDs(t *testing.T) {
	a := &cluster.App{ID: "a"}
	a.Tasks = []*cluster.Task{
		{ID: "m0", App: a, Kind: events.Map, State: cluster.TaskPending, Splits: []events.Split{{Hosts: []string{"nm2.example"}}}},
		{ID: "m1", App: a, Kind: events.Map, State: cluster.TaskPending, Splits: []events.Split{{Hosts: []string{"nm1.example", "nm2.example"}}}},
	}
	got := localMaps(a, &cluster.Node{ID: "nm1.example:8041"}, 5)
	if len(got) != 1 || got[0].ID != "m1" {
		t.Fatalf("local maps of nm1.example:8041 = %v, want [m1]", got)
	}
}
