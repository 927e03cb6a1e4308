package dhsa

import (
	"fmt"
	"math"
	"time"

	"github.com/rmsidecar/rmsidecar/policy"
)

// Scope says what a ratio hint caps.
type Scope string

// Scopes.
const (
	// ScopeQueue emits one ratio hint per queue (pool), the paper's unit of
	// fairness; the scheduler shares a pool's caps among its jobs.
	ScopeQueue Scope = "queue"
	// ScopeApp splits each pool's caps among its running apps (max-min by
	// demand, as the fair scheduler shares a pool among its jobs) and emits
	// one hint per app.
	ScopeApp Scope = "app"
)

// Config is the configuration of dhsa-pi and dhsa-pd (policies.dhsa-pi or
// policies.dhsa-pd). New starts from DefaultConfig; Args overrides the keys
// it names.
type Config struct {
	// MapShare is the fraction of a node's slots that are map slots when
	// MapSlots and ReduceSlots are not set. Hadoop 1 configures 2 map and 2
	// reduce slots per tasktracker (mapred.tasktracker.{map,reduce}.tasks.maximum),
	// so the default is 0.5.
	MapShare float64 `yaml:"map_share"`
	// MapSlots and ReduceSlots fix the slots of every node (the paper's
	// "1/11" to "11/1" configurations on 12-core nodes); both 0 derives
	// them from MapShare and the node's vcores.
	MapSlots    int `yaml:"map_slots"`
	ReduceSlots int `yaml:"reduce_slots"`
	// VCoresPerSlot is how many vcores one slot stands for; the paper
	// assumes one slot per CPU core (§3.2.2).
	VCoresPerSlot int `yaml:"vcores_per_slot"`
	// MapSlotWeight and ReduceSlotWeight are the resource weights of a map
	// and a reduce slot (§2.1.1, challenge C2). Equal by default: Hadoop's
	// slots are uniform unless configured otherwise.
	MapSlotWeight    float64 `yaml:"map_slot_weight"`
	ReduceSlotWeight float64 `yaml:"reduce_slot_weight"`
	// PercentageOfBorrowedMapSlots is the fraction of unused map slots that
	// reduce tasks may borrow; PercentageOfBorrowedReduceSlots the fraction
	// of unused reduce slots that map tasks may borrow (§2.1.1). The paper
	// sets no number in its body and recommends large values for
	// performance (Appendix F); the default 1 borrows every idle slot.
	PercentageOfBorrowedMapSlots    float64 `yaml:"percentage_of_borrowed_map_slots"`
	PercentageOfBorrowedReduceSlots float64 `yaml:"percentage_of_borrowed_reduce_slots"`
	// ReduceRampupLimit is the MapReduce AM's mapreduce.job.reduce.rampup.limit
	// (Hadoop default 0.5): while a job still has maps to run, its AM asks
	// for reducers only up to this fraction of the job's containers, so
	// reducers beyond it are not demand DHSA can serve yet. Counting them
	// would reserve reduce share that no reducer takes (MRv1, the paper's
	// setting, has no such limit). 0 counts every pending reducer.
	ReduceRampupLimit float64 `yaml:"reduce_rampup_limit"`
	// Pools are queue weights (a queue not listed has weight 1).
	Pools map[string]float64 `yaml:"pools"`
	// Scope is what a ratio hint caps: queue (default) or app.
	Scope Scope `yaml:"scope"`
	// NodeCaps also emits one ratio hint per running node (hint field
	// node) capping the maps and reduces running on it (NodeCaps: its own
	// slots, the idle slots of the other kind while a phase borrows, and an
	// even spread of the reduce grant): the paper's slots are per
	// TaskTracker. On by default.
	NodeCaps bool `yaml:"node_caps"`
	// NodeCapsRefresh is how often (event time) unchanged node caps are
	// sent again, so they stay in force (the engine keeps a ratio hint 60 s).
	NodeCapsRefresh time.Duration `yaml:"node_caps_refresh"`
	// Assign turns on dhsa-pd's per-heartbeat allocation (Cases 1–4) as
	// place hints. Off by default: YARN's own allocator already places
	// tasks, and the ratio caps carry DHSA's decision.
	Assign bool `yaml:"assign"`
	// MaxAssignPerHeartbeat bounds the place hints of one heartbeat.
	MaxAssignPerHeartbeat int `yaml:"max_assign_per_heartbeat"`
}

// DefaultConfig returns the defaults described on Config.
func DefaultConfig() Config {
	return Config{
		MapShare:                        0.5,
		VCoresPerSlot:                   1,
		MapSlotWeight:                   1,
		ReduceSlotWeight:                1,
		PercentageOfBorrowedMapSlots:    1,
		PercentageOfBorrowedReduceSlots: 1,
		ReduceRampupLimit:               0.5,
		Scope:                           ScopeQueue,
		NodeCaps:                        true,
		NodeCapsRefresh:                 30 * time.Second,
		MaxAssignPerHeartbeat:           4,
	}
}

// Validate names the first bad key.
func (c *Config) Validate() error {
	switch {
	case c.MapShare < 0 || c.MapShare > 1 || math.IsNaN(c.MapShare):
		return fmt.Errorf("map_share: must be in [0, 1], got %v", c.MapShare)
	case c.MapSlots < 0:
		return fmt.Errorf("map_slots: must be >= 0, got %d", c.MapSlots)
	case c.ReduceSlots < 0:
		return fmt.Errorf("reduce_slots: must be >= 0, got %d", c.ReduceSlots)
	case c.VCoresPerSlot < 1:
		return fmt.Errorf("vcores_per_slot: must be >= 1, got %d", c.VCoresPerSlot)
	case !(c.MapSlotWeight > 0):
		return fmt.Errorf("map_slot_weight: must be > 0, got %v", c.MapSlotWeight)
	case !(c.ReduceSlotWeight > 0):
		return fmt.Errorf("reduce_slot_weight: must be > 0, got %v", c.ReduceSlotWeight)
	case c.PercentageOfBorrowedMapSlots < 0 || c.PercentageOfBorrowedMapSlots > 1:
		return fmt.Errorf("percentage_of_borrowed_map_slots: must be in [0, 1], got %v", c.PercentageOfBorrowedMapSlots)
	case c.PercentageOfBorrowedReduceSlots < 0 || c.PercentageOfBorrowedReduceSlots > 1:
		return fmt.Errorf("percentage_of_borrowed_reduce_slots: must be in [0, 1], got %v", c.PercentageOfBorrowedReduceSlots)
	case c.ReduceRampupLimit < 0 || c.ReduceRampupLimit > 1:
		return fmt.Errorf("reduce_rampup_limit: must be in [0, 1], got %v", c.ReduceRampupLimit)
	case c.Scope != ScopeQueue && c.Scope != ScopeApp:
		return fmt.Errorf("scope: must be queue or app, got %q", c.Scope)
	case c.NodeCapsRefresh <= 0:
		return fmt.Errorf("node_caps_refresh: must be > 0, got %v", c.NodeCapsRefresh)
	case c.MaxAssignPerHeartbeat < 1:
		return fmt.Errorf("max_assign_per_heartbeat: must be >= 1, got %d", c.MaxAssignPerHeartbeat)
	}
	return policy.CheckPoolWeights(c.Pools)
}

// poolWeight is a queue's weight (1 when not configured).
func (c *Config) poolWeight(queue string) float64 {
	if w, ok := c.Pools[queue]; ok {
		return w
	}
	return 1
}

// NodeSlots returns the map and reduce slots of a node with vcores cores:
// the fixed MapSlots/ReduceSlots when set, else the node's slots split by
// MapShare (rounded to the nearest slot).
func (c *Config) NodeSlots(vcores int) (mapSlots, reduceSlots int) {
	if c.MapSlots > 0 || c.ReduceSlots > 0 {
		return c.MapSlots, c.ReduceSlots
	}
	slots := vcores / c.VCoresPerSlot
	mapSlots = int(math.Round(c.MapShare * float64(slots)))
	return mapSlots, slots - mapSlots
}
