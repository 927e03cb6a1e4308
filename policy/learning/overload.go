package learning

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/rmsidecar/rmsidecar/cluster"
)

// Metric names a node reading an overload rule tests.
type Metric string

// Metrics of overload rules.
const (
	MetricLoadPerCore       Metric = "load1_per_core"      // one-minute load average / vcores (§V-B)
	MetricLoad1             Metric = "load1"               // one-minute load average
	MetricCPUUtil           Metric = "cpu_util"            // 0..1
	MetricVCoresUsed        Metric = "vcores_used"         // used / registered vcores
	MetricMemoryUsed        Metric = "memory_used"         // used / registered memory
	MetricDiskBps           Metric = "disk_bps"            // read + write bytes/s
	MetricNetBps            Metric = "net_bps"             // rx + tx bytes/s
	MetricContainersPerCore Metric = "containers_per_core" // running containers / vcores
)

// Metrics lists the metrics an overload rule may test.
func Metrics() []Metric {
	return []Metric{MetricLoadPerCore, MetricLoad1, MetricCPUUtil, MetricVCoresUsed, MetricMemoryUsed,
		MetricDiskBps, MetricNetBps, MetricContainersPerCore}
}

// Rule is one overload rule: the node is overloaded when Metric > Above.
type Rule struct {
	Metric Metric  `yaml:"metric"`
	Above  float64 `yaml:"above"`
}

func (r Rule) validate() error {
	known := Metrics()
	if slices.Contains(known, r.Metric) {
		return nil
	}
	return fmt.Errorf("metric: unknown %q (known: %v)", r.Metric, known)
}

func (r Rule) String() string {
	return string(r.Metric) + ">" + strconv.FormatFloat(r.Above, 'g', -1, 64)
}

// Holds reports whether the rule finds n overloaded.
func (r Rule) Holds(n *cluster.Node) bool { return reading(n, r.Metric) > r.Above }

// reading returns a node's value of a metric from its latest heartbeat.
func reading(n *cluster.Node, m Metric) float64 {
	cores := float64(max(1, n.VCores))
	switch m {
	case MetricLoadPerCore:
		return n.Load1 / cores
	case MetricLoad1:
		return n.Load1
	case MetricCPUUtil:
		return n.CPUUtil
	case MetricVCoresUsed:
		return float64(n.UsedVCores) / cores
	case MetricMemoryUsed:
		return float64(n.UsedMemoryMB) / float64(max(1, n.MemoryMB))
	case MetricDiskBps:
		return n.DiskReadBps + n.DiskWriteBps
	case MetricNetBps:
		return n.NetRxBps + n.NetTxBps
	case MetricContainersPerCore:
		return float64(max(n.ReportedContainers, len(n.Running))) / cores
	}
	return 0
}

// Overloaded applies the rules: any rule holding means overloaded (§IV).
func Overloaded(rules []Rule, n *cluster.Node) bool {
	for _, r := range rules {
		if r.Holds(n) {
			return true
		}
	}
	return false
}
