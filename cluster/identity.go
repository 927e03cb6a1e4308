package cluster

import (
	"slices"
	"strings"

	"github.com/rmsidecar/rmsidecar/events"
)

// Node identity. YARN names a node by its NodeManager id, "host:port"
// ("nm1.example:8041"); HDFS names the replicas of a split by DataNode host
// ("nm1.example"), without a port. The simulator and hand-written scenarios
// use bare names ("n1") for both. Everything that asks "which host is this
// node" or "is this input local to this node" asks it here.

// HostOf is the host of a node id: "nm1.example:8041" -> "nm1.example",
// "[::1]:8041" -> "::1"; an id without a port is its own host ("n1" -> "n1",
// "::1" -> "::1").
func HostOf(id string) string {
	host, _ := splitID(id)
	return host
}

// PortOf is the port of a node id, "" when it has none.
func PortOf(id string) string {
	_, port := splitID(id)
	return port
}

// splitID splits a node id into host and port. Unlike net.SplitHostPort it
// accepts ids without a port, and a bare IPv6 address is all host.
func splitID(id string) (host, port string) {
	if strings.HasPrefix(id, "[") {
		if end := strings.IndexByte(id, ']'); end > 0 {
			if rest := id[end+1:]; strings.HasPrefix(rest, ":") {
				return id[1:end], rest[1:]
			}
			return id[1:end], ""
		}
		return id, ""
	}
	i := strings.LastIndexByte(id, ':')
	if i <= 0 || strings.IndexByte(id[:i], ':') >= 0 {
		return id, "" // no port, or an IPv6 address without brackets
	}
	return id[:i], id[i+1:]
}

// Host is the host the node runs on (HostOf its id).
func (n *Node) Host() string { return HostOf(n.ID) }

// Port is the NodeManager port of the node's id, "" without one.
func (n *Node) Port() string { return PortOf(n.ID) }

// OnHost reports whether host (a split's replica host, or a node id) names
// the host this node runs on. A host with a port names one NodeManager (a
// model.host_aliases target where several share a machine): only that node
// is on it.
func (n *Node) OnHost(host string) bool {
	if host == n.ID {
		return true
	}
	if PortOf(host) != "" {
		return false
	}
	return HostOf(host) == n.Host()
}

// HostRack is the rack of a host (a split's replica host, or a node id):
// the rack of the first node seen on it, "" when no node of the model runs
// there.
func HostRack(v View, host string) string {
	if n := v.Node(host); n != nil {
		return n.Rack
	}
	if ns := v.HostNodes(HostOf(host)); len(ns) > 0 {
		return ns[0].Rack
	}
	return ""
}

// SplitHosts lists the distinct replica hosts of a task's splits, in order
// of first mention (nil for a reduce, or a map whose splits name none).
func SplitHosts(t *Task) []string {
	var out []string
	for _, s := range t.Splits {
		for _, h := range s.Hosts {
			if !slices.Contains(out, h) {
				out = append(out, h)
			}
		}
	}
	return out
}

// Locality is the locality a map whose input is on hosts would have on node
// n: node-local when one of the hosts is n's, rack-local when one is on a
// node of n's rack (n having a rack), else off-rack; "" when n is nil or
// hosts is empty (nothing known).
func Locality(v View, n *Node, hosts []string) events.Locality {
	if n == nil || len(hosts) == 0 {
		return ""
	}
	loc := events.OffRack
	for _, h := range hosts {
		if loc = better(loc, hostLocality(v, n, h)); loc == events.NodeLocal {
			break
		}
	}
	return loc
}

// TaskLocality is Locality for the split hosts of task t.
func TaskLocality(v View, n *Node, t *Task) events.Locality {
	if n == nil {
		return ""
	}
	loc := events.Locality("")
	for _, s := range t.Splits {
		for _, h := range s.Hosts {
			if loc = better(loc, hostLocality(v, n, h)); loc == events.NodeLocal {
				return loc
			}
		}
	}
	return loc
}

// hostLocality is the locality on node n of input held on host h.
func hostLocality(v View, n *Node, h string) events.Locality {
	switch {
	case n.OnHost(h):
		return events.NodeLocal
	case n.Rack != "" && HostRack(v, h) == n.Rack:
		return events.RackLocal
	}
	return events.OffRack
}

// better is the closer of two localities ("" being unknown).
func better(a, b events.Locality) events.Locality {
	rank := func(l events.Locality) int {
		switch l {
		case events.NodeLocal:
			return 3
		case events.RackLocal:
			return 2
		case events.OffRack:
			return 1
		}
		return 0
	}
	if rank(b) > rank(a) {
		return b
	}
	return a
}
