package prescheduling

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"

	"github.com/rmsidecar/rmsidecar/cluster"
	"github.com/rmsidecar/rmsidecar/events"
	"github.com/rmsidecar/rmsidecar/policy"
	"github.com/rmsidecar/rmsidecar/policy/taskstat"
)

// Name is the registered name.
const Name = "prescheduling"

// Config is the configuration of prescheduling (policies.prescheduling).
type Config struct {
	// MapSlots is the number of map slots of every node; 0 counts every
	// container of the node (VCores / VCoresPerSlot): YARN runs a map in
	// any container.
	MapSlots int `yaml:"map_slots"`
	// ReduceSlots is the reduce share of every node when DHSA typed shares
	// are in use; with BorrowReduceSlots a local map may borrow one of them
	// when the map share is used up (§2.3.2, the second case).
	ReduceSlots       int  `yaml:"reduce_slots"`
	BorrowReduceSlots bool `yaml:"borrow_reduce_slots"`
	// VCoresPerSlot is how many vcores one slot stands for (one slot per
	// core, as the paper assumes in §3.2.2).
	VCoresPerSlot int `yaml:"vcores_per_slot"`
	// MapContainerMB is the memory of a map container; a node has at most
	// its memory over it map slots (YARN sizes containers by memory too).
	// 0: learnt from the map containers seen allocated (the largest), and
	// while none is seen only vcores count.
	MapContainerMB int `yaml:"map_container_mb"`
	// MaxPerHeartbeat bounds the maps pre-scheduled at one heartbeat, so
	// the load balance is traded one slot at a time.
	MaxPerHeartbeat int `yaml:"max_per_heartbeat"`
	// LoadMaxDiff is Hadoop's mapred.fairscheduler.load.max.diff, added to
	// the load factor before capping (default 0, as in Hadoop 1.2.1).
	LoadMaxDiff float64 `yaml:"load_max_diff"`
	// Pools are queue weights for the fair-share order (default 1).
	Pools map[string]float64 `yaml:"pools"`
	// Mode is "hadoop1" (§2.3.2 under Hadoop 1's load manager: the head
	// job's local maps in extra idle slots) or "yarn" (the YARN form: a free
	// container the head job has no local map for is pre-assigned to the
	// first job in fair order that has one, within FairnessBound). Empty:
	// hadoop1.
	Mode string `yaml:"mode"`
	// FairnessBound (mode yarn) is how far ahead of the head job a job may
	// be and still be pre-assigned a container: its running containers per
	// weight may exceed the head's by at most this fraction of its fair
	// share (the cluster's slots split over the active queues by weight, and
	// a queue's share over its jobs when both are in one queue). 0: only
	// jobs no richer than the head.
	FairnessBound float64 `yaml:"fairness_bound"`
	// HoldFraction (mode yarn) pre-schedules the maps that would otherwise
	// leave their data: at a heartbeat where the jobs ahead of the first one
	// with input on the node have none there (so a non-local launch of theirs
	// is what the node can get), each of their pending maps whose split's
	// node is predicted to free a container within HoldFraction of the
	// job's mean map duration is placed strictly on its data's nodes until
	// then. 0: off.
	HoldFraction float64 `yaml:"hold_fraction"`
}

// Modes of the plugin.
const (
	ModeHadoop1 = "hadoop1"
	ModeYARN    = "yarn"
)

// DefaultConfig returns the defaults described on Config.
func DefaultConfig() Config {
	return Config{VCoresPerSlot: 1, MaxPerHeartbeat: 1, Mode: ModeHadoop1, FairnessBound: 0.1}
}

// Validate names the first bad key.
func (c *Config) Validate() error {
	switch {
	case c.MapSlots < 0:
		return fmt.Errorf("map_slots: must be >= 0, got %d", c.MapSlots)
	case c.ReduceSlots < 0:
		return fmt.Errorf("reduce_slots: must be >= 0, got %d", c.ReduceSlots)
	case c.MapContainerMB < 0:
		return fmt.Errorf("map_container_mb: must be >= 0, got %d", c.MapContainerMB)
	case c.VCoresPerSlot < 1:
		return fmt.Errorf("vcores_per_slot: must be >= 1, got %d", c.VCoresPerSlot)
	case c.MaxPerHeartbeat < 1:
		return fmt.Errorf("max_per_heartbeat: must be >= 1, got %d", c.MaxPerHeartbeat)
	case c.LoadMaxDiff < 0 || math.IsNaN(c.LoadMaxDiff):
		return fmt.Errorf("load_max_diff: must be >= 0, got %v", c.LoadMaxDiff)
	case c.Mode != "" && c.Mode != ModeHadoop1 && c.Mode != ModeYARN:
		return fmt.Errorf("mode: must be %s or %s, got %q", ModeHadoop1, ModeYARN, c.Mode)
	case c.FairnessBound < 0 || math.IsNaN(c.FairnessBound):
		return fmt.Errorf("fairness_bound: must be >= 0, got %v", c.FairnessBound)
	case c.HoldFraction < 0 || math.IsNaN(c.HoldFraction) || c.HoldFraction > 1:
		return fmt.Errorf("hold_fraction: must be in [0, 1], got %v", c.HoldFraction)
	case c.BorrowReduceSlots && c.ReduceSlots == 0:
		return fmt.Errorf("borrow_reduce_slots: needs reduce_slots > 0")
	}
	return policy.CheckPoolWeights(c.Pools)
}

// LoadFactor is Step 1 of §2.3.2: mapSlotsLoadFactor, the pending and
// running maps of all jobs over the cluster's map slot capacity.
func LoadFactor(pendingPlusRunning, clusterMapSlots int) float64 {
	if clusterMapSlots <= 0 {
		return 0
	}
	return float64(pendingPlusRunning) / float64(clusterMapSlots)
}

// IdleCapacity is Steps 2–3 of §2.3.2 and Definitions 1–2 for one node with
// slots map slots of which used run maps: the node may use
// ceil(min(loadFactor, 1) · slots) map slots (Step 2; the ceiling is Hadoop
// 1.2.1's CapBasedLoadManager.getCap); the allowable idle slots are that
// minus the used ones (Definition 1), the extra idle slots are the slots
// above both the used slots and the balancing line (Definition 2).
func IdleCapacity(loadFactor float64, slots, used int) (allowable, extra int) {
	usable := int(math.Ceil(min(loadFactor, 1)*float64(slots) - 1e-9))
	allowable = max(0, usable-used)
	extra = max(0, slots-max(used, usable))
	return allowable, extra
}

// Plugin is the prescheduling policy.
type Plugin struct {
	cfg Config

	mu sync.Mutex
	// st counts the decisions (Extra); hinted maps a hinted map's task id
	// to the nodes it was hinted for, until it is seen launched.
	st     Stats
	hinted map[string]hintedTask
	// mapMB is the map container memory learnt from allocations
	// (MapContainerMB 0).
	mapMB int
	// held maps a held map (app/task) to the end of its hold, heldOn a node
	// to the ends of the holds naming it (HoldFraction).
	held   map[string]int64
	heldOn map[string][]int64
	// pend indexes the apps' pending maps for localMaps (see pendingMaps).
	pend pendingMaps
	fair fairOrder
	// skip holds Assign's Skip statuses, made once (a Status is immutable):
	// most heartbeats end in one of them.
	skip struct{ allowable, noIdle, noPending, headNotLocal *policy.Status }
	// mapSlots is clusterMapSlots while observed events show no node
	// registered or lost (the only events that change a node's capacity or
	// state), for that many nodes and that map container size.
	mapSlotsOK            bool
	mapSlotsN, mapSlotsMB int
	mapSlotsTotal         int
}

// Stats counts what the policy saw at the heartbeats it was asked about:
// why it emitted place hints or not, and whether the scheduler followed them
// (the hinted map's first attempt ran on a hinted node).
type Stats struct {
	Heartbeats int // running nodes the policy was asked about
	// The node's case (§2.3.2): allowable idle map slots (delay
	// scheduling's case), extra idle slots only (PreScheduling's first
	// case), idle reduce slots only (the DHSA case), none free.
	Allowable, ExtraOnly, Borrow, NoIdle int
	// In the extra-only and borrow cases: the head job has a pending map
	// with a split on the node, or not.
	HeadLocal, HeadNotLocal int
	// At heartbeats with a free container where the head job has no local
	// map there: another job with pending maps has one (the waste the YARN
	// form targets).
	OtherLocal int
	// YARN form: a later job's local map was pre-assigned, or was not
	// because the fairness bound held it back.
	Steered, FairnessHeld int
	// YARN form with hold_fraction: maps held for their data's node, which
	// was predicted to free a container soon.
	Held  int
	Hints int // place hints emitted
	// Hinted maps whose first attempt ran on a hinted node, elsewhere, or
	// not seen launched (the app ended first or the run ended).
	Followed, NotFollowed int
}

type hintedTask struct {
	app   string
	nodes []string
}

var _ policy.Assigner = (*Plugin)(nil)

// NewPlugin is the factory of prescheduling.
func NewPlugin(_ context.Context, h policy.Handle) (policy.Plugin, error) {
	cfg := DefaultConfig()
	if err := h.DecodeArgs(Name, &cfg); err != nil {
		return nil, err
	}
	return New(cfg)
}

// New builds the plugin from a config.
func New(cfg Config) (*Plugin, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("%s settings: %w", Name, err)
	}
	if cfg.Mode == "" {
		cfg.Mode = ModeHadoop1
	}
	p := &Plugin{cfg: cfg, hinted: map[string]hintedTask{}, held: map[string]int64{}, heldOn: map[string][]int64{}}
	p.skip.allowable = policy.NewStatus(policy.Skip, "allowable idle map slots")
	p.skip.noIdle = policy.NewStatus(policy.Skip, "no idle slots")
	p.skip.noPending = policy.NewStatus(policy.Skip, "no pending maps")
	p.skip.headNotLocal = policy.NewStatus(policy.Skip, "head job has no local map")
	return p, nil
}

// Stats returns the counts so far; hinted maps not yet launched are
// resolved against v when it is not nil.
func (p *Plugin) Stats(v cluster.View) Stats {
	p.mu.Lock()
	defer p.mu.Unlock()
	if v != nil {
		p.resolve(v)
	}
	return p.st
}

// Extra reports the counts for results.json's run extra, keys prefixed by
// the plugin name; prescheduling_pending counts hinted maps whose launch was
// not seen.
func (p *Plugin) Extra() map[string]float64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	s := p.st
	return map[string]float64{
		Name + "_heartbeats":    float64(s.Heartbeats),
		Name + "_allowable":     float64(s.Allowable),
		Name + "_extra_only":    float64(s.ExtraOnly),
		Name + "_borrow":        float64(s.Borrow),
		Name + "_no_idle":       float64(s.NoIdle),
		Name + "_head_local":    float64(s.HeadLocal),
		Name + "_head_no_local": float64(s.HeadNotLocal),
		Name + "_other_local":   float64(s.OtherLocal),
		Name + "_steered":       float64(s.Steered),
		Name + "_fairness_held": float64(s.FairnessHeld),
		Name + "_held":          float64(s.Held),
		Name + "_hints":         float64(s.Hints),
		Name + "_followed":      float64(s.Followed),
		Name + "_not_followed":  float64(s.NotFollowed),
		Name + "_pending":       float64(len(p.hinted)),
	}
}

// resolve settles hinted maps that have launched: followed when the first
// attempt ran on a node a hint named. Maps of apps no longer in the view are
// dropped uncounted. Called with p.mu held.
func (p *Plugin) resolve(v cluster.View) {
	for id, h := range p.hinted {
		a := v.App(h.app)
		if a == nil || a.Finished() {
			delete(p.hinted, id)
			continue
		}
		t := a.Task(id)
		if t == nil || len(t.Attempts) == 0 || t.Attempts[0].Node == "" {
			continue
		}
		if slices.Contains(h.nodes, t.Attempts[0].Node) {
			p.st.Followed++
		} else {
			p.st.NotFollowed++
		}
		delete(p.hinted, id)
	}
}

func (p *Plugin) noteHint(app, task, node string) {
	p.st.Hints++
	h := p.hinted[task]
	h.app = app
	if !slices.Contains(h.nodes, node) {
		h.nodes = append(h.nodes, node)
	}
	p.hinted[task] = h
}

// Name implements policy.Plugin.
func (*Plugin) Name() string { return Name }

func (p *Plugin) mapSlots(n *cluster.Node) int {
	if p.cfg.MapSlots > 0 {
		return p.cfg.MapSlots
	}
	return p.slots(n.VCores, n.MemoryMB)
}

// clusterMapSlots sums the map slots of the running nodes. Runs of nodes of
// one shape (the usual cluster) reuse the last node's count: it is asked at
// every heartbeat, and the divisions over thousands of nodes were most of it.
// Once events are observed the sum is kept until a node registers or is
// lost, the node count or the learnt map container size changes.
func (p *Plugin) clusterMapSlots(v cluster.View) int {
	nodes := v.Nodes()
	if p.pend.on && p.mapSlotsOK && p.mapSlotsN == len(nodes) && p.mapSlotsMB == p.mapMB {
		return p.mapSlotsTotal
	}
	total, lastV, lastM, last := 0, -1, -1, 0
	for _, m := range nodes {
		if m.State != cluster.NodeRunning {
			continue
		}
		if m.VCores != lastV || m.MemoryMB != lastM {
			lastV, lastM, last = m.VCores, m.MemoryMB, p.mapSlots(m)
		}
		total += last
	}
	p.mapSlotsOK, p.mapSlotsN, p.mapSlotsMB, p.mapSlotsTotal = true, len(nodes), p.mapMB, total
	return total
}

// slots is how many map containers vcores and memory hold: vcores over
// vcores_per_slot, and memory over the map container's size when known
// (a node of 4 vcores and 4 GB runs two 1.5 GB maps, not four).
func (p *Plugin) slots(vcores, memoryMB int) int {
	n := vcores / p.cfg.VCoresPerSlot
	mb := p.cfg.MapContainerMB
	if mb == 0 {
		mb = p.mapMB
	}
	if mb > 0 {
		n = min(n, memoryMB/mb)
	}
	return n
}

// learnMapMB notes the size of the map containers running on n.
func (p *Plugin) learnMapMB(n *cluster.Node) {
	if p.cfg.MapContainerMB > 0 {
		return
	}
	for _, at := range n.Running {
		if at.Task != nil && at.Task.Kind == events.Map && at.MemoryMB > p.mapMB {
			p.mapMB = at.MemoryMB
		}
	}
}

func (p *Plugin) weight(queue string) float64 {
	if w, ok := p.cfg.Pools[queue]; ok {
		return w
	}
	return 1
}

// NodeState is what a heartbeat decision looks at.
type NodeState struct {
	LoadFactor      float64
	MapSlots        int
	UsedMaps        int
	UsedReduces     int
	FreeSlots       int // free containers by the latest heartbeat
	Allowable       int
	Extra           int
	IdleReduceSlots int
}

// State computes the node's load-balancing state in view v.
func (p *Plugin) State(v cluster.View, n *cluster.Node) NodeState {
	capacity, demand := p.clusterMapSlots(v), 0
	for _, a := range v.Apps() {
		if a.Finished() {
			continue
		}
		c := a.Count[events.Map]
		demand += c.Pending + c.Running
	}
	s := NodeState{LoadFactor: LoadFactor(demand, capacity) + p.cfg.LoadMaxDiff, MapSlots: p.mapSlots(n),
		FreeSlots: p.slots(n.FreeVCores(), n.FreeMemoryMB())}
	for _, at := range n.Running {
		if at.Task != nil && at.Task.Kind == events.Reduce {
			s.UsedReduces++
		} else {
			s.UsedMaps++
		}
	}
	s.Allowable, s.Extra = IdleCapacity(s.LoadFactor, s.MapSlots, s.UsedMaps)
	// YARN's containers are shared: what reduces hold is not idle for maps.
	s.Allowable, s.Extra = min(s.Allowable, s.FreeSlots), min(s.Extra, max(0, s.FreeSlots-s.Allowable))
	if p.cfg.BorrowReduceSlots {
		s.IdleReduceSlots = min(max(0, p.cfg.ReduceSlots-s.UsedReduces), s.FreeSlots)
	}
	return s
}

// fairJob is a job with pending maps in fair-share order, with what the
// fairness bound compares.
type fairJob struct {
	app     *cluster.App
	queue   string
	running int // the job's running maps and reduces
	// queueUse is the queue's running tasks per weight; queueJobs the
	// queue's jobs with pending maps.
	queueUse  float64
	queueJobs int
}

// FairOrder lists the jobs with pending maps in the fair scheduler's order:
// queues by fewest running tasks per weight (then by name), in each the
// jobs by fewest running tasks (then the earliest submitted, then the
// smallest id).
func (p *Plugin) FairOrder(v cluster.View) []fairJob {
	// The queues and their jobs live in p.fair between calls (asked at
	// every heartbeat); each job's running count is read once.
	f := &p.fair
	if f.at == nil {
		f.at = map[string]int{}
	}
	clear(f.at)
	qs := f.qs[:0]
	for _, a := range v.Apps() {
		if a.Finished() {
			continue
		}
		i, ok := f.at[a.Queue]
		if !ok {
			i = len(qs)
			f.at[a.Queue] = i
			if i < cap(qs) {
				qs = qs[:i+1]
				qs[i] = fairQueue{name: a.Queue, jobs: qs[i].jobs[:0]}
			} else {
				qs = append(qs, fairQueue{name: a.Queue})
			}
		}
		q := &qs[i]
		m := a.Count[events.Map]
		running := m.Running + a.Count[events.Reduce].Running
		q.running += running
		if m.Pending > 0 {
			q.jobs = append(q.jobs, appRunning{a, running})
		}
	}
	f.qs = qs
	order := f.order[:0]
	for i := range qs {
		if len(qs[i].jobs) > 0 {
			order = append(order, &qs[i])
		}
	}
	f.order = order
	slices.SortStableFunc(order, func(a, b *fairQueue) int {
		if c := cmp.Compare(float64(a.running)/p.weight(a.name), float64(b.running)/p.weight(b.name)); c != 0 {
			return c
		}
		return cmp.Compare(a.name, b.name)
	})
	var out []fairJob
	for _, q := range order {
		slices.SortStableFunc(q.jobs, func(a, b appRunning) int {
			if c := cmp.Compare(a.running, b.running); c != 0 {
				return c
			}
			if c := cmp.Compare(a.app.SubmitTS, b.app.SubmitTS); c != 0 {
				return c
			}
			return cmp.Compare(a.app.ID, b.app.ID)
		})
		for _, j := range q.jobs {
			out = append(out, fairJob{app: j.app, queue: q.name, running: j.running,
				queueUse: float64(q.running) / p.weight(q.name), queueJobs: len(q.jobs)})
		}
	}
	for i := range qs { // let the apps go
		clear(qs[i].jobs)
	}
	return out
}

// fairOrder is FairOrder's working state, kept between calls.
type fairOrder struct {
	at    map[string]int // a queue's index in qs
	qs    []fairQueue
	order []*fairQueue
}

// fairQueue is a queue in FairOrder: its running tasks and its jobs with
// pending maps.
type fairQueue struct {
	name    string
	running int
	jobs    []appRunning
}

// appRunning is a job and its running maps and reduces.
type appRunning struct {
	app     *cluster.App
	running int
}

// HeadJob is the first job in fair-share order that has pending maps (see
// FairOrder), nil when no job has one.
func (p *Plugin) HeadJob(v cluster.View) *cluster.App {
	if o := p.FairOrder(v); len(o) > 0 {
		return o[0].app
	}
	return nil
}

// localMaps returns the app's pending maps with a split on node n's host, in task order.
func localMaps(a *cluster.App, n *cluster.Node, limit int) []*cluster.Task {
	var out []*cluster.Task
	on := onHost(n)
	for _, t := range a.Tasks {
		if len(out) == limit {
			break
		}
		if t.Kind != events.Map || t.State != cluster.TaskPending {
			continue
		}
		for _, s := range t.Splits {
			if slices.ContainsFunc(s.Hosts, on) {
				out = append(out, t)
				break
			}
		}
	}
	return out
}

// onHost is n.OnHost with n's host worked out once: localMaps asks it for
// every replica host of every pending map at each heartbeat. A plain host
// name (no port, no brackets) is its own host, so it is on n exactly when
// it is n's id or n's host; any other form goes to n.OnHost.
func onHost(n *cluster.Node) func(string) bool {
	id, host := n.ID, n.Host()
	return func(h string) bool {
		if h == id {
			return true
		}
		if h == "" || h[0] == '[' || strings.IndexByte(h, ':') >= 0 {
			return n.OnHost(h)
		}
		return h == host
	}
}

// otherLocal reports whether a job other than head has a pending map with a
// split on n.
func (p *Plugin) otherLocal(v cluster.View, head *cluster.App, n *cluster.Node) bool {
	for _, a := range v.Apps() {
		if a != head && !a.Finished() && a.Count[events.Map].Pending > 0 && len(p.localMaps(a, n, 1)) > 0 {
			return true
		}
	}
	return false
}

// Assign implements policy.Assigner (§2.3.2).
func (p *Plugin) Assign(_ context.Context, v cluster.View, n *cluster.Node) ([]policy.Hint, *policy.Status) {
	if n.State != cluster.NodeRunning {
		return nil, policy.NewStatus(policy.Skip, "node not running")
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.hinted) > 0 {
		p.resolve(v)
	}
	p.st.Heartbeats++
	p.learnMapMB(n)
	if p.cfg.Mode == ModeYARN {
		return p.assignYARN(v, n)
	}
	s := p.State(v, n)
	var head *cluster.App
	if s.FreeSlots > 0 {
		if head = p.HeadJob(v); head != nil && len(p.localMaps(head, n, 1)) == 0 && p.otherLocal(v, head, n) {
			p.st.OtherLocal++
		}
	}
	var room int
	switch {
	case s.Allowable > 0:
		// Below the balancing line: the scheduler (with delay scheduling)
		// decides; pre-scheduling has nothing to add.
		p.st.Allowable++
		return nil, p.skip.allowable
	case s.Extra > 0:
		p.st.ExtraOnly++
		room = s.Extra
	case s.IdleReduceSlots > 0:
		p.st.Borrow++
		room = s.IdleReduceSlots
	default:
		p.st.NoIdle++
		return nil, p.skip.noIdle
	}
	if head == nil {
		return nil, p.skip.noPending
	}
	headLocal := p.localMaps(head, n, min(room, p.cfg.MaxPerHeartbeat))
	if len(headLocal) == 0 {
		// The head job has no input here: delay scheduling's case.
		p.st.HeadNotLocal++
		return nil, p.skip.headNotLocal
	}
	p.st.HeadLocal++
	// Formatted only here: most heartbeats end above without a hint.
	why := fmt.Sprintf("map share used up, borrowing idle reduce slots %d (DHSA)", s.IdleReduceSlots)
	if s.Extra > 0 {
		why = fmt.Sprintf("extra idle map slots %d, none allowable (load factor %.2f)", s.Extra, s.LoadFactor)
	}
	out := make([]policy.Hint, 0, len(headLocal))
	for _, t := range headLocal {
		out = append(out, policy.Hint{Kind: policy.KindPlace, App: head.ID, Task: t.ID,
			Nodes:  []policy.NodeScore{{Node: n.ID, Score: 1, Locality: events.NodeLocal}},
			Reason: fmt.Sprintf("prescheduling: head job %s has local input on %s; %s", head.ID, n.ID, why)})
		p.noteHint(head.ID, t.ID, n.ID)
	}
	return out, nil
}

// assignYARN is the YARN form of §2.3.2's first case. YARN has no load
// manager, so Definition 2's extra idle slots (above Step 2's balancing line)
// do not arise; the waste PreScheduling removes does: at node n's heartbeat
// the head job in fair-share order ("a headed job following the fair-share
// priority order", §2.3.2) has no pending map with a split on n, so delay
// scheduling either skips it (and the next job takes the container, local or
// not) or, once its wait is over, hands it n's free container for a
// non-local map, while another job's map local to n waits. For the head job
// that container is the analogue of an extra idle slot: it cannot use it
// without losing locality. As in the first case, it is pre-allocated: up to
// max_per_heartbeat maps of the first jobs in fair order with a split on n
// get place hints naming n (locality node), so the scheduler pre-assigns the
// container to them (Table 1: data locality +; fairness kept within
// fairness_bound, since the receiver is served ahead of the head job; the
// head job keeps its turn on nodes where it has input). A node where the head
// job has a local map is left to the scheduler, which serves it there.
func (p *Plugin) assignYARN(v cluster.View, n *cluster.Node) ([]policy.Hint, *policy.Status) {
	free := p.slots(n.FreeVCores(), n.FreeMemoryMB())
	if free == 0 {
		p.st.NoIdle++
		return nil, policy.NewStatus(policy.Skip, "no free container")
	}
	order := p.FairOrder(v)
	if len(order) == 0 {
		return nil, policy.NewStatus(policy.Skip, "no pending maps")
	}
	head := order[0]
	if len(p.localMaps(head.app, n, 1)) > 0 {
		p.st.HeadLocal++
		return nil, policy.NewStatus(policy.Skip, "head job has a local map: the scheduler serves it")
	}
	p.st.HeadNotLocal++
	slots := p.clusterMapSlots(v)
	var weights float64
	seen := map[string]bool{}
	for _, j := range order {
		if !seen[j.queue] {
			seen[j.queue] = true
			weights += p.weight(j.queue)
		}
	}
	room := min(free, p.cfg.MaxPerHeartbeat)
	var out []policy.Hint
	held, other := false, false
	for _, k := range order[1:] {
		if len(out) == room {
			break
		}
		maps := p.localMaps(k.app, n, room-len(out))
		if len(maps) == 0 {
			continue
		}
		other = true
		if !p.withinBound(head, k, slots, weights) {
			held = true
			continue
		}
		for _, t := range maps {
			out = append(out, policy.Hint{Kind: policy.KindPlace, App: k.app.ID, Task: t.ID,
				Nodes: []policy.NodeScore{{Node: n.ID, Score: 1, Locality: events.NodeLocal}},
				Reason: fmt.Sprintf("prescheduling (yarn): head job %s has no input on %s; pre-assigned to %s's local map",
					head.app.ID, n.ID, k.app.ID)})
			p.noteHint(k.app.ID, t.ID, n.ID)
			p.st.Steered++
		}
	}
	if other {
		p.st.OtherLocal++
	}
	if p.cfg.HoldFraction > 0 {
		out = append(out, p.holdForData(v, order, n, free)...)
	}
	if len(out) == 0 {
		if held {
			p.st.FairnessHeld++
			return nil, policy.NewStatus(policy.Skip, "jobs with input here are past the fairness bound")
		}
		return nil, policy.NewStatus(policy.Skip, "no job has input here")
	}
	return out, nil
}

// withinBound reports whether k may be served ahead of the head job: its
// running containers per weight exceed the head's by at most fairness_bound
// of its fair share. Jobs of one queue are compared by their running tasks
// against the queue's share over its jobs; jobs of different queues by their
// queues' running tasks per weight against the cluster's slots over the
// active queues' weights.
func (p *Plugin) withinBound(head, k fairJob, slots int, weights float64) bool {
	if weights <= 0 || slots <= 0 {
		return false
	}
	if head.queue == k.queue {
		share := float64(slots) * p.weight(k.queue) / weights / float64(max(1, k.queueJobs))
		return float64(k.running-head.running) <= p.cfg.FairnessBound*share
	}
	return k.queueUse-head.queueUse <= p.cfg.FairnessBound*float64(slots)/weights
}

// holdForData keeps the maps that would leave their data at n's heartbeat
// for the nodes holding it, when one of those is predicted to free a
// container soon (HoldFraction). The jobs that may launch off their data on
// n are the ones ahead of the first job in fair order with input on n: the
// scheduler offers n to them first, and one past its delay-scheduling wait
// takes it for its next pending map. For each such job the pending maps are
// walked in the order the scheduler takes them; a map whose data's node
// frees a container within HoldFraction of the job's mean map duration is
// held there (a strict place hint naming its data's nodes, the soon-free one
// first, ending at the predicted free plus holdMarginMS), and the walk stops
// once n's free containers are matched by maps that cannot be held. A map is
// held at most once, and a node is promised no more held maps than
// containers predicted to free on it.
func (p *Plugin) holdForData(v cluster.View, order []fairJob, n *cluster.Node, free int) []policy.Hint {
	now := v.Now()
	if len(p.held) > maxHeldKept {
		for k, until := range p.held {
			if until < now-heldMemoryMS {
				delete(p.held, k) // long launched, or its app is gone
			}
		}
	}
	var out []policy.Hint
	frees := map[string][]int64{} // node -> predicted free times not yet promised
	for ji, j := range order {
		if len(p.localMaps(j.app, n, 1)) > 0 {
			break
		}
		mean := meanMapMS(j.app)
		if mean <= 0 {
			continue
		}
		window := int64(p.cfg.HoldFraction * float64(mean))
		leaving := 0
		for _, t := range j.app.Tasks {
			if leaving == free {
				break
			}
			if t.Kind != events.Map || t.State != cluster.TaskPending {
				continue
			}
			key := taskstat.Key(t)
			if until, done := p.held[key]; done {
				// Held once: a missed prediction is not waited for twice.
				// Once its hold is over the scheduler may take it here.
				if until <= now {
					leaving++
				}
				continue
			}
			nodes, at := p.soonFree(v, t, now, window, frees, order[:ji])
			if nodes == nil {
				leaving++
				continue
			}
			until := at + holdMarginMS
			p.held[key] = until
			p.heldOn[nodes[0].Node] = append(p.heldOn[nodes[0].Node], until)
			p.st.Held++
			out = append(out, policy.Hint{Kind: policy.KindPlace, App: j.app.ID, Task: t.ID, Strict: true, ExpiresTS: until,
				Nodes: nodes,
				Reason: fmt.Sprintf("prescheduling (yarn): %s's map held for its data's nodes, %s predicted to free a container in %d ms (hold window %d ms)",
					j.app.ID, nodes[0].Node, at-now, window)})
			p.noteHint(j.app.ID, t.ID, nodes[0].Node)
		}
	}
	return out
}

// holdMarginMS is added to a hold past the predicted free: the freed
// container is offered at the node's next heartbeat.
const holdMarginMS = 500

// A held map is remembered (so it is held once) for heldMemoryMS past its
// hold; the memory is swept when it holds more than maxHeldKept maps.
const (
	heldMemoryMS = 10 * 60_000
	maxHeldKept  = 4096
)

// maxHoldNodes bounds the nodes a hold names (HDFS's default replication).
const maxHoldNodes = 3

// soonFree returns the running nodes holding a split of t, the first one
// predicted to free a container within window of now not yet promised to a
// held map, with that time; nil when none of them is.
func (p *Plugin) soonFree(v cluster.View, t *cluster.Task, now, window int64, frees map[string][]int64, ahead []fairJob) ([]policy.NodeScore, int64) {
	var local []*cluster.Node
	for _, s := range t.Splits {
		for _, h := range s.Hosts {
			for _, m := range v.HostNodes(cluster.HostOf(h)) {
				if m.State == cluster.NodeRunning && m.OnHost(h) && !slices.Contains(local, m) {
					local = append(local, m)
				}
			}
		}
	}
	best, at := -1, int64(0)
	for i, m := range local {
		f, ok := frees[m.ID]
		if !ok {
			f = p.predictFrees(m, now, window)
			// The jobs ahead in fair order are offered m first: its
			// frees serve their maps local to m before this one.
			for _, k := range ahead {
				if len(f) == 0 {
					break
				}
				f = f[min(len(f), len(p.localMaps(k.app, m, len(f)))):]
			}
			frees[m.ID] = f
		}
		if len(f) > 0 && (best < 0 || f[0] < at) {
			best, at = i, f[0]
		}
	}
	if best < 0 {
		return nil, 0
	}
	frees[local[best].ID] = frees[local[best].ID][1:]
	nodes := []policy.NodeScore{{Node: local[best].ID, Score: 1, Locality: events.NodeLocal}}
	for i, m := range local {
		if i != best && len(nodes) < maxHoldNodes {
			nodes = append(nodes, policy.NodeScore{Node: m.ID, Score: 1, Locality: events.NodeLocal})
		}
	}
	return nodes, at
}

// predictFrees lists, earliest first, when node m's containers are
// predicted to free within window of now (a free container now counts at
// now), less the ones already promised to holds still in force. A running
// attempt's end is its time to end at its progress rate (SAMR eq. 4–5).
func (p *Plugin) predictFrees(m *cluster.Node, now, window int64) []int64 {
	var f []int64
	for range p.slots(m.FreeVCores(), m.FreeMemoryMB()) {
		f = append(f, now)
	}
	for _, at := range m.Running {
		el := taskstat.Elapsed(at, now)
		if at.Progress <= 0 || el <= 0 {
			continue
		}
		end := now + int64(math.Round(taskstat.TimeToEnd(at.Progress, taskstat.ProgressRate(at.Progress, el))))
		if end <= now+window {
			f = append(f, end)
		}
	}
	slices.Sort(f)
	live := p.heldOn[m.ID][:0]
	for _, e := range p.heldOn[m.ID] {
		if e > now {
			live = append(live, e)
		}
	}
	if len(live) == 0 {
		delete(p.heldOn, m.ID)
	} else {
		p.heldOn[m.ID] = live
	}
	if len(live) >= len(f) {
		return nil
	}
	return f[len(live):]
}

// meanMapMS is the mean duration of the app's successful map attempts, 0
// before one has finished. Running maps are not used: early in an attempt
// its elapsed time over its progress overstates the duration, and a window
// taken from it holds maps for longer than their data is worth.
func meanMapMS(a *cluster.App) int64 {
	var sum, n int64
	for _, t := range a.Tasks {
		if t.Kind != events.Map || t.State != cluster.TaskSucceeded {
			continue
		}
		for _, at := range t.Attempts {
			if at.State == events.StateSucceeded && at.StartTS > 0 && at.FinishTS > at.StartTS {
				sum += at.FinishTS - at.StartTS
				n++
			}
		}
	}
	if n == 0 {
		return 0
	}
	return sum / n
}
