package dhsa

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/rmsidecar/rmsidecar/cluster"
	"github.com/rmsidecar/rmsidecar/events"
)

func tasks(prefix string, n int, kind events.TaskKind, hosts ...string) []*cluster.Task {
	out := make([]*cluster.Task, n)
	for i := range out {
		out[i] = &cluster.Task{ID: fmt.Sprintf("%s_%d", prefix, i), Kind: kind, State: cluster.TaskPending}
		if kind == events.Map {
			out[i].Splits = []events.Split{{Hosts: hosts}}
		}
	}
	return out
}

// locality for a node "n1" in rack "r1"; hosts "n2" share the rack.
func localityOn(node string, rackmates ...string) LocalityFunc {
	return func(t *cluster.Task) events.Locality {
		loc := events.OffRack
		for _, s := range t.Splits {
			for _, h := range s.Hosts {
				if h == node {
					return events.NodeLocal
				}
				if slices.Contains(rackmates, h) {
					loc = events.RackLocal
				}
			}
		}
		return loc
	}
}

// trace renders assignments as "case:kind" (plus "~" when relaxed).
func trace(as []Assignment) string {
	var parts []string
	for _, a := range as {
		s := fmt.Sprintf("%d:%s", a.Case, a.Kind)
		if a.Relaxed {
			s += "~" + string(a.Locality)
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, " ")
}

// PD-DHSA's per-pool allocation order, Fig. 4 and §2.1.2 Cases (1)–(4):
// map on a map slot, reduce on a reduce slot, map on a reduce slot, reduce
// on a map slot.
func TestAssignNodeCases(t *testing.T) {
	local := localityOn("n1")
	tests := []struct {
		name     string
		node     NodeLoad
		maps, rs int
		hosts    []string
		b        Borrow
		limit    int
		want     string
	}{
		{"maps then reduces on own slots", NodeLoad{ID: "n1", Slots: Slots{2, 2}}, 5, 5, []string{"n1"}, uniform, 10,
			"1:map 1:map 2:reduce 2:reduce"},
		{"no reduces: maps borrow reduce slots (case 3)", NodeLoad{ID: "n1", Slots: Slots{2, 2}}, 5, 0, []string{"n1"}, uniform, 10,
			"1:map 1:map 3:map 3:map"},
		{"no maps: reduces borrow map slots (case 4)", NodeLoad{ID: "n1", Slots: Slots{2, 2}}, 0, 5, nil, uniform, 10,
			"2:reduce 2:reduce 4:reduce 4:reduce"},
		{"busy map slots: reduce first, then map on reduce slot", NodeLoad{ID: "n1", Slots: Slots{2, 2}, RunningMaps: 2}, 5, 1, []string{"n1"}, uniform, 10,
			"2:reduce 3:map"},
		{"no borrowing allowed", NodeLoad{ID: "n1", Slots: Slots{2, 2}}, 5, 0, []string{"n1"}, Borrow{Weights{1, 1}, 0, 0}, 10,
			"1:map 1:map"},
		{"limit per heartbeat", NodeLoad{ID: "n1", Slots: Slots{2, 2}}, 5, 5, []string{"n1"}, uniform, 3,
			"1:map 1:map 2:reduce"},
		// §2.1.1 slot weights at node level: 8/4 with weights 1 and 2 runs 16 maps ...
		{"8/4 weights 1,2: 16 maps", NodeLoad{ID: "n1", Slots: Slots{8, 4}}, 20, 0, []string{"n1"}, Borrow{Weights{1, 2}, 1, 1}, 100,
			strings.TrimSpace(strings.Repeat("1:map ", 8) + strings.Repeat("3:map ", 8))},
		// ... or 8/2 + 4 = 8 reduces.
		{"8/4 weights 1,2: 8 reduces", NodeLoad{ID: "n1", Slots: Slots{8, 4}}, 0, 20, nil, Borrow{Weights{1, 2}, 1, 1}, 100,
			strings.TrimSpace(strings.Repeat("2:reduce ", 4) + strings.Repeat("4:reduce ", 4))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pools := []PoolQueue{{Name: "q", Weight: 1, Jobs: []JobQueue{{App: "app1",
				Maps: tasks("m", tt.maps, events.Map, tt.hosts...), Reduces: tasks("r", tt.rs, events.Reduce)}}}}
			got := trace(AssignNode(tt.node, pools, tt.b, local, tt.limit))
			if got != tt.want {
				t.Errorf("assignments = %q\nwant          %q", got, tt.want)
			}
		})
	}
}

// The visitedForMap rule of §2.1.2: on an empty node with no input data no
// map is node-local, so a round over all pools assigns nothing; the jobs
// visited for maps are marked and the next round takes their maps at the
// best locality there is (rack before off-rack).
func TestAssignNodeVisitedForMap(t *testing.T) {
	loc := localityOn("new", "n2")
	pools := []PoolQueue{{Name: "q", Weight: 1, Jobs: []JobQueue{{App: "app1",
		Maps: append(tasks("off", 1, events.Map, "n9"), tasks("rack", 1, events.Map, "n2")...)}}}}
	as := AssignNode(NodeLoad{ID: "new", Slots: Slots{1, 1}}, pools, uniform, loc, 10)
	if got, want := trace(as), "1:map~rack 3:map~off"; got != want {
		t.Fatalf("assignments = %q, want %q", got, want)
	}
	if as[0].Task != "rack_0" {
		t.Errorf("first relaxed map = %s, want the rack-local rack_0", as[0].Task)
	}
	// A node holding the input never relaxes while local maps remain.
	pools = []PoolQueue{{Name: "q", Weight: 1, Jobs: []JobQueue{{App: "app1",
		Maps: append(tasks("off", 1, events.Map, "n9"), tasks("here", 1, events.Map, "new")...)}}}}
	as = AssignNode(NodeLoad{ID: "new", Slots: Slots{1, 0}}, pools, uniform, loc, 10)
	if got, want := trace(as), "1:map"; got != want || as[0].Task != "here_0" {
		t.Errorf("assignments = %q (%v), want %q on here_0", got, as, want)
	}
}

// Pools are served in fair order (fewest running per weight), re-sorted
// after every assignment, so two equal pools alternate.
func TestAssignNodeFairOrder(t *testing.T) {
	local := localityOn("n1")
	pools := []PoolQueue{
		{Name: "b", Weight: 1, Running: 0, Jobs: []JobQueue{{App: "appB", Maps: tasks("b", 5, events.Map, "n1")}}},
		{Name: "a", Weight: 1, Running: 3, Jobs: []JobQueue{{App: "appA", Maps: tasks("a", 5, events.Map, "n1")}}},
	}
	as := AssignNode(NodeLoad{ID: "n1", Slots: Slots{8, 0}}, pools, uniform, local, 8)
	var apps []string
	for _, a := range as {
		apps = append(apps, a.App)
	}
	want := []string{"appB", "appB", "appB", "appA", "appB", "appA", "appB", "appA"}
	if !slices.Equal(apps, want) {
		t.Errorf("order = %v, want %v", apps, want)
	}
}

// TestMapLocalityRealNodeIDs: node ids carry the NodeManager port, split
// hosts do not (failed before: every map was off-rack on a real cluster).
func TestMapLocalityRealNodeIDs(t *testing.T) {
	s := cluster.New()
	for i, n := range []struct{ id, rack string }{{"nm1.example:8041", "/r1"}, {"nm2.example:8041", "/r1"}, {"nm3.example:8041", "/r2"}} {
		s.Apply(&events.Event{V: 1, ID: n.id, Type: events.NodeRegistered, TS: int64(i + 1), Node: n.id, Rack: n.rack, VCores: 4, MemoryMB: 4096})
	}
	task := &cluster.Task{Kind: events.Map, Splits: []events.Split{{Path: "/in", Length: 1, Hosts: []string{"nm1.example"}}}}
	for id, want := range map[string]events.Locality{"nm1.example:8041": events.NodeLocal, "nm2.example:8041": events.RackLocal,
		"nm3.example:8041": events.OffRack} {
		if got := MapLocality(s, s.Node(id), task); got != want {
			t.Errorf("MapLocality on %s = %q, want %q", id, got, want)
		}
	}
}
