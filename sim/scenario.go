package sim

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/rmsidecar/rmsidecar/sim/trace"
)

// Scenario is one simulation input: the cluster, the YARN settings, the
// straggler model and the workload (the scenario YAML of
// shared/interfaces.md). Zero values take the defaults in Defaults and
// docs/simulator.md.
type Scenario struct {
	// Name identifies the scenario in results.json (the file name).
	Name string
	Seed uint64

	Cluster    Cluster
	YARN       YARN
	Stragglers Stragglers
	Jobs       []trace.Job

	// PolicyTickS is the event-time interval between policy ticks; running
	// attempts report task.progress once per tick (default 5 s).
	PolicyTickS float64
	// HeartbeatEventS is how often node.heartbeat events are emitted to the
	// engine for nodes whose usage changed (default: PolicyTickS). The YARN
	// model itself allocates on every heartbeat_s.
	HeartbeatEventS float64
	// TimelinePoints bounds the running-tasks series in results (default 400).
	TimelinePoints int

	// PolicyArgs holds a section per policy name (policy_args: {samr: {hp: 0.2}}).
	PolicyArgs map[string]*yaml.Node
}

// Cluster is the simulated hardware.
type Cluster struct {
	Racks   int
	Nodes   []NodeGroup
	Network Network
	HDFS    HDFS
}

// NodeCount is the number of nodes over every node group.
func (c Cluster) NodeCount() int {
	n := 0
	for _, g := range c.Nodes {
		n += g.Count
	}
	return n
}

// NodeGroup is Count identical nodes.
type NodeGroup struct {
	Count       int
	VCores      int
	MemoryMB    int
	MapSpeed    float64 // map compute speed factor (1 = reference)
	ReduceSpeed float64 // reduce compute speed factor
	PowerIdleW  float64
	PowerMaxW   float64
	Load        Load
}

// Load is a node's background load series in runnable threads per core
// (the unit of the kernel's load average divided by the cores, so 1.5 is a
// node whose background alone keeps 1.5 threads per core runnable): every
// PeriodS a new level is drawn from N(Mean, Stddev), floored at 0; a task's
// speed is scaled by cpuShare(level), 1 - level but at least minCPUShare,
// and the level adds level x vcores to the node's heartbeat load1. PeriodS
// 0 keeps one level for the whole run.
type Load struct {
	Mean, Stddev, PeriodS float64
	// AvgS makes node.heartbeat load1 an exponential moving average of the
	// instantaneous load (running tasks' task_load plus background x vcores)
	// over AvgS seconds, as the kernel's one-minute load average (60). 0
	// reports the instantaneous load.
	AvgS float64
}

// Network is the fabric: every node has a full-duplex NIC, every rack an
// uplink to the core, both shared among their concurrent flows.
type Network struct {
	NodeGbps       float64
	RackUplinkGbps float64
	LatencyMS      float64
	// RackFetchPairs bounds the cost of huge shuffles: a job whose
	// min(maps, nodes) x reduces (about its number of per-node fetches)
	// exceeds it has its reducers fetch once per source rack instead of once
	// per source node (the source NICs are then not modelled). 0 takes
	// DefaultRackFetchPairs; negative never groups.
	RackFetchPairs int64
}

// HDFS is the block layout.
type HDFS struct {
	BlockMB     int
	Replication int
}

// Container is a container request size.
type Container struct {
	VCores   int
	MemoryMB int
}

// YARN holds the ResourceManager and MapReduce AM settings.
type YARN struct {
	HeartbeatS float64
	// NodeLocalDelay and RackLocalDelay are delay-scheduling waits in
	// heartbeat intervals: a job skips offers for up to NodeLocalDelay
	// heartbeats waiting for a node-local map, then up to RackLocalDelay more
	// for a rack-local one, then takes any node.
	// Negative values take the defaults (a Scenario built in code with
	// zeros gets no delay).
	NodeLocalDelay float64
	RackLocalDelay float64
	// Slowstart is the fraction of a job's maps that must finish before its
	// reducers are requested (mapreduce.job.reduce.slowstart.completedmaps).
	Slowstart       float64
	MapContainer    Container
	ReduceContainer Container
	// ParallelCopies is the number of concurrent shuffle fetches per reducer
	// (mapreduce.reduce.shuffle.parallelcopies).
	ParallelCopies int
	// ReduceRampup caps a job's running reducers, while it still has maps to
	// run, at this fraction of its running containers
	// (mapreduce.job.reduce.rampup.limit).
	ReduceRampup float64
	// TaskOverheadS is the container launch and JVM start time of every attempt.
	TaskOverheadS float64
	// SortMBps is the map-side sort/spill rate on a speed-1 node.
	SortMBps float64
	// Queues lists queue weights for the fair share across queues (a queue
	// not listed has weight 1).
	Queues map[string]float64
	// LoadBalance models Hadoop 1's FairScheduler load manager
	// (CapBasedLoadManager, the constraint DynamicMR's Slot PreScheduling
	// relaxes, §2.3): a node may run at most ceil(min(1, L) × its map
	// containers) maps, L being the cluster's pending plus running maps over
	// its map containers. A map a place hint names for the node is exempt
	// (pre-scheduled on an extra idle slot). Off by default: stock YARN has
	// no such cap.
	LoadBalance bool
	// Hadoop1Delay switches delay scheduling to Hadoop 1.2.1's FairScheduler
	// accounting: a job's wait grows only over heartbeats at which it was
	// offered a node and skipped (each adds the mean gap between the
	// cluster's heartbeats, HeartbeatS / nodes), not with wall time since
	// its first skip; the wait restarts at every map launch, and the
	// launched map's locality sets the level the next wait starts from
	// (node: rack after NodeLocalDelay, any after NodeLocalDelay +
	// RackLocalDelay; rack: any after RackLocalDelay; off-rack: any).
	Hadoop1Delay bool
	// Preassign lets a place hint that an Assigner emits at a node's
	// heartbeat for a map and that node pre-assign one of the node's free
	// containers to that map: it is launched before the queues are offered
	// the node (the YARN form of Slot PreScheduling, policy/prescheduling
	// mode yarn). Off: a place hint is a preference only.
	Preassign bool
	// SpawnReducers lets a reduce-binding hint's reducers field split its
	// partition among that many reduce tasks on the bound node, each taking
	// an equal share of every map's piece: the executor of TMaR's PRB
	// (Algorithm 4, N_R = ceil(size / R_split)), which spawns reducers at
	// run time. Stock MapReduce fixes the reducer count at submission and
	// cannot do this. Only a partition whose reducer has not started is
	// split, once, into at most MaxSpawnReducers.
	SpawnReducers bool
}

// Stragglers is the straggler model.
type Stragglers struct {
	// TaskProb is the chance an attempt is slowed by a factor drawn
	// uniformly from Slowdown.
	TaskProb    float64
	Slowdown    [2]float64
	NodeDegrade []Degrade
}

// Degrade slows node Node (0-based index in the expanded node list) by Factor
// (speed multiplier) between FromS and ToS.
type Degrade struct {
	Node   int
	FromS  float64
	ToS    float64
	Factor float64
}

// Defaults returned by defaulted values; documented in docs/simulator.md.
const (
	DefaultPolicyTickS = 5.0
	DefaultHeartbeatS  = 1.0
	// DefaultNodeLocalDelay and DefaultRackLocalDelay are the interface
	// example's delay-scheduling waits, in heartbeats.
	DefaultNodeLocalDelay = 1.0
	DefaultRackLocalDelay = 2.0
	DefaultSlowstart      = 0.05 // mapreduce.job.reduce.slowstart.completedmaps
	DefaultParallelCopies = 5    // mapreduce.reduce.shuffle.parallelcopies
	DefaultReduceRampup   = 0.5  // mapreduce.job.reduce.rampup.limit
	DefaultTaskOverheadS  = 1.0
	DefaultSortMBps       = 100.0
	DefaultNodeGbps       = 1.0
	DefaultUplinkGbps     = 10.0
	DefaultLatencyMS      = 0.2
	DefaultBlockMB        = 128
	DefaultReplication    = 3
	DefaultTimelinePoints = 400
	// DefaultRackFetchPairs: no FB-2009 job on 600 nodes reaches it (the
	// largest has 345 k node-reducer pairs); on 3,000 nodes the big jobs do.
	DefaultRackFetchPairs = 1_000_000
)

// withDefaults fills zero values. It never overrides what the user set.
func (sc *Scenario) withDefaults() {
	c := &sc.Cluster
	if c.Racks <= 0 {
		c.Racks = 1
	}
	for i := range c.Nodes {
		g := &c.Nodes[i]
		if g.MapSpeed == 0 {
			g.MapSpeed = 1
		}
		if g.ReduceSpeed == 0 {
			g.ReduceSpeed = 1
		}
		if g.PowerIdleW == 0 && g.PowerMaxW == 0 {
			g.PowerIdleW, g.PowerMaxW = 150, 350
		}
	}
	if c.Network.NodeGbps == 0 {
		c.Network.NodeGbps = DefaultNodeGbps
	}
	if c.Network.RackUplinkGbps == 0 {
		c.Network.RackUplinkGbps = DefaultUplinkGbps
	}
	if c.Network.RackFetchPairs == 0 {
		c.Network.RackFetchPairs = DefaultRackFetchPairs
	}
	if c.Network.LatencyMS == 0 {
		c.Network.LatencyMS = DefaultLatencyMS
	}
	if c.HDFS.BlockMB == 0 {
		c.HDFS.BlockMB = DefaultBlockMB
	}
	if c.HDFS.Replication == 0 {
		c.HDFS.Replication = DefaultReplication
	}
	y := &sc.YARN
	if y.NodeLocalDelay < 0 {
		y.NodeLocalDelay = DefaultNodeLocalDelay
	}
	if y.RackLocalDelay < 0 {
		y.RackLocalDelay = DefaultRackLocalDelay
	}
	if y.HeartbeatS == 0 {
		y.HeartbeatS = DefaultHeartbeatS
	}
	if y.Slowstart == 0 {
		y.Slowstart = DefaultSlowstart
	}
	if y.MapContainer == (Container{}) {
		y.MapContainer = Container{1, 1024}
	}
	if y.ReduceContainer == (Container{}) {
		y.ReduceContainer = Container{1, 2048}
	}
	if y.ParallelCopies == 0 {
		y.ParallelCopies = DefaultParallelCopies
	}
	if y.ReduceRampup == 0 {
		y.ReduceRampup = DefaultReduceRampup
	}
	if y.TaskOverheadS == 0 {
		y.TaskOverheadS = DefaultTaskOverheadS
	}
	if y.SortMBps == 0 {
		y.SortMBps = DefaultSortMBps
	}
	if sc.PolicyTickS == 0 {
		sc.PolicyTickS = DefaultPolicyTickS
	}
	if sc.HeartbeatEventS == 0 {
		sc.HeartbeatEventS = sc.PolicyTickS
	}
	if sc.TimelinePoints == 0 {
		sc.TimelinePoints = DefaultTimelinePoints
	}
	if sc.Stragglers.Slowdown == [2]float64{} {
		sc.Stragglers.Slowdown = [2]float64{2, 6}
	}
	for i := range sc.Jobs {
		j := &sc.Jobs[i]
		if j.Queue == "" {
			j.Queue = "default"
		}
		if j.Type == "" {
			j.Type = "job"
		}
		if j.User == "" {
			j.User = "sim"
		}
		if j.MapSPerBlock == 0 {
			j.MapSPerBlock = trace.DefaultMapSPer128MiB * float64(c.HDFS.BlockMB) / 128
		}
		if j.ReduceSPerGB == 0 {
			j.ReduceSPerGB = trace.DefaultReduceSPerGB
		}
	}
}

// validate checks what the YAML reader cannot see field by field.
func (sc *Scenario) validate() error {
	if len(sc.Cluster.Nodes) == 0 {
		return &ScenarioError{File: sc.Name, Key: "cluster.nodes", Msg: "at least one node group is required"}
	}
	if len(sc.Jobs) == 0 {
		return &ScenarioError{File: sc.Name, Key: "workload", Msg: "no jobs"}
	}
	n := 0
	for _, g := range sc.Cluster.Nodes {
		n += g.Count
		if g.VCores < sc.YARN.MapContainer.VCores || g.MemoryMB < sc.YARN.MapContainer.MemoryMB {
			return &ScenarioError{File: sc.Name, Key: "cluster.nodes", Msg: "a node group is smaller than the map container"}
		}
	}
	for i, d := range sc.Stragglers.NodeDegrade {
		if d.Node < 0 || d.Node >= n {
			return &ScenarioError{File: sc.Name, Key: fmt.Sprintf("stragglers.node_degrade[%d].node", i),
				Msg: fmt.Sprintf("must be a node index in [0, %d)", n)}
		}
	}
	return nil
}

// LoadScenario reads a scenario YAML file.
func LoadScenario(path string) (*Scenario, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("scenario: %w", err)
	}
	return ParseScenario(path, b)
}

// ParseScenario reads scenario YAML; name is the file name used in errors
// and to resolve a relative workload.trace.path.
func ParseScenario(name string, data []byte) (*Scenario, error) {
	var root yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&root); err != nil {
		return nil, &ScenarioError{File: name, Msg: strings.TrimPrefix(err.Error(), "yaml: ")}
	}
	d := &ydec{file: name}
	sc := &Scenario{Name: filepath.Base(name), Seed: 1, YARN: YARN{NodeLocalDelay: -1, RackLocalDelay: -1}}
	var doc *yaml.Node
	if len(root.Content) > 0 {
		doc = root.Content[0]
	}
	top := d.mapping(doc, "")
	top.uint64("seed", &sc.Seed)
	top.float("policy_tick_s", &sc.PolicyTickS, positive)
	top.float("heartbeat_event_s", &sc.HeartbeatEventS, positive)
	top.int("timeline_points", &sc.TimelinePoints, positive)
	readCluster(d, top.get("cluster"), &sc.Cluster)
	readYARN(d, top.get("yarn"), &sc.YARN)
	readStragglers(d, top.get("stragglers"), &sc.Stragglers)
	if pa := top.get("policy_args"); pa != nil {
		m := d.mapping(pa, "policy_args")
		sc.PolicyArgs = map[string]*yaml.Node{}
		if m.n != nil {
			for i := 0; i+1 < len(m.n.Content); i += 2 {
				sc.PolicyArgs[m.n.Content[i].Value] = m.n.Content[i+1]
			}
		}
	}
	var tr *traceRef
	if w := top.get("workload"); w != nil {
		tr = readWorkload(d, w, sc)
	} else if doc != nil {
		d.fail(doc, "workload", "required")
	}
	top.done()
	if d.err != nil {
		return nil, d.err
	}
	if tr != nil {
		path := tr.path
		if !filepath.IsAbs(path) {
			path = filepath.Join(filepath.Dir(name), path)
		}
		jobs, err := readTraceOpts(tr.format, path, TraceOptions{Nodes: sc.Cluster.NodeCount(), TraceNodes: tr.traceNodes, FromS: tr.fromS,
			ToS: tr.toS, LimitJobs: tr.limit}, int64(sc.Cluster.HDFS.BlockMB)<<20)
		if err != nil {
			return nil, &ScenarioError{File: name, Line: tr.line, Key: "workload.trace", Msg: err.Error()}
		}
		sc.Jobs = append(sc.Jobs, jobs...)
	}
	sc.withDefaults()
	if err := sc.validate(); err != nil {
		return nil, err
	}
	return sc, nil
}

type traceRef struct {
	format, path string
	limit, line  int
	traceNodes   int
	fromS, toS   float64
}

func readCluster(d *ydec, n *yaml.Node, c *Cluster) {
	m := d.mapping(n, "cluster")
	if n == nil {
		d.fail(nil, "cluster", "required")
		return
	}
	m.int("racks", &c.Racks, positive)
	for i, gn := range m.seq("nodes") {
		path := fmt.Sprintf("cluster.nodes[%d]", i)
		g := d.mapping(gn, path)
		var ng NodeGroup
		ng.Count = 1
		g.int("count", &ng.Count, positive)
		g.int("vcores", &ng.VCores, positive)
		g.int("memory_mb", &ng.MemoryMB, positive)
		g.float("map_speed", &ng.MapSpeed, positive)
		g.float("reduce_speed", &ng.ReduceSpeed, positive)
		g.float("power_idle_w", &ng.PowerIdleW, nonNegative)
		g.float("power_max_w", &ng.PowerMaxW, nonNegative)
		if ln := g.get("load"); ln != nil {
			l := d.mapping(ln, path+".load")
			l.float("mean", &ng.Load.Mean, nonNegative)
			l.float("stddev", &ng.Load.Stddev, nonNegative)
			l.float("period_s", &ng.Load.PeriodS, nonNegative)
			l.float("avg_s", &ng.Load.AvgS, nonNegative)
			l.done()
		}
		if g.get("vcores") == nil {
			d.fail(gn, path+".vcores", "required")
		}
		if g.get("memory_mb") == nil {
			d.fail(gn, path+".memory_mb", "required")
		}
		if ng.PowerMaxW < ng.PowerIdleW {
			d.fail(g.get("power_max_w"), path+".power_max_w", "must be >= power_idle_w")
		}
		g.done()
		c.Nodes = append(c.Nodes, ng)
	}
	if nw := m.get("network"); nw != nil {
		w := d.mapping(nw, "cluster.network")
		w.float("node_gbps", &c.Network.NodeGbps, positive)
		w.float("rack_uplink_gbps", &c.Network.RackUplinkGbps, positive)
		w.float("latency_ms", &c.Network.LatencyMS, nonNegative)
		var pairs float64
		w.float("rack_fetch_pairs", &pairs, nil)
		c.Network.RackFetchPairs = int64(pairs)
		w.done()
	}
	if hn := m.get("hdfs"); hn != nil {
		h := d.mapping(hn, "cluster.hdfs")
		h.int("block_mb", &c.HDFS.BlockMB, positive)
		h.int("replication", &c.HDFS.Replication, positive)
		h.done()
	}
	m.done()
}

func readYARN(d *ydec, n *yaml.Node, y *YARN) {
	if n == nil {
		return
	}
	m := d.mapping(n, "yarn")
	m.float("heartbeat_s", &y.HeartbeatS, positive)
	m.float("node_local_delay", &y.NodeLocalDelay, nonNegative)
	m.float("rack_local_delay", &y.RackLocalDelay, nonNegative)
	m.float("slowstart", &y.Slowstart, unit)
	m.int("parallel_copies", &y.ParallelCopies, positive)
	m.float("reduce_rampup", &y.ReduceRampup, unit)
	m.float("task_overhead_s", &y.TaskOverheadS, nonNegative)
	m.float("sort_mbps", &y.SortMBps, positive)
	m.bool("load_balance", &y.LoadBalance)
	m.bool("hadoop1_delay", &y.Hadoop1Delay)
	m.bool("preassign", &y.Preassign)
	m.bool("spawn_reducers", &y.SpawnReducers)
	for _, k := range []struct {
		key string
		dst *Container
	}{{"map_container", &y.MapContainer}, {"reduce_container", &y.ReduceContainer}} {
		if cn := m.get(k.key); cn != nil {
			c := d.mapping(cn, "yarn."+k.key)
			c.int("vcores", &k.dst.VCores, positive)
			c.int("memory_mb", &k.dst.MemoryMB, positive)
			c.done()
		}
	}
	if qn := m.get("queues"); qn != nil {
		q := d.mapping(qn, "yarn.queues")
		y.Queues = map[string]float64{}
		if q.n != nil {
			for i := 0; i+1 < len(q.n.Content); i += 2 {
				name := q.n.Content[i].Value
				var w float64
				q.float(name, &w, positive)
				y.Queues[name] = w
			}
		}
	}
	m.done()
}

func readStragglers(d *ydec, n *yaml.Node, s *Stragglers) {
	if n == nil {
		return
	}
	m := d.mapping(n, "stragglers")
	m.float("task_prob", &s.TaskProb, unit)
	if sl := m.seq("slowdown"); sl != nil {
		if len(sl) != 2 {
			d.fail(m.get("slowdown"), "stragglers.slowdown", "must be [min, max]")
		} else {
			for i := range 2 {
				var f float64
				if _, err := fmt.Sscan(sl[i].Value, &f); err != nil || f < 1 {
					d.fail(sl[i], fmt.Sprintf("stragglers.slowdown[%d]", i), "must be a number >= 1")
				}
				s.Slowdown[i] = f
			}
			if s.Slowdown[1] < s.Slowdown[0] {
				d.fail(sl[1], "stragglers.slowdown[1]", "must be >= slowdown[0]")
			}
		}
	}
	for i, dn := range m.seq("node_degrade") {
		path := fmt.Sprintf("stragglers.node_degrade[%d]", i)
		dm := d.mapping(dn, path)
		var g Degrade
		g.Factor = 1
		g.ToS = math.Inf(1)
		dm.int("node", &g.Node, nonNegative)
		dm.float("from_s", &g.FromS, nonNegative)
		dm.float("to_s", &g.ToS, nonNegative)
		dm.float("factor", &g.Factor, positive)
		if g.ToS < g.FromS {
			d.fail(dm.get("to_s"), path+".to_s", "must be >= from_s")
		}
		dm.done()
		s.NodeDegrade = append(s.NodeDegrade, g)
	}
	m.done()
}

func readWorkload(d *ydec, n *yaml.Node, sc *Scenario) *traceRef {
	m := d.mapping(n, "workload")
	var tr *traceRef
	if tn := m.get("trace"); tn != nil {
		t := d.mapping(tn, "workload.trace")
		tr = &traceRef{line: tn.Line}
		t.str("format", &tr.format)
		t.str("path", &tr.path)
		t.int("limit_jobs", &tr.limit, nonNegative)
		t.int("trace_nodes", &tr.traceNodes, nonNegative)
		t.float("from_s", &tr.fromS, nonNegative)
		t.float("to_s", &tr.toS, nonNegative)
		if tr.format != "swim" && tr.format != "rumen" && tr.format != "sls" {
			d.fail(t.get("format"), "workload.trace.format", "must be swim, rumen or sls, got %q", tr.format)
		}
		if tr.path == "" {
			d.fail(tn, "workload.trace.path", "required")
		}
		t.done()
	}
	for i, jn := range m.seq("jobs") {
		path := fmt.Sprintf("workload.jobs[%d]", i)
		jm := d.mapping(jn, path)
		j := trace.Job{Name: fmt.Sprintf("job-%d", i), ShuffleRatio: -1}
		jm.str("name", &j.Name)
		jm.str("type", &j.Type)
		jm.str("queue", &j.Queue)
		jm.str("user", &j.User)
		jm.float("submit_s", &j.SubmitS, nonNegative)
		var inGB, inMB, shufGB, outGB float64
		jm.float("input_gb", &inGB, nonNegative)
		jm.float("input_mb", &inMB, nonNegative)
		jm.float("shuffle_gb", &shufGB, nonNegative)
		jm.float("output_gb", &outGB, nonNegative)
		j.InputBytes = int64(inGB*(1<<30) + inMB*(1<<20))
		j.ShuffleBytes = int64(shufGB * (1 << 30))
		j.OutputBytes = int64(outGB * (1 << 30))
		jm.int("maps", &j.Maps, nonNegative)
		jm.int("reduces", &j.Reduces, nonNegative)
		jm.int("priority", &j.Priority, nil)
		jm.float("map_s_per_block", &j.MapSPerBlock, positive)
		jm.float("reduce_s_per_gb", &j.ReduceSPerGB, nonNegative)
		jm.float("shuffle_ratio", &j.ShuffleRatio, nonNegative)
		jm.float("skew", &j.Skew, nonNegative)
		jm.float("task_load", &j.TaskLoad, positive)
		if v, ok := jm.scalar("input_path"); ok {
			// Jobs naming the same path read one dataset (docs/simulator.md).
			if err := trace.CheckInputPath(v.Value); err != nil {
				d.fail(v, path+".input_path", "%v", err)
			}
			j.InputPath = v.Value
		}
		if fn := jm.get("features"); fn != nil {
			// The learning scheduler's demand features, 1..10 each.
			fm := d.mapping(fn, path+".features")
			f := &trace.Features{}
			in10 := func(v float64) string {
				if v < 1 || v > 10 {
					return "must be in 1..10"
				}
				return ""
			}
			fm.int("cpu", &f.CPU, in10)
			fm.int("memory", &f.Memory, in10)
			fm.int("disk", &f.Disk, in10)
			fm.int("network", &f.Network, in10)
			fm.done()
			j.Features = f
		}
		if j.InputBytes <= 0 && j.Maps <= 0 {
			d.fail(jn, path+".input_gb", "a job needs input_gb, input_mb or maps")
		}
		if j.ShuffleRatio < 0 {
			// The scenario example's sort: map output = input unless told.
			j.ShuffleRatio = 1
		}
		jm.done()
		sc.Jobs = append(sc.Jobs, j)
	}
	if tr == nil && len(sc.Jobs) == 0 {
		d.fail(n, "workload", "needs jobs or a trace")
	}
	m.done()
	return tr
}
