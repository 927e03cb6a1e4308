package learning

import (
	"strings"
	"testing"

	"github.com/rmsidecar/rmsidecar/cluster"
)

func TestOverloadRules(t *testing.T) {
	quad := func(mod func(*cluster.Node)) *cluster.Node {
		n := &cluster.Node{ID: "n1", VCores: 4, MemoryMB: 4096}
		mod(n)
		return n
	}
	paper := []Rule{{Metric: MetricLoadPerCore, Above: 1}}
	for _, c := range []struct {
		name  string
		rules []Rule
		node  *cluster.Node
		want  bool
	}{
		{"load 4 on 4 cores is at target, not over", paper, quad(func(n *cluster.Node) { n.Load1 = 4 }), false},
		{"load 4.4 on 4 cores is over", paper, quad(func(n *cluster.Node) { n.Load1 = 4.4 }), true},
		{"ratio 2 target", []Rule{{MetricLoadPerCore, 2}}, quad(func(n *cluster.Node) { n.Load1 = 6 }), false},
		{"cpu rule", []Rule{{MetricCPUUtil, 0.9}}, quad(func(n *cluster.Node) { n.CPUUtil = 0.95 }), true},
		{"any rule holds", []Rule{{MetricLoadPerCore, 1}, {MetricCPUUtil, 0.9}},
			quad(func(n *cluster.Node) { n.Load1, n.CPUUtil = 1, 0.91 }), true},
		{"no rule holds", []Rule{{MetricLoadPerCore, 1}, {MetricCPUUtil, 0.9}},
			quad(func(n *cluster.Node) { n.Load1, n.CPUUtil = 1, 0.5 }), false},
		{"memory", []Rule{{MetricMemoryUsed, 0.9}}, quad(func(n *cluster.Node) { n.UsedMemoryMB = 4000 }), true},
		{"vcores", []Rule{{MetricVCoresUsed, 0.75}}, quad(func(n *cluster.Node) { n.UsedVCores = 3 }), false},
		{"network", []Rule{{MetricNetBps, 1e8}}, quad(func(n *cluster.Node) { n.NetRxBps, n.NetTxBps = 6e7, 6e7 }), true},
		{"disk", []Rule{{MetricDiskBps, 1e8}}, quad(func(n *cluster.Node) { n.DiskReadBps = 5e7 }), false},
		{"containers per core", []Rule{{MetricContainersPerCore, 1}},
			quad(func(n *cluster.Node) { n.ReportedContainers = 5 }), true},
		{"raw load1", []Rule{{MetricLoad1, 3}}, quad(func(n *cluster.Node) { n.Load1 = 3.5 }), true},
	} {
		if got := Overloaded(c.rules, c.node); got != c.want {
			t.Errorf("%s: Overloaded = %v, want %v", c.name, got, c.want)
		}
	}
}

func TestConfigValidate(t *testing.T) {
	c := DefaultConfig()
	if err := c.validate(); err != nil {
		t.Fatal(err)
	}
	if len(c.Overload) != 1 || c.Overload[0] != (Rule{MetricLoadPerCore, 1}) {
		t.Fatalf("default overload rule = %v, want load1_per_core > target", c.Overload)
	}
	for _, bad := range []struct {
		mod func(*Config)
		key string
	}{
		{func(c *Config) { c.Target = 0 }, "target"},
		{func(c *Config) { c.TasksPerHeartbeat = 0 }, "tasks_per_heartbeat"},
		{func(c *Config) { c.Alpha = 0 }, "alpha"},
		{func(c *Config) { c.Explore = 2 }, "explore"},
		{func(c *Config) { c.Utility = "lottery" }, "utility"},
		{func(c *Config) { c.Overload = []Rule{{Metric: "temperature", Above: 1}} }, "overload[0]"},
		{func(c *Config) { c.AccuracyWindow = 0 }, "accuracy_window"},
	} {
		c := DefaultConfig()
		bad.mod(&c)
		err := c.validate()
		if err == nil || !strings.HasPrefix(err.Error(), bad.key) {
			t.Errorf("want an error naming %s, got %v", bad.key, err)
		}
	}
}

func TestFeatureBinsInRange(t *testing.T) {
	f := Features{Job: JobFeatures{CPU: 11, Memory: 0, Disk: 5, Network: 10}, Reduce: true, VCores: 4, MemoryMB: 4096,
		CPUMHz: 2400, LoadPerCore: 9, CPUUtil: 1, VCoresUsed: 1.5, MemoryUsed: 0.5, DiskBps: 2e9, NetBps: 5e5,
		ContainersPerCore: 0.5, LoadTrend: -3}
	b := f.Bins(1)
	if len(featureBins()) != NumFeatures {
		t.Fatalf("%d histograms for %d features", len(featureBins()), NumFeatures)
	}
	if len(b) != NumFeatures || len(f.Vector(1)) != NumFeatures {
		t.Fatalf("got %d bins, %d components, want %d", len(b), len(f.Vector(1)), NumFeatures)
	}
	if err := NewNaiveBayes(featureBins(), 1).check(b); err != nil {
		t.Fatal(err)
	}
	want := []int{9, 0, 4, 9, 1, 2, 2, 4, 20, 10, 10, 5, 5, 1, 5, 0}
	for i := range want {
		if b[i] != want[i] {
			t.Errorf("bin %d = %d, want %d (all %v)", i, b[i], want[i], b)
		}
	}
	// Load bins are relative to the target: 2 per core at target 2 is the
	// same bin as 1 per core at target 1.
	if (&Features{LoadPerCore: 2}).Bins(2)[8] != (&Features{LoadPerCore: 1}).Bins(1)[8] {
		t.Error("load bin not relative to the target")
	}
}

func TestNodeFeaturesTrend(t *testing.T) {
	n := &cluster.Node{VCores: 4, Load1: 3, History: cluster.HistoryOf(cluster.LoadSample{TS: 1, Load1: 2}, cluster.LoadSample{TS: 2, Load1: 3})}
	f := nodeFeatures(n)
	if f.LoadPerCore != 0.75 || f.LoadTrend != 0.25 {
		t.Fatalf("load per core %g trend %g, want 0.75 0.25", f.LoadPerCore, f.LoadTrend)
	}
}
