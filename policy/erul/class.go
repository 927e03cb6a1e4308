package erul

import (
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

// replicaSet is where a map's input lives: the hosts (cluster.HostOf) and
// racks of its splits' replicas. known is false when the splits name no
// hosts.
type replicaSet struct {
	known bool
	hosts map[string]bool
	racks map[string]bool
}

func replicasOf(v cluster.View, t *cluster.Task) replicaSet {
	var r replicaSet
	for _, sp := range t.Splits {
		for _, h := range sp.Hosts {
			if !r.known {
				r = replicaSet{known: true, hosts: map[string]bool{}, racks: map[string]bool{}}
			}
			r.hosts[cluster.HostOf(h)] = true
			if rack := cluster.HostRack(v, h); rack != "" {
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
	case r.hosts[n.Host()]:
		return DataLocal, true
	case n.Rack != "" && r.racks[n.Rack]:
		return RackLocal, true
	}
	return OffRack, true
}

// attemptClass is the class of a running or finished attempt: the locality
// the scheduler reported in container.allocated, else derived from the
// splits, else Data-Local (what delay scheduling yields for most maps).
func attemptClass(v cluster.View, at *cluster.Attempt) TaskClass {
	t := at.Task
	if t.Kind == events.Reduce {
		return Reduce
	}
	if c, ok := classFromLocality(at.Locality); ok {
		return c
	}
	if n := v.Node(at.Node); n != nil {
		if c, ok := replicasOf(v, t).classOn(n); ok {
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
