package tmar

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/rs/zerolog"

	"github.com/rmsidecar/rmsidecar/cluster"
	"github.com/rmsidecar/rmsidecar/events"
	"github.com/rmsidecar/rmsidecar/policy"
)

// Registered names.
const (
	Name      = "tmar"
	NamePower = "tmar-power"
)

// gib is the GB of Reduce_Matrix (seconds per GB of reducer input): 2^30
// bytes, as the simulator's reduce_s_per_gb and Hadoop's sizes count it; at
// 1e9 every reducer's execution was planned 7 % long.
const gib = 1 << 30

// profileNS is the profiles namespace of the learned matrices.
const profileNS = "tmar"

// Config holds TMaR's parameters. The paper gives no value for R_split; the
// default is one reducer per GiB of partition, Hadoop's usual reducer input.
type Config struct {
	RSplitBytes           int64   `yaml:"r_split_bytes"`
	BandwidthBps          float64 `yaml:"bandwidth_bps"`            // C_B within a rack (paper: 1 Gbps = 125 MB/s)
	CrossRackBandwidthBps float64 `yaml:"cross_rack_bandwidth_bps"` // C_B across racks
	LatencyMS             float64 `yaml:"latency_ms"`               // L
	DefaultMapS           float64 `yaml:"default_map_s"`            // Map_Matrix entry before anything is learned, at ReferenceMHz
	DefaultReduceSPerGB   float64 `yaml:"default_reduce_s_per_gb"`  // Reduce_Matrix entry before anything is learned
	ReferenceMHz          float64 `yaml:"reference_mhz"`            // scales defaults by a node's cpu_mhz
	Alpha                 float64 `yaml:"alpha"`                    // weight of a new observation in the matrices
	ContainerVCores       int     `yaml:"container_vcores"`         // cores one task uses
	TopNodes              int     `yaml:"top_nodes"`                // nodes listed in a place hint (1 when strict)
	// Strict makes the map stage's choice a reservation: the place hint names
	// only the chosen node and is strict, so the task waits for that node's
	// core as Algorithm 1 planned instead of taking the first free one.
	Strict bool `yaml:"strict"`
	// SpawnReducers: the executor runs N_R = ceil(size / R_split) reducers
	// per partition, as the paper's does. Stock MapReduce (and the
	// simulator) runs one reducer per partition, the job's fixed count, so
	// by default PRB's finish times are those of that one reducer (N_R is
	// still reported in the hint).
	SpawnReducers bool `yaml:"spawn_reducers"`
	// SharedLinks times the shuffle as it runs (ours, BindPartitionsShared):
	// a reducer fetches from its launch, and concurrent transfers share the
	// sender's and the receiver's NIC (bandwidth_bps each way).
	SharedLinks bool `yaml:"shared_links"`
	// ProtectLinks (ours, with shared_links): a node's offer for a partition
	// is the later of the partition's finish there and the finish of the
	// reducers already bound that its transfers would slow down
	// (SharedLinks.Protect), so a small partition does not win a node by
	// taking link share from a larger one.
	ProtectLinks bool `yaml:"protect_links"`
	// Replan runs Algorithm 1 again on every tick over the planned maps
	// that have not started, with the cores and Map_Matrix of that moment.
	Replan bool `yaml:"replan"`
	// TieS: for tmar-power, finish times within this many seconds of the
	// earliest count as tied (Algorithm 2; ours, see PowerTie).
	TieS float64 `yaml:"tie_s"`
	// TieMakespan: for tmar-power, a finish no later than the plan's current
	// makespan also ties (ours, see PowerTie.WithinMakespan).
	TieMakespan bool `yaml:"tie_makespan"`
	// TaskOverheadS is the fixed time every attempt pays before its work
	// (container launch and JVM start) and that does not scale with its
	// input (ours: the matrices learn the part that does, per GB, so one
	// row serves jobs of one type whose splits and partitions differ in
	// size, and PRB charges it to every reducer, so stacking many tiny
	// reducers on one node is not free).
	TaskOverheadS float64 `yaml:"task_overhead_s"`
	// Seeds from profiling runs: job type -> node -> seconds (map) or s/GB (reduce).
	MapMatrix    map[string]map[string]float64 `yaml:"map_matrix"`
	ReduceMatrix map[string]map[string]float64 `yaml:"reduce_matrix"`
}

// DefaultConfig returns the defaults.
func DefaultConfig() Config {
	return Config{
		RSplitBytes: 1 << 30, BandwidthBps: 125e6, CrossRackBandwidthBps: 125e6, LatencyMS: 0.2,
		DefaultMapS: 20, DefaultReduceSPerGB: 60, ReferenceMHz: 2400, Alpha: 0.3, ContainerVCores: 1, TopNodes: 5,
		Strict: true, Replan: true, TieS: 1, TaskOverheadS: 1, SharedLinks: true, ProtectLinks: true,
	}
}

func (c Config) validate() error {
	switch {
	case c.RSplitBytes <= 0:
		return fmt.Errorf("r_split_bytes: must be > 0")
	case c.BandwidthBps <= 0 || c.CrossRackBandwidthBps <= 0:
		return fmt.Errorf("bandwidth_bps, cross_rack_bandwidth_bps: must be > 0")
	case c.Alpha <= 0 || c.Alpha > 1:
		return fmt.Errorf("alpha: must be within (0, 1]")
	case c.ContainerVCores <= 0:
		return fmt.Errorf("container_vcores: must be > 0")
	case c.DefaultMapS <= 0 || c.DefaultReduceSPerGB <= 0:
		return fmt.Errorf("default_map_s, default_reduce_s_per_gb: must be > 0")
	case c.TieS < 0:
		return fmt.Errorf("tie_s: must be >= 0")
	case c.TaskOverheadS < 0:
		return fmt.Errorf("task_overhead_s: must be >= 0")
	}
	return nil
}

// matrices are one job type's learned rows of Map_Matrix and Reduce_Matrix.
//
// Ours, where the paper profiles one job on every node: a map's time is
// TaskOverheadS + R x split GB x F[node], R the job's seconds per GB on a
// node of factor 1 and F the node's factor for the job type. Jobs of one
// type differ in R (their splits, selectivity, code), so learning seconds per
// map or per GB per node directly would make a node look fast or slow by
// the last job it ran; F is learned relative to each job's own R instead.
type matrices struct {
	// Map is seconds per map, what records of version 1 learned; read only
	// as a fallback for a node with no factor.
	Map        map[string]float64 `json:"map"`
	NodeFactor map[string]float64 `json:"node_factor"` // F: node -> time relative to the type's reference node
	RateSGB    float64            `json:"rate_sgb"`    // R of the type: s per GB of split at factor 1 (a new job's estimate)
	ReduceSGB  map[string]float64 `json:"reduce_sgb"`  // node -> seconds per GB of reducer input

	// reduceMean is the mean of ReduceSGB, the estimate for a node the row
	// has not learned yet (ours: online, a node that has not run the type
	// would otherwise get the configured default, no estimate of this type
	// at all). 0 = stale.
	reduceMean float64
}

// jobRate is one app's R: the mean of its maps' seconds per GB, each divided
// by its node's factor (all maps of a job are alike, the paper's premise).
type jobRate struct {
	sum float64
	n   int
}

// rowMean is the mean of a row's entries, 0 when empty.
func rowMean(row map[string]float64, cached *float64) float64 {
	if *cached == 0 && len(row) > 0 {
		var sum float64
		for _, v := range row {
			sum += v
		}
		*cached = sum / float64(len(row))
	}
	return *cached
}

// minLearnBytes is the smallest split or reducer input the matrices learn a
// per-GB rate from: below it the fixed costs the simulator or cluster adds
// to a task (a fetch's latency, a merge pass) are no longer small against
// the input's share.
const minLearnBytes = 1 << 20

// Plugin is TMaR (or TMaR* when powerAware).
type Plugin struct {
	name       string
	powerAware bool
	cfg        Config
	store      policy.ProfileStore
	log        zerolog.Logger

	learned map[string]*matrices // by job type
	rates   map[string]*jobRate  // by app id, while the app runs
	// seedMean is the mean of each job type's seeded Map_Matrix row.
	seedMean map[string]float64
	loaded   map[string]bool
	dirty    map[string]bool

	// Map stage state: the machine model of the current instant and the
	// placements made for tasks not yet started.
	modelAt  int64
	machines []Machine
	index    map[string]int // node id -> machine
	hostIdx  map[string]int // node id and host name -> machine
	rackIx   []int          // machine -> rack number
	nodeAt   []*cluster.Node // machine -> node of the view
	reserved map[string]reservation
	// execKey names the Map_Matrix column execCol holds: Place's estimates
	// for a map of that app and split size on every machine of the model.
	execKey execKey
	execCol []float64
	// learnVer counts changes to what mapExec reads (matrices, job rates).
	learnVer uint64
	outSums  map[string]outputSums // by app id (see outputs)
	plans    map[string]map[int]Binding // app -> partition -> PRB outcome (node = Machine of the model then)
	planNode map[string]map[int]string  // app -> partition -> bound node id

	// What PRB predicted, for Extra: the sum over planned apps of their
	// predicted completion (latest reducer finish) since submission.
	planJCTSum float64
	planApps   int
}

type reservation struct {
	task   *cluster.Task
	node   string
	alts   []string // equal nodes a strict hold also names (see sameFinishS)
	finish float64
}

// sameFinishS: a strict map hold also names the nodes where the map would
// finish within this many seconds of the chosen one at the same locality
// (ours). The plan does not care which of them runs it, and the first to
// heartbeat takes it instead of the map waiting for one node's heartbeat
// (on a homogeneous cluster every idle node holding a replica is such a
// node). The model follows whichever starts it: a started map counts on the
// node it runs on.
const sameFinishS = 0.1

// New builds tmar.
func New(h policy.Handle) (policy.Plugin, error) { return newPlugin(Name, false, h) }

// NewPower builds tmar-power (TMaR*).
func NewPower(h policy.Handle) (policy.Plugin, error) { return newPlugin(NamePower, true, h) }

func newPlugin(name string, power bool, h policy.Handle) (*Plugin, error) {
	cfg := DefaultConfig()
	if h.Args != nil {
		if err := h.Args.Decode(name, &cfg); err != nil {
			return nil, err
		}
	}
	if err := cfg.validate(); err != nil {
		return nil, fmt.Errorf("policies.%s.%w", name, err)
	}
	p := &Plugin{name: name, powerAware: power, cfg: cfg, store: h.Profiles, log: h.Log,
		learned: map[string]*matrices{}, rates: map[string]*jobRate{}, loaded: map[string]bool{}, dirty: map[string]bool{},
		reserved: map[string]reservation{}, outSums: map[string]outputSums{}, plans: map[string]map[int]Binding{}, planNode: map[string]map[int]string{}, modelAt: -1,
		seedMean: map[string]float64{}}
	for jt, row := range cfg.MapMatrix {
		var sum float64
		n := 0
		for _, v := range row {
			if v > 0 {
				sum += v
				n++
			}
		}
		if n > 0 {
			p.seedMean[jt] = sum / float64(n)
		}
	}
	return p, nil
}

// tie is the map stage's tie-break: Algorithm 2 for tmar-power.
func (p *Plugin) tie() PowerTie {
	return PowerTie{Power: p.powerAware, Within: p.cfg.TieS, WithinMakespan: p.cfg.TieMakespan}
}

// Name implements policy.Plugin.
func (p *Plugin) Name() string { return p.name }

// StrictPlacement implements policy.StrictPlacer.
func (p *Plugin) StrictPlacement() bool { return p.cfg.Strict }

func jobType(a *cluster.App) string {
	if a == nil || a.JobType == "" {
		return "default"
	}
	return a.JobType
}

// rows returns the learned matrices of a job type, loading them from the
// profiles store the first time.
func (p *Plugin) rows(ctx context.Context, jt string) *matrices {
	if m, ok := p.learned[jt]; ok {
		return m
	}
	m := &matrices{Map: map[string]float64{}, NodeFactor: map[string]float64{}, ReduceSGB: map[string]float64{}}
	if p.store != nil && !p.loaded[jt] {
		p.loaded[jt] = true
		if _, err := p.store.Get(ctx, profileNS, jt, m); err != nil {
			p.log.Warn().Err(err).Str("job_type", jt).Msg("loading TMaR matrices; starting from seeds")
		}
		if m.Map == nil {
			m.Map = map[string]float64{}
		}
		if m.NodeFactor == nil {
			m.NodeFactor = map[string]float64{}
		}
		if m.ReduceSGB == nil {
			m.ReduceSGB = map[string]float64{}
		}
	}
	p.learned[jt] = m
	return m
}

// Observe learns Map_Matrix and Reduce_Matrix entries from successful attempts
// (the paper's preprocessing stage, continued online).
func (p *Plugin) Observe(ctx context.Context, ev *events.Event, v cluster.View) {
	switch ev.Type {
	case events.MapOutput:
		delete(p.outSums, ev.App) // an output arrived: the app's sums are stale
		return
	case events.AppFinished:
		delete(p.outSums, ev.App)
		return
	case events.TaskFinished:
		if at := v.Attempt(ev.Attempt); at == nil || at.Task.Kind == events.Map {
			delete(p.outSums, ev.App) // a map's success (or loss) changes which outputs count
		}
	}
	if ev.Type != events.TaskFinished || ev.State != events.StateSucceeded {
		return
	}
	at := v.Attempt(ev.Attempt)
	if at == nil || at.Node == "" || at.StartTS == 0 || at.FinishTS <= at.StartTS {
		return
	}
	t := at.Task
	jt := jobType(t.App)
	m := p.rows(ctx, jt)
	dur := float64(at.FinishTS-at.StartTS) / 1000
	switch t.Kind {
	case events.Map:
		// The matrix holds the node's own time; the input read the
		// attempt's locality cost is added back per task when placing.
		loc := at.Locality
		if loc == "" {
			loc = locality(v.Node(at.Node), splitHosts(t), v)
		}
		b := splitBytes(t)
		if d := dur - p.readCost(t, loc) - p.cfg.TaskOverheadS; d > 0 && b >= minLearnBytes {
			n := v.Node(at.Node)
			if n == nil {
				n = &cluster.Node{ID: at.Node}
			}
			p.learnMap(jt, m, t.App.ID, n, d/(float64(b)/gib))
		}
	case events.Reduce:
		bytes := p.partitionBytes(t.App, t.Partition)
		if bytes <= 0 {
			return
		}
		if at.PhaseMS != nil && at.PhaseMS.Shuffle > 0 {
			dur -= float64(at.PhaseMS.Shuffle) / 1000 // execution, not transfer (eq. 3 adds transfer separately)
		}
		reducers := max(1, countReducers(t.App, t.Partition))
		per := float64(bytes) / float64(reducers)
		gb := per / gib
		if per < minLearnBytes || dur <= 0 {
			return
		}
		m.ReduceSGB[at.Node] = p.ewma(m.ReduceSGB[at.Node], dur/gb)
		m.reduceMean = 0
	}
	p.dirty[jt] = true
	p.learnVer++
}

func (p *Plugin) ewma(old, x float64) float64 {
	if old == 0 {
		return x
	}
	return (1-p.cfg.Alpha)*old + p.cfg.Alpha*x
}

// outputSums are an app's map outputs summed over its successful maps: per
// partition (nil until asked for), and all of them.
type outputSums struct {
	part  map[int]int64 // over the maps whose task succeeded
	total int64         // every output of every succeeded map attempt
}

// outputTotal is every output of the app's succeeded map attempts, kept
// until a map output arrives or a map finishes (Observe drops it then).
func (p *Plugin) outputTotal(a *cluster.App) int64 {
	if o, ok := p.outSums[a.ID]; ok {
		return o.total
	}
	var o outputSums
	for _, t := range a.Tasks {
		if at := succeeded(t); t.Kind == events.Map && at != nil {
			for _, x := range at.Output {
				o.total += x.Bytes
			}
		}
	}
	if !a.Finished() {
		p.outSums[a.ID] = o
	}
	return o.total
}

// partitionBytes sums a partition over the outputs of the app's successful
// maps. The sums of every partition are made in one walk and kept like
// outputTotal's, so a job's reducers do not each walk every map's outputs
// (sums of integers: the order they are added in does not matter).
func (p *Plugin) partitionBytes(a *cluster.App, part int) int64 {
	if part < 0 {
		return 0
	}
	o, ok := p.outSums[a.ID]
	if ok && o.part != nil {
		return o.part[part]
	}
	o = outputSums{part: map[int]int64{}}
	for _, t := range a.Tasks {
		at := succeeded(t)
		if t.Kind != events.Map || at == nil {
			continue
		}
		for _, x := range at.Output {
			o.total += x.Bytes
			if t.State == cluster.TaskSucceeded {
				o.part[x.ID] += x.Bytes
			}
		}
	}
	if !a.Finished() {
		p.outSums[a.ID] = o
	}
	return o.part[part]
}

func countReducers(a *cluster.App, part int) int {
	n := 0
	for _, t := range a.Tasks {
		if t.Kind == events.Reduce && t.Partition == part {
			n++
		}
	}
	return n
}

func succeeded(t *cluster.Task) *cluster.Attempt {
	for _, a := range t.Attempts {
		if a.State == events.StateSucceeded {
			return a
		}
	}
	return nil
}

// nodeSpeedScale scales a default by the node's clock against the reference.
func (p *Plugin) nodeSpeedScale(n *cluster.Node) float64 {
	if n == nil || n.CPUMHz <= 0 || p.cfg.ReferenceMHz <= 0 {
		return 1
	}
	return p.cfg.ReferenceMHz / float64(n.CPUMHz)
}

// learnMap takes one map's seconds per GB (after its read and the task
// overhead), obs, on node. F[node] moves towards obs over the app's R from
// its earlier maps (the first map of an app says nothing about its node:
// the job's own weight is not known yet); then the app's R gains obs /
// F[node] and the type's R moves towards it.
func (p *Plugin) learnMap(jt string, m *matrices, app string, n *cluster.Node, obs float64) {
	node := n.ID
	r := p.rates[app]
	if r == nil {
		r = &jobRate{}
		p.rates[app] = r
	}
	if r.n > 0 {
		m.NodeFactor[node] = p.ewma(m.NodeFactor[node], obs/(r.sum/float64(r.n)))
	}
	f := m.NodeFactor[node]
	if f <= 0 {
		f = p.priorFactor(jt, n)
	}
	r.sum += obs / f
	r.n++
	m.RateSGB = p.ewma(m.RateSGB, obs/f)
}

// priorFactor is a node's factor before it has one: its seeded Map_Matrix
// entry over the mean of the seeded row (the paper's profiling runs), else
// its clock against reference_mhz, else 1.
func (p *Plugin) priorFactor(jt string, n *cluster.Node) float64 {
	if s := p.cfg.MapMatrix[jt][n.ID]; s > 0 && p.seedMean[jt] > 0 {
		return s / p.seedMean[jt]
	}
	return p.nodeSpeedScale(n)
}

// mapExec is map t's Map_Matrix entry for a node: TaskOverheadS + R x split
// GB x F[node] once the job (else the type) has an R; before that, a seconds
// per map entry (an older record, else the seed), else the default scaled
// by clock speed. A node without a factor takes its seeded one, else its
// clock against reference_mhz.
func (p *Plugin) mapExec(ctx context.Context, t *cluster.Task, n *cluster.Node) float64 {
	jt := jobType(t.App)
	rows := p.rows(ctx, jt)
	rate := rows.RateSGB
	if r := p.rates[t.App.ID]; r != nil && r.n > 0 {
		rate = r.sum / float64(r.n)
	}
	if b := splitBytes(t); rate > 0 && b > 0 {
		f := rows.NodeFactor[n.ID]
		if f <= 0 {
			f = p.priorFactor(jt, n)
		}
		return p.cfg.TaskOverheadS + rate*float64(b)/gib*f
	}
	if s := rows.Map[n.ID]; s > 0 {
		return s
	}
	if s := p.cfg.MapMatrix[jt][n.ID]; s > 0 {
		return s
	}
	return p.cfg.DefaultMapS * p.nodeSpeedScale(n)
}

// execKey identifies a Map_Matrix column: an app's maps of one split size,
// on the model of one instant, with the matrices as learned at learnVer.
type execKey struct {
	app     *cluster.App
	bytes   int64
	modelAt int64
	ver     uint64
}

// mapColumn is mapExec of map t on every machine of the current model,
// cached under execKey (model drops it when it rebuilds the machines).
func (p *Plugin) mapColumn(ctx context.Context, t *cluster.Task) []float64 {
	k := execKey{app: t.App, bytes: splitBytes(t), modelAt: p.modelAt, ver: p.learnVer}
	if k == p.execKey && len(p.execCol) == len(p.machines) {
		return p.execCol
	}
	p.execCol = p.execCol[:0]
	for i := range p.machines {
		p.execCol = append(p.execCol, p.mapExec(ctx, t, p.nodeAt[i]))
	}
	p.execKey = k
	return p.execCol
}

// splitBytes is the input of map t.
func splitBytes(t *cluster.Task) int64 {
	var b int64
	for _, s := range t.Splits {
		b += s.Length
	}
	return b
}

// readCost is the time a map spends reading its split at a locality level
// (ours; the paper's maps read from a shared store at one cost): nothing
// node-local, L + bytes / C_B from a node of the rack, and through the
// core, one more hop at the cross-rack bandwidth, off-rack.
func (p *Plugin) readCost(t *cluster.Task, loc events.Locality) float64 {
	bytes := splitBytes(t)
	if bytes <= 0 {
		return 0
	}
	lat := p.cfg.LatencyMS / 1000
	rack := lat + float64(bytes)/p.cfg.BandwidthBps
	switch loc {
	case events.RackLocal:
		return rack
	case events.OffRack:
		return rack + lat + float64(bytes)/p.cfg.CrossRackBandwidthBps
	}
	return 0
}

// reduceSPerGB is the Reduce_Matrix entry for a node.
func (p *Plugin) reduceSPerGB(ctx context.Context, jt string, n *cluster.Node) float64 {
	rows := p.rows(ctx, jt)
	if s := rows.ReduceSGB[n.ID]; s > 0 {
		return s
	}
	if s := p.cfg.ReduceMatrix[jt][n.ID]; s > 0 {
		return s
	}
	if s := rowMean(rows.ReduceSGB, &rows.reduceMean); s > 0 {
		return s
	}
	return p.cfg.DefaultReduceSPerGB * p.nodeSpeedScale(n)
}

// minProgress is the progress from which an overdue running attempt's end
// is extrapolated from its progress rate.
const minProgress = 0.05

// model returns the machine model at the view's instant: each running
// node's cores, busy until its running attempts are expected to end or until
// the maps this policy placed and that have not started yet are done.
func (p *Plugin) model(ctx context.Context, v cluster.View) []Machine {
	if p.modelAt == v.Now() && p.machines != nil {
		return p.machines
	}
	now := float64(v.Now()) / 1000
	p.modelAt = v.Now()
	p.machines = p.machines[:0]
	p.nodeAt = p.nodeAt[:0]
	p.execKey = execKey{} // the machines changed: Place's cached Map_Matrix column is stale
	p.index = make(map[string]int, len(v.Nodes()))
	p.hostIdx = make(map[string]int, 2*len(v.Nodes()))
	p.rackIx = p.rackIx[:0]
	rackNo := map[string]int{}
	meanGB := map[*cluster.App]float64{}
	redCount := map[*cluster.App]map[int]int{} // reducers per partition, counted once per app
	for _, n := range v.Nodes() {
		if n.State != cluster.NodeRunning {
			continue
		}
		cores := n.VCores / p.cfg.ContainerVCores
		if cores <= 0 {
			continue
		}
		m := Machine{Name: n.ID, CoreFree: make([]float64, cores), PowerIdleW: n.PowerIdleW, PowerMaxW: n.PowerMaxW}
		for i := range m.CoreFree {
			m.CoreFree[i] = now
		}
		busy := 0
		for _, at := range n.Running {
			if busy >= cores {
				break
			}
			var est float64
			if at.Task.Kind == events.Map {
				est = p.mapExec(ctx, at.Task, n)
			} else {
				gb, ok := meanGB[at.Task.App]
				if _, planned := p.plans[at.Task.App.ID]; planned || !ok {
					gb = p.reducerGB(at.Task, redCount)
					meanGB[at.Task.App] = gb
				}
				est = p.cfg.TaskOverheadS + p.reduceSPerGB(ctx, jobType(at.Task.App), n)*gb
			}
			end := float64(at.StartTS)/1000 + est
			if end <= now && at.Progress >= minProgress && at.ProgressTS > at.StartTS {
				// Overdue by the matrix (a reducer waiting for maps, a slow
				// node, a straggler): its progress rate tells the rest,
				// remaining = elapsed x (1 - progress) / progress.
				el := float64(at.ProgressTS-at.StartTS) / 1000
				end = float64(at.ProgressTS)/1000 + el*(1-at.Progress)/at.Progress
			}
			m.CoreFree[busy] = math.Max(now, end)
			busy++
		}
		p.index[n.ID] = len(p.machines)
		p.hostIdx[n.ID], p.hostIdx[hostOf(n.ID)] = len(p.machines), len(p.machines)
		r, ok := rackNo[n.Rack]
		if !ok {
			r = len(rackNo)
			rackNo[n.Rack] = r
		}
		p.rackIx = append(p.rackIx, r)
		p.machines = append(p.machines, m)
		p.nodeAt = append(p.nodeAt, n)
	}
	// Placements of ours still pending keep their cores, taken in order of
	// finish (then task id) so the model never depends on map order.
	type held struct {
		id string
		r  reservation
	}
	hs := make([]held, 0, len(p.reserved))
	for id, r := range p.reserved {
		if r.task.State != cluster.TaskPending || r.task.App.Finished() {
			delete(p.reserved, id) // started (its attempt is counted above), or its app is over
			continue
		}
		if r.finish <= now {
			continue // overdue and not started: kept for the next re-plan
		}
		hs = append(hs, held{id, r})
	}
	slices.SortFunc(hs, func(a, b held) int {
		if c := cmp.Compare(a.r.finish, b.r.finish); c != 0 {
			return c
		}
		return strings.Compare(a.id, b.id)
	})
	for _, h := range hs {
		r := h.r
		i, ok := p.index[r.node]
		if !ok {
			continue
		}
		m := &p.machines[i]
		c, free := m.earliest()
		m.CoreFree[c] = math.Max(free, r.finish)
	}
	return p.machines
}

// reducerGB is the input of one reducer of t's partition as PRB planned it,
// else the job's mean partition (what the model can know before binding).
// counts caches the reducers per partition of the apps it has seen (the
// app's tasks do not change while the model is built).
func (p *Plugin) reducerGB(t *cluster.Task, counts map[*cluster.App]map[int]int) float64 {
	if b, ok := p.plans[t.App.ID][t.Partition]; ok {
		c, ok := counts[t.App]
		if !ok {
			c = map[int]int{}
			for _, x := range t.App.Tasks {
				if x.Kind == events.Reduce {
					c[x.Partition]++
				}
			}
			counts[t.App] = c
		}
		return float64(b.Bytes) / gib / float64(max(1, c[t.Partition]))
	}
	if t.App.Reduces > 0 {
		return float64(p.outputTotal(t.App)) / gib / float64(t.App.Reduces)
	}
	return 0
}

// levels returns, for each machine of the current model, the locality of
// t's input there, and the machines that hold it (sorted).
func (p *Plugin) levels(t *cluster.Task) ([]events.Locality, []int) {
	out := make([]events.Locality, len(p.machines))
	var local []int
	racks := map[int]bool{}
	hosts := 0
	for _, sp := range t.Splits {
		for _, h := range sp.Hosts {
			hosts++
			if i, ok := p.hostIdx[h]; ok && out[i] != events.NodeLocal {
				out[i] = events.NodeLocal
				local = append(local, i)
				racks[p.rackIx[i]] = true
			}
		}
	}
	sort.Ints(local)
	if hosts == 0 {
		return out, local // "": no known input, no read cost
	}
	for i := range out {
		switch {
		case out[i] == events.NodeLocal:
		case racks[p.rackIx[i]]:
			out[i] = events.RackLocal
		default:
			out[i] = events.OffRack
		}
	}
	return out, local
}

// localityOn is t's locality on one node, from the model's host and rack
// index (O(replicas)); a node outside the model is looked up in the view.
func (p *Plugin) localityOn(t *cluster.Task, node string, v cluster.View) events.Locality {
	if t.Kind != events.Map {
		return ""
	}
	i, ok := p.index[node]
	if !ok || i >= len(p.rackIx) {
		return locality(v.Node(node), splitHosts(t), v)
	}
	loc := events.Locality("")
	for _, sp := range t.Splits {
		for _, h := range sp.Hosts {
			j, ok := p.hostIdx[h]
			switch {
			case ok && j == i:
				return events.NodeLocal
			case ok && p.rackIx[j] == p.rackIx[i]:
				loc = events.RackLocal
			case loc == "":
				loc = events.OffRack
			}
		}
	}
	return loc
}

// Place is Algorithm 1 (Algorithm 2 for tmar-power) for one pending map:
// the next task of the job goes to the core that finishes it first, and the
// core-available vector is updated (line 6), so successive calls continue
// the same schedule.
func (p *Plugin) Place(ctx context.Context, v cluster.View, t *cluster.Task) ([]policy.NodeScore, *policy.Status) {
	if t.Kind == events.Reduce {
		return p.placeReducer(ctx, v, t)
	}
	if t.Kind != events.Map {
		return nil, policy.NewStatus(policy.Skip, "not a map or a reduce")
	}
	ms := p.model(ctx, v)
	if len(ms) == 0 {
		return nil, policy.NewStatus(policy.Skip, "no running nodes")
	}
	now := float64(v.Now()) / 1000
	// Map_Matrix plus reading the split there: the plan keeps maps
	// data-local when that costs no finish time.
	lv, _ := p.levels(t)
	read := map[events.Locality]float64{events.RackLocal: p.readCost(t, events.RackLocal), events.OffRack: p.readCost(t, events.OffRack)}
	// One evaluation per machine: the ranking below and Algorithm 1 both
	// read it. The Map_Matrix column is the same for every map of the app
	// with this split size until the model or the matrices change, so the
	// maps of a job submitted together share it.
	col := p.mapColumn(ctx, t)
	execOn := make([]float64, len(ms))
	for i := range ms {
		execOn[i] = col[i] + read[lv[i]]
	}
	exec := func(i int) float64 { return execOn[i] }

	// Rank every machine by the finish time this task would have there,
	// before committing the Algorithm 1 choice. Each machine's earliest
	// core is found once, for the ranking and for Algorithm 1.
	type cand struct {
		i      int
		finish float64
	}
	cands := make([]cand, 0, len(ms))
	cores := make([]int, len(ms))
	frees := make([]float64, len(ms))
	for i := range ms {
		cores[i], frees[i] = ms[i].earliest()
		if !math.IsInf(frees[i], 1) {
			cands = append(cands, cand{i, math.Max(frees[i], now) + exec(i)})
		}
	}
	best, ok := scheduleOne(ms, cores, frees, now, exec, p.tie())
	if !ok {
		return nil, policy.NewStatus(policy.Skip, "no free core")
	}
	res := reservation{task: t, node: ms[best.Machine].Name, finish: best.Finish}
	if p.cfg.Strict && !p.powerAware { // TMaR*'s choice among equal finishes is by power
		for _, c := range cands {
			if len(res.alts)+1 >= p.cfg.TopNodes {
				break
			}
			if c.i != best.Machine && lv[c.i] == lv[best.Machine] && math.Abs(c.finish-best.Finish) <= sameFinishS {
				res.alts = append(res.alts, ms[c.i].Name)
			}
		}
	}
	p.reserved[t.ID] = res
	p.log.Debug().Str("task", t.ID).Str("node", ms[best.Machine].Name).Float64("now", now).
		Float64("start", best.Start).Float64("finish", best.Finish).Msg("tmar plan")
	if !p.cfg.Strict { // a strict hint lists no ranked alternatives
		sort.SliceStable(cands, func(a, b int) bool { return cands[a].finish < cands[b].finish })
	}
	scores := []policy.NodeScore{{Node: ms[best.Machine].Name, Score: 1, Locality: lv[best.Machine]}}
	for _, a := range res.alts {
		scores = append(scores, policy.NodeScore{Node: a, Score: 1, Locality: lv[best.Machine]})
	}
	for _, c := range cands {
		if len(scores) >= p.cfg.TopNodes || p.cfg.Strict {
			break
		}
		if c.i == best.Machine {
			continue
		}
		// Score decays with the extra finish time over the best choice.
		s := 1 / (1 + c.finish - best.Finish)
		scores = append(scores, policy.NodeScore{Node: ms[c.i].Name, Score: s, Locality: lv[c.i]})
	}
	return scores, nil
}

func splitHosts(t *cluster.Task) map[string]bool {
	hosts := map[string]bool{}
	for _, s := range t.Splits {
		for _, h := range s.Hosts {
			hosts[h] = true
		}
	}
	return hosts
}

// hostOf strips the NodeManager port from a node id ("host:8041").
func hostOf(node string) string {
	if i := strings.LastIndexByte(node, ':'); i > 0 {
		return node[:i]
	}
	return node
}

func locality(n *cluster.Node, hosts map[string]bool, v cluster.View) events.Locality {
	if n == nil || len(hosts) == 0 {
		return ""
	}
	if hosts[hostOf(n.ID)] || hosts[n.ID] {
		return events.NodeLocal
	}
	for _, other := range v.RackNodes(n.Rack) {
		if hosts[hostOf(other.ID)] || hosts[other.ID] {
			return events.RackLocal
		}
	}
	return events.OffRack
}

// rackNet is the C_B matrix and L vector of the configuration: one bandwidth
// within a rack, another across racks, one latency.
type rackNet struct {
	racks           []string
	rackIdx         []int
	in, cross, latS float64
}

func (n rackNet) Bandwidth(a, b int) float64 {
	// -1 is a node that has left: treat its data as remote.
	if a >= 0 && b >= 0 && n.racks[a] == n.racks[b] {
		return n.in
	}
	return n.cross
}

func (n rackNet) Latency(int, int) float64 { return n.latS }

// RackOf, InRack and CrossRack make rackNet a RackNetwork. Racks are
// compared by name; the index of a machine's rack name is its first
// machine with that name.
func (n rackNet) RackOf(m int) int {
	if m < 0 || m >= len(n.rackIdx) {
		return -1
	}
	return n.rackIdx[m]
}
func (n rackNet) InRack() float64    { return n.in }
func (n rackNet) CrossRack() float64 { return n.cross }

func newRackNet(racks []string, in, cross, latS float64) rackNet {
	first := map[string]int{}
	idx := make([]int, len(racks))
	for i, r := range racks {
		if _, ok := first[r]; !ok {
			first[r] = i
		}
		idx[i] = first[r]
	}
	return rackNet{racks: racks, rackIdx: idx, in: in, cross: cross, latS: latS}
}

// plan runs Algorithms 3 and 4 (PRB) for an app once every map has
// finished and reported its output: each partition, largest first, is bound
// to the node where its reducers finish first. It returns false while an
// output is missing. The plan is made once per app.
func (p *Plugin) plan(ctx context.Context, v cluster.View, a *cluster.App) bool {
	if _, ok := p.plans[a.ID]; ok {
		return true
	}
	if a.Finished() || a.Maps == 0 || a.Reduces == 0 || a.Count[events.Map].Succeeded < a.Maps {
		return false
	}
	ms := p.model(ctx, v) // also indexes nodes for partitions
	parts, ok := p.partitions(a)
	if !ok {
		return false
	}
	racks := make([]string, len(ms))
	nodes := make([]*cluster.Node, len(ms))
	for i := range ms {
		nodes[i] = v.Node(ms[i].Name)
		racks[i] = nodes[i].Rack
	}
	net := newRackNet(racks, p.cfg.BandwidthBps, p.cfg.CrossRackBandwidthBps, p.cfg.LatencyMS/1000)
	jt := jobType(a)
	// Reduce_Matrix per machine, looked up once for the whole plan.
	sPerGiB := make([]float64, len(ms))
	for i := range ms {
		sPerGiB[i] = p.reduceSPerGB(ctx, jt, nodes[i])
	}
	exec := func(i int, bytes int64) float64 { return p.cfg.TaskOverheadS + sPerGiB[i]*float64(bytes)/gib }
	plan, where := map[int]Binding{}, map[int]string{}
	var bs []Binding
	sources := map[int]bool{}
	for _, pt := range parts {
		for m := range pt.At {
			sources[m] = true
		}
	}
	if p.sharedModel(a, len(parts), len(sources), len(ms)) {
		bs = BindPartitionsShared(ms, parts, net, SharedLinks{NICBps: p.cfg.BandwidthBps, Protect: p.cfg.ProtectLinks}, p.cfg.RSplitBytes, float64(v.Now())/1000, exec)
	} else {
		bs = BindPartitions(ms, parts, net, p.cfg.RSplitBytes, float64(v.Now())/1000, exec)
	}
	for _, b := range bs {
		p.log.Debug().Str("app", a.ID).Int("partition", b.Partition).Str("node", ms[b.Machine].Name).
			Int("reducers", b.Reducers).Int64("bytes", b.Bytes).Float64("now", float64(v.Now())/1000).
			Float64("launch", b.Launch).Float64("start", b.Start).Float64("finish", b.Finish).Msg("tmar bind")
		plan[b.Partition], where[b.Partition] = b, ms[b.Machine].Name
	}
	p.plans[a.ID], p.planNode[a.ID] = plan, where
	if len(plan) > 0 {
		var last float64
		for _, b := range plan {
			last = math.Max(last, b.Finish)
		}
		p.planJCTSum += last - float64(a.SubmitTS)/1000
		p.planApps++
	}
	return true
}

// sharedLinksWork bounds the work of BindPartitionsShared, counted as
// partitions x source nodes x (partitions + nodes): it revisits every
// transfer on a sender's link for each partition, where the paper's model
// sums per rack. 2e6 is about 40 ms a plan; the paper's jobs here stay
// under 1.2e6. At 5e7 (about a second) the first 1,500 SWIM jobs on 600
// nodes took 146 s of CPU instead of 80 s for the same mean JCT (18.0 s).
const sharedLinksWork = 2e6

// sharedModel tells whether PRB times the shuffle with BindPartitionsShared.
// That model assumes it sees every transfer; when the map outputs name fewer
// partitions than the job has reducers (the simulator lists at most 200 per
// output), the reducers it cannot bind share the links and cores unseen and
// the paper's per-destination vector planned better (WordCount at 30 hosts,
// 700 reducers: 1,531 s against 1,566 s). Beyond sharedLinksWork it is too
// slow for a plan made while the reducers wait.
func (p *Plugin) sharedModel(a *cluster.App, partitions, sources, machines int) bool {
	work := float64(partitions) * float64(sources) * float64(partitions+machines)
	return p.cfg.SharedLinks && partitions >= a.Reduces && work <= sharedLinksWork
}

// placeReducer names the node PRB bound the reducer's partition to, as soon
// as the reducer is requested: a binding that arrived with the next tick
// would come after the ResourceManager had already placed it. The place is
// a reservation (strict) like a map's, and the reducer's core is reserved
// until its planned finish.
func (p *Plugin) placeReducer(ctx context.Context, v cluster.View, t *cluster.Task) ([]policy.NodeScore, *policy.Status) {
	if t.Partition < 0 || !p.plan(ctx, v, t.App) {
		return nil, policy.NewStatus(policy.Skip, "partitions not bound yet (map outputs missing)")
	}
	b, ok := p.plans[t.App.ID][t.Partition]
	if !ok {
		return nil, policy.NewStatus(policy.Skip, "partition not in the PRB plan")
	}
	node := p.planNode[t.App.ID][t.Partition]
	p.reserved[t.ID] = reservation{task: t, node: node, finish: b.Finish}
	return []policy.NodeScore{{Node: node, Score: 1}}, nil
}

// Bind is Algorithms 3 and 4 (PRB): once every map of an app has finished
// and reported its output, bind each partition, largest first, to the node
// where its reducers finish first, with ceil(size / R_split) reducers. The
// binding of a partition whose reducer has not started is renewed each
// tick (the engine drops the repeats while one is in force), so it holds
// however long the reducer waits for its node.
func (p *Plugin) Bind(ctx context.Context, v cluster.View) ([]policy.Hint, *policy.Status) {
	if p.cfg.Replan {
		p.replan(ctx, v)
	}
	out := p.holds(v)
	now := float64(v.Now()) / 1000
	for id := range p.plans {
		if a := v.App(id); a == nil || a.Finished() {
			delete(p.plans, id)
			delete(p.planNode, id)
		}
	}
	for id := range p.rates {
		if a := v.App(id); a == nil || a.Finished() {
			delete(p.rates, id)
			p.learnVer++
		}
	}
	for _, a := range v.Apps() {
		if a.Finished() || !p.plan(ctx, v, a) {
			continue
		}
		started := map[int]bool{}
		for _, t := range a.Tasks {
			if t.Kind == events.Reduce && t.State != cluster.TaskPending {
				started[t.Partition] = true
			}
		}
		plan := p.plans[a.ID]
		ids := make([]int, 0, len(plan))
		for id := range plan {
			if !started[id] {
				ids = append(ids, id)
			}
		}
		sort.Ints(ids)
		for _, id := range ids {
			b := plan[id]
			out = append(out, policy.Hint{Kind: policy.KindReduceBinding, App: a.ID, Partition: id,
				Node: p.planNode[a.ID][id], Reducers: b.Reducers,
				Reason: fmt.Sprintf("PRB: reducers finish at +%.1fs there (eq. 3-5)", b.Finish-now)})
		}
	}
	return out, nil
}

// replan runs Algorithm 1 again, as one batch (PlanMaps), over every map
// TMaR planned that has not started: from the cores as they are now and the
// Map_Matrix as learned so far, apps in submission order, each map taking
// the core that finishes it first and each core a map local to it when one
// is left. The new plan replaces the old reservations; holds then renews or
// moves the strict place hints.
func (p *Plugin) replan(ctx context.Context, v cluster.View) {
	var tasks []*cluster.Task
	for _, r := range p.reserved {
		if r.task.Kind == events.Map && r.task.State == cluster.TaskPending {
			tasks = append(tasks, r.task)
		}
	}
	if len(tasks) == 0 {
		return
	}
	slices.SortFunc(tasks, func(ta, tb *cluster.Task) int { // a total order: ids are unique
		if ta.App != tb.App {
			if c := cmp.Compare(ta.App.SubmitTS, tb.App.SubmitTS); c != 0 {
				return c
			}
			return strings.Compare(ta.App.ID, tb.App.ID)
		}
		return strings.Compare(ta.ID, tb.ID)
	})
	for _, t := range tasks {
		delete(p.reserved, t.ID)
	}
	p.modelAt = -1 // rebuild without them
	ms := p.model(ctx, v)
	now := float64(v.Now()) / 1000
	racks := map[string]int{}
	rack := make([]int, len(ms))
	nodes := make([]*cluster.Node, len(ms))
	byHost := make(map[string]int, 2*len(ms))
	for i := range ms {
		nodes[i] = v.Node(ms[i].Name)
		r, ok := racks[nodes[i].Rack]
		if !ok {
			r = len(racks)
			racks[nodes[i].Rack] = r
		}
		rack[i] = r
		byHost[ms[i].Name], byHost[hostOf(ms[i].Name)] = i, i
	}
	for lo := 0; lo < len(tasks); {
		hi := lo
		for hi < len(tasks) && tasks[hi].App == tasks[lo].App {
			hi++
		}
		batch := tasks[lo:hi]
		mts := make([]MapTask, len(batch))
		for k, t := range batch {
			seen := map[int]bool{}
			for _, sp := range t.Splits {
				for _, h := range sp.Hosts {
					if i, ok := byHost[h]; ok && !seen[i] {
						seen[i] = true
						mts[k].Local = append(mts[k].Local, i)
					}
				}
			}
			sort.Ints(mts[k].Local)
			mts[k].Read = [3]float64{0, p.readCost(t, events.RackLocal), p.readCost(t, events.OffRack)}
		}
		// Maps of one job are alike (the paper's premise): its first
		// stands for the batch.
		execOn := make([]float64, len(ms))
		for i := range ms {
			execOn[i] = p.mapExec(ctx, batch[0], nodes[i])
		}
		exec := func(i int) float64 { return execOn[i] }
		for _, pl := range PlanMaps(ms, rack, mts, now, exec, p.tie()) {
			t := batch[pl.Task]
			p.reserved[t.ID] = reservation{task: t, node: ms[pl.Machine].Name, finish: pl.Finish}
		}
		lo = hi
	}
}

// holds renews the strict place hints of planned maps that have not started:
// a hold lasts as long as the plan, not just one hint lifetime. The engine
// drops the repeats while the previous hint is in force.
func (p *Plugin) holds(v cluster.View) []policy.Hint {
	if !p.cfg.Strict {
		return nil
	}
	now := float64(v.Now()) / 1000
	ids := make([]string, 0, len(p.reserved))
	for id, r := range p.reserved {
		if r.finish > now && r.task.State == cluster.TaskPending {
			ids = append(ids, id)
		}
	}
	sort.Strings(ids)
	out := make([]policy.Hint, 0, len(ids))
	for _, id := range ids {
		r := p.reserved[id]
		nodes := []policy.NodeScore{{Node: r.node, Score: 1, Locality: p.localityOn(r.task, r.node, v)}}
		for _, a := range r.alts {
			nodes = append(nodes, policy.NodeScore{Node: a, Score: 1, Locality: nodes[0].Locality})
		}
		out = append(out, policy.Hint{Kind: policy.KindPlace, App: r.task.App.ID, Task: r.task.ID, Strict: true,
			Nodes:  nodes,
			Reason: fmt.Sprintf("TMaR plan: finishes at +%.1fs there (Algorithms 1, 3)", r.finish-now)})
	}
	return out
}

// partitions gathers the app's partition sizes and where their pieces lie.
func (p *Plugin) partitions(a *cluster.App) ([]Partition, bool) {
	byID := map[int]*Partition{}
	for _, t := range a.Tasks {
		if t.Kind != events.Map {
			continue
		}
		at := succeeded(t)
		if at == nil || at.Output == nil {
			return nil, false // an output is still missing
		}
		i, ok := p.index[at.Node]
		if !ok {
			i = -1 // output on a node no longer running: counts as remote everywhere
		}
		for _, o := range at.Output {
			part := byID[o.ID]
			if part == nil {
				part = &Partition{ID: o.ID, At: map[int]int64{}}
				byID[o.ID] = part
			}
			part.Bytes += o.Bytes
			part.At[i] += o.Bytes
			if !p.cfg.SpawnReducers {
				part.Run = 1
			}
		}
	}
	ids := make([]int, 0, len(byID))
	for id := range byID {
		ids = append(ids, id)
	}
	sort.Ints(ids)
	out := make([]Partition, 0, len(ids))
	for _, id := range ids {
		out = append(out, *byID[id])
	}
	return out, len(out) > 0
}

// Flush saves the learned matrices.
func (p *Plugin) Flush(ctx context.Context) error {
	if p.store == nil {
		return nil
	}
	types := make([]string, 0, len(p.dirty))
	for jt := range p.dirty {
		types = append(types, jt)
	}
	sort.Strings(types)
	for _, jt := range types {
		if err := p.store.Put(ctx, profileNS, jt, p.learned[jt]); err != nil {
			return fmt.Errorf("save TMaR matrices of %s: %w", jt, err)
		}
		delete(p.dirty, jt)
	}
	return nil
}

var (
	_ policy.Observer = (*Plugin)(nil)
	_ policy.Placer   = (*Plugin)(nil)
	_ policy.Binder   = (*Plugin)(nil)
	_ policy.Flusher  = (*Plugin)(nil)
)

// Extra reports what the reduce-stage plan predicted (the simulator copies
// it into results.json's extra): tmar_plan_jct_s, the mean over planned apps
// of the completion PRB predicted when it bound their partitions (eq. 3-5
// and the cores then), to set beside the completion the run measured.
func (p *Plugin) Extra() map[string]float64 {
	if p.planApps == 0 {
		return nil
	}
	return map[string]float64{"tmar_plan_jct_s": p.planJCTSum / float64(p.planApps), "tmar_planned_apps": float64(p.planApps)}
}
