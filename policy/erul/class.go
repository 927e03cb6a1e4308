package erul

import (
	"strings"

	"github.com/rmsidecar/rmsidecar/cluster"
	"github.com/rmsidecar/rmsidecar/events"
)

// TaskClass is the type of a task for priorities and capabilities (§3.1):
// maps split by where their data is, reduces form one class.
type TaskClass int

// Task classes, in the order candidates are considered (§3.5, §3.6):
// Off-Rack maps run longest, so they are looked at first.
const (
	OffRack TaskClass = iota
	RackLocal
	DataLocal
	Reduce
	numClasses
)

var classNames = [numClasses]string{"off-rack", "rack-local", "data-local", "reduce"}

func (c TaskClass) String() string {
	if c < 0 || c >= numClasses {
		return "unknown"
	}
	return classNames[c]
}

func (c TaskClass) isMap() bool { return c != Reduce }

func classFromLocality(l events.Locality) (TaskClass, bool) {
	switch l {
	case events.NodeLocal:
		return DataLocal, true
	case events.RackLocal:
		return RackLocal, true
	case events.OffRack:
		return OffRack, true
	}
	return 0, false
}

// hostOf strips a NodeManager port ("host:8041" -> "host"): split hosts name
// DataNodes by host.
func hostOf(node string) string {
	if i := strings.LastIndexByte(node, ':'); i > 0 {
		return node[:i]
	}
	return node
}

// rackIndex finds the rack of a split host, which may be a node id or the
// host part of one. It is rebuilt when nodes join; a node moving between
// racks is rare and is seen at the next join.
type rackIndex struct {
	nodes  int
	byHost map[string]string
}

func (ri *rackIndex) rack(v cluster.View, host string) string {
	if n := v.Node(host); n != nil {
		return n.Rack
	}
	if nodes := v.Nodes(); ri.byHost == nil || ri.nodes != len(nodes) {
		ri.nodes = len(nodes)
		ri.byHost = make(map[string]string, len(nodes))
		for _, n := range nodes {
			ri.byHost[hostOf(n.ID)] = n.Rack
		}
	}
	return ri.byHost[host]
}

// replicaSet is where a map's input lives: the hosts and racks of its
// splits' replicas. known is false when the splits name no hosts.
type replicaSet struct {
	known bool
	hosts map[string]bool
	racks map[string]bool
}

func replicasOf(v cluster.View, ri *rackIndex, t *cluster.Task) replicaSet {
	var r replicaSet
	for _, sp := range t.Splits {
		for _, h := range sp.Hosts {
			if !r.known {
				r = replicaSet{known: true, hosts: map[string]bool{}, racks: map[string]bool{}}
			}
			r.hosts[h] = true
			if rack := ri.rack(v, h); rack != "" {
				r.racks[rack] = true
			}
		}
	}
	return r
}

// classOn is the class a map would have on node n (§3.1): a replica on n is
// Data-Local, one on n's rack is Rack-Local, else Off-Rack.
func (r replicaSet) classOn(n *cluster.Node) (TaskClass, bool) {
	switch {
	case !r.known:
		return 0, false
	case r.hosts[n.ID] || r.hosts[hostOf(n.ID)]:
		return DataLocal, true
	case n.Rack != "" && r.racks[n.Rack]:
		return RackLocal, true
	}
	return OffRack, true
}

// attemptClass is the class of a running or finished attempt: the locality
// the scheduler reported in container.allocated, else derived from the
// splits, else Data-Local (what delay scheduling yields for most maps).
func attemptClass(v cluster.View, ri *rackIndex, at *cluster.Attempt) TaskClass {
	t := at.Task
	if t.Kind == events.Reduce {
		return Reduce
	}
	if c, ok := classFromLocality(at.Locality); ok {
		return c
	}
	if n := v.Node(at.Node); n != nil {
		if c, ok := replicasOf(v, ri, t).classOn(n); ok {
			return c
		}
	}
	return DataLocal
}

// dataMB is Data_total of a task: its splits' length in MB, or the default
// split size when the splits carry no length.
func dataMB(t *cluster.Task, defaultMB float64) float64 {
	var b int64
	for _, sp := range t.Splits {
		b += sp.Length
	}
	if b <= 0 {
		return defaultMB
	}
	return float64(b) / (1 << 20)
}
