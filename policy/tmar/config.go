// TMaR's settings.

package tmar

import (
	"fmt"
)

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
