package prescheduling

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/rmsidecar/rmsidecar/cluster"
	"github.com/rmsidecar/rmsidecar/events"
	"github.com/rmsidecar/rmsidecar/policy"
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
	// MaxPerHeartbeat bounds the maps pre-scheduled at one heartbeat, so
	// the load balance is traded one slot at a time.
	MaxPerHeartbeat int `yaml:"max_per_heartbeat"`
	// LoadMaxDiff is Hadoop's mapred.fairscheduler.load.max.diff, added to
	// the load factor before capping (default 0, as in Hadoop 1.2.1).
	LoadMaxDiff float64 `yaml:"load_max_diff"`
	// Pools are queue weights for the fair-share order (default 1).
	Pools map[string]float64 `yaml:"pools"`
}

// DefaultConfig returns the defaults described on Config.
func DefaultConfig() Config {
	return Config{VCoresPerSlot: 1, MaxPerHeartbeat: 1}
}

// Validate names the first bad key.
func (c *Config) Validate() error {
	switch {
	case c.MapSlots < 0:
		return fmt.Errorf("map_slots: must be >= 0, got %d", c.MapSlots)
	case c.ReduceSlots < 0:
		return fmt.Errorf("reduce_slots: must be >= 0, got %d", c.ReduceSlots)
	case c.VCoresPerSlot < 1:
		return fmt.Errorf("vcores_per_slot: must be >= 1, got %d", c.VCoresPerSlot)
	case c.MaxPerHeartbeat < 1:
		return fmt.Errorf("max_per_heartbeat: must be >= 1, got %d", c.MaxPerHeartbeat)
	case c.LoadMaxDiff < 0 || math.IsNaN(c.LoadMaxDiff):
		return fmt.Errorf("load_max_diff: must be >= 0, got %v", c.LoadMaxDiff)
	case c.BorrowReduceSlots && c.ReduceSlots == 0:
		return fmt.Errorf("borrow_reduce_slots: needs reduce_slots > 0")
	}
	for name, w := range c.Pools {
		if !(w > 0) {
			return fmt.Errorf("pools.%s: weight must be > 0, got %v", name, w)
		}
	}
	return nil
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
type Plugin struct{ cfg Config }

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
	return &Plugin{cfg: cfg}, nil
}

// Name implements policy.Plugin.
func (*Plugin) Name() string { return Name }

func (p *Plugin) mapSlots(n *cluster.Node) int {
	if p.cfg.MapSlots > 0 {
		return p.cfg.MapSlots
	}
	return n.VCores / p.cfg.VCoresPerSlot
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
	var capacity, demand int
	for _, m := range v.Nodes() {
		if m.State == cluster.NodeRunning {
			capacity += p.mapSlots(m)
		}
	}
	for _, a := range v.Apps() {
		if a.Finished() {
			continue
		}
		c := a.Count[events.Map]
		demand += c.Pending + c.Running
	}
	s := NodeState{LoadFactor: LoadFactor(demand, capacity) + p.cfg.LoadMaxDiff, MapSlots: p.mapSlots(n),
		FreeSlots: n.FreeVCores() / p.cfg.VCoresPerSlot}
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

// HeadJob is the first job in fair-share order that has pending maps, by
// the fair scheduler's hierarchy: the queue with the fewest running tasks per
// weight (then by name), and in it the job with the fewest running tasks
// (then the earliest submitted, then the smallest id).
func (p *Plugin) HeadJob(v cluster.View) *cluster.App {
	type queue struct {
		name    string
		running int
		jobs    []*cluster.App // with pending maps
	}
	byName := map[string]*queue{}
	var queues []*queue
	running := func(a *cluster.App) int { return a.Count[events.Map].Running + a.Count[events.Reduce].Running }
	for _, a := range v.Apps() {
		if a.Finished() {
			continue
		}
		q := byName[a.Queue]
		if q == nil {
			q = &queue{name: a.Queue}
			byName[a.Queue] = q
			queues = append(queues, q)
		}
		q.running += running(a)
		if a.Count[events.Map].Pending > 0 {
			q.jobs = append(q.jobs, a)
		}
	}
	queues = slices.DeleteFunc(queues, func(q *queue) bool { return len(q.jobs) == 0 })
	if len(queues) == 0 {
		return nil
	}
	head := slices.MinFunc(queues, func(a, b *queue) int {
		if c := cmp.Compare(float64(a.running)/p.weight(a.name), float64(b.running)/p.weight(b.name)); c != 0 {
			return c
		}
		return cmp.Compare(a.name, b.name)
	})
	return slices.MinFunc(head.jobs, func(a, b *cluster.App) int {
		if c := cmp.Compare(running(a), running(b)); c != 0 {
			return c
		}
		if c := cmp.Compare(a.SubmitTS, b.SubmitTS); c != 0 {
			return c
		}
		return cmp.Compare(a.ID, b.ID)
	})
}

// localMaps returns the app's pending maps with a split on node n's host, in task order.
func localMaps(a *cluster.App, n *cluster.Node, limit int) []*cluster.Task {
	var out []*cluster.Task
	for _, t := range a.Tasks {
		if len(out) == limit {
			break
		}
		if t.Kind != events.Map || t.State != cluster.TaskPending {
			continue
		}
		for _, s := range t.Splits {
			if slices.ContainsFunc(s.Hosts, n.OnHost) {
				out = append(out, t)
				break
			}
		}
	}
	return out
}

// Assign implements policy.Assigner (§2.3.2).
func (p *Plugin) Assign(_ context.Context, v cluster.View, n *cluster.Node) ([]policy.Hint, *policy.Status) {
	if n.State != cluster.NodeRunning {
		return nil, policy.NewStatus(policy.Skip, "node not running")
	}
	s := p.State(v, n)
	var room int
	var why string
	switch {
	case s.Allowable > 0:
		// Below the balancing line: the scheduler (with delay scheduling)
		// decides; pre-scheduling has nothing to add.
		return nil, policy.NewStatus(policy.Skip, "allowable idle map slots")
	case s.Extra > 0:
		room, why = s.Extra, fmt.Sprintf("extra idle map slots %d, none allowable (load factor %.2f)", s.Extra, s.LoadFactor)
	case s.IdleReduceSlots > 0:
		room, why = s.IdleReduceSlots, fmt.Sprintf("map share used up, borrowing idle reduce slots %d (DHSA)", s.IdleReduceSlots)
	default:
		return nil, policy.NewStatus(policy.Skip, "no idle slots")
	}
	head := p.HeadJob(v)
	if head == nil {
		return nil, policy.NewStatus(policy.Skip, "no pending maps")
	}
	maps := localMaps(head, n, min(room, p.cfg.MaxPerHeartbeat))
	if len(maps) == 0 {
		// The head job has no input here: delay scheduling's case.
		return nil, policy.NewStatus(policy.Skip, "head job has no local map")
	}
	out := make([]policy.Hint, 0, len(maps))
	for _, t := range maps {
		out = append(out, policy.Hint{Kind: policy.KindPlace, App: head.ID, Task: t.ID,
			Nodes:  []policy.NodeScore{{Node: n.ID, Score: 1, Locality: events.NodeLocal}},
			Reason: fmt.Sprintf("prescheduling: head job %s has local input on %s; %s", head.ID, n.ID, why)})
	}
	return out, nil
}
