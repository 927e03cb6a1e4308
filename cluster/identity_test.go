package cluster

import (
	"testing"

	"github.com/rmsidecar/rmsidecar/events"
)

func TestHostOfAndPortOf(t *testing.T) {
	for _, c := range []struct{ id, host, port string }{
		{"nm1.example:8041", "nm1.example", "8041"},
		{"nm1.example", "nm1.example", ""},
		{"n1", "n1", ""},
		{"10.0.0.7:45454", "10.0.0.7", "45454"},
		{"[2001:db8::7]:8041", "2001:db8::7", "8041"},
		{"[2001:db8::7]", "2001:db8::7", ""},
		{"2001:db8::7", "2001:db8::7", ""},
		{"", "", ""},
		{":8041", ":8041", ""},
	} {
		if h, p := HostOf(c.id), PortOf(c.id); h != c.host || p != c.port {
			t.Errorf("HostOf/PortOf(%q) = %q, %q; want %q, %q", c.id, h, p, c.host, c.port)
		}
	}
	n := &Node{ID: "nm1.example:8041"}
	if n.Host() != "nm1.example" || n.Port() != "8041" {
		t.Errorf("node %s: host %q port %q", n.ID, n.Host(), n.Port())
	}
}

// identityState is two racks of real NodeManager ids (host:8041) and a
// third rack of bare names, as the simulator writes them.
func identityState(t *testing.T) *State {
	t.Helper()
	s := New()
	for i, n := range []struct{ id, rack string }{
		{"nm1.example:8041", "/r1"}, {"nm2.example:8041", "/r1"},
		{"nm3.example:8041", "/r2"}, {"n4", "/r3"}, {"n5", "/r3"},
	} {
		s.Apply(&events.Event{V: 1, ID: "r" + n.id, Type: events.NodeRegistered, TS: int64(1000 + i), Node: n.id, Rack: n.rack,
			VCores: 8, MemoryMB: 8192})
	}
	return s
}

func TestLocalityWithPortedIDs(t *testing.T) {
	s := identityState(t)
	node := func(id string) *Node {
		n := s.Node(id)
		if n == nil {
			t.Fatalf("no node %s", id)
		}
		return n
	}
	cases := []struct {
		name  string
		node  string
		hosts []string
		want  events.Locality
	}{
		{"split host is the node's host", "nm1.example:8041", []string{"nm3.example", "nm1.example"}, events.NodeLocal},
		{"split host names the node id", "nm1.example:8041", []string{"nm1.example:8041"}, events.NodeLocal},
		{"replica on a rack neighbour", "nm2.example:8041", []string{"nm1.example"}, events.RackLocal},
		{"replica on another rack", "nm3.example:8041", []string{"nm1.example", "nm2.example"}, events.OffRack},
		{"unknown host", "nm1.example:8041", []string{"dn9.example"}, events.OffRack},
		{"bare names", "n4", []string{"n4"}, events.NodeLocal},
		{"bare names, rack", "n5", []string{"n4"}, events.RackLocal},
		{"no hosts", "n5", nil, ""},
	}
	for _, c := range cases {
		n := node(c.node)
		if got := Locality(s, n, c.hosts); got != c.want {
			t.Errorf("%s: Locality(%s, %v) = %q, want %q", c.name, c.node, c.hosts, got, c.want)
		}
		task := &Task{Kind: events.Map}
		for _, h := range c.hosts {
			task.Splits = append(task.Splits, events.Split{Hosts: []string{h}})
		}
		if got := TaskLocality(s, n, task); got != c.want {
			t.Errorf("%s: TaskLocality = %q, want %q", c.name, got, c.want)
		}
	}
	if got := Locality(s, nil, []string{"n4"}); got != "" {
		t.Errorf("nil node: %q", got)
	}
	if r := HostRack(s, "nm3.example"); r != "/r2" {
		t.Errorf("HostRack(nm3.example) = %q", r)
	}
	if r := HostRack(s, "nm3.example:8041"); r != "/r2" {
		t.Errorf("HostRack(nm3.example:8041) = %q", r)
	}
	if ns := s.HostNodes("nm2.example"); len(ns) != 1 || ns[0].ID != "nm2.example:8041" {
		t.Errorf("HostNodes(nm2.example) = %v", ns)
	}
	// The host index survives a checkpoint.
	r, err := Restore(s.Checkpoint())
	if err != nil {
		t.Fatal(err)
	}
	if ns := r.HostNodes("nm2.example"); len(ns) != 1 || ns[0].ID != "nm2.example:8041" {
		t.Errorf("restored HostNodes(nm2.example) = %v", ns)
	}
}

// TestNodeIDSplitHostNamesOneNodeManager: where several NodeManagers share a
// machine (a minicluster; model.host_aliases pointing at host:port), a split
// host with a port is local to that NodeManager only, a bare host to all of
// them.
func TestNodeIDSplitHostNamesOneNodeManager(t *testing.T) {
	s := New()
	for i, id := range []string{"localhost:40001", "localhost:40002"} {
		s.Apply(&events.Event{V: 1, ID: "r" + id, Type: events.NodeRegistered, TS: int64(1000 + i), Node: id, Rack: "/default-rack",
			VCores: 8, MemoryMB: 8192})
	}
	a, b := s.Node("localhost:40001"), s.Node("localhost:40002")
	for _, c := range []struct {
		host       string
		onA, onB   bool
		locA, locB events.Locality
	}{
		{"localhost:40001", true, false, events.NodeLocal, events.RackLocal},
		{"localhost:40002", false, true, events.RackLocal, events.NodeLocal},
		{"localhost", true, true, events.NodeLocal, events.NodeLocal},
	} {
		if a.OnHost(c.host) != c.onA || b.OnHost(c.host) != c.onB {
			t.Errorf("%s: on 40001 %v, on 40002 %v; want %v, %v", c.host, a.OnHost(c.host), b.OnHost(c.host), c.onA, c.onB)
		}
		if la, lb := Locality(s, a, []string{c.host}), Locality(s, b, []string{c.host}); la != c.locA || lb != c.locB {
			t.Errorf("%s: locality %q, %q; want %q, %q", c.host, la, lb, c.locA, c.locB)
		}
	}
}
