package erul

import (
	"fmt"
	"time"
)

// Estimator names how the remaining time of an attempt is estimated.
type Estimator string

// Estimators.
const (
	// EstimatorERUL is the load-aware linear model (Algorithm 1, eq. 8–11).
	EstimatorERUL Estimator = "erul"
	// EstimatorEWMA is the load-unaware estimate of Hadoop-MCP: remaining
	// progress over an EWMA of the progress rate.
	EstimatorEWMA Estimator = "ewma"
)

// Base names the load-free remaining time that an estimator starts from.
type Base string

// Bases.
const (
	// BaseProgress is the whole-attempt progress: eq. 9 for erul
	// (Algorithm 1 line 20), remaining progress over its EWMA rate for ewma.
	BaseProgress Base = "progress"
	// BasePhases is eq. 4: the current phase at its EWMA bandwidth plus the
	// job's mean time of the phases still to come (falls back to progress
	// until an attempt of the kind has finished).
	BasePhases Base = "phases"
)

// LoadSignal names which heartbeat reading is the system load z(t) of eq. 3.
type LoadSignal string

// Load signals.
const (
	// LoadAverage is the 1-minute load average, what the paper's
	// getSystemLoad() returns (Algorithm 1, lines 4 and 11).
	LoadAverage LoadSignal = "load1"
	// LoadPerVCore is the load average divided by the node's vcores.
	LoadPerVCore LoadSignal = "load1_per_vcore"
	// LoadCPU is the CPU utilisation in 0..1.
	LoadCPU LoadSignal = "cpu_util"
)

// Config holds the parameters of the three policies. Zero values are never
// used: New starts from DefaultConfig and Args overrides keys it names.
type Config struct {
	// Delta is δ, the load sampling period (§3.2.2, Algorithm 1 line 10).
	Delta time.Duration `yaml:"delta"`
	// K is k of eq. 10: how many recent load samples estimate the load
	// over the remaining time (the length of lastLoadSerial in Algorithm 1).
	K int `yaml:"k"`
	// Alpha is the smoothing factor of the capability EWMA (eq. 14).
	Alpha float64 `yaml:"alpha"`
	// ReduceAlpha and ReduceBeta weigh the copy progress in the reduce
	// priority (eq. 13); the paper sets them to 1/3 and 2/3.
	ReduceAlpha float64 `yaml:"reduce_alpha"`
	ReduceBeta  float64 `yaml:"reduce_beta"`
	// SpeculativeLag is how long an attempt must have run before it may be
	// speculated, so its speed estimate has settled (§3.6).
	SpeculativeLag time.Duration `yaml:"speculative_lag"`

	// Estimator overrides the remaining-time model (default per policy:
	// erul for erul, ewma for mcp and exmcp).
	Estimator Estimator `yaml:"estimator"`
	// Base is the load-free remaining time the estimator starts from
	// (default per policy: progress for erul, phases for mcp and exmcp).
	Base Base `yaml:"base"`
	// LoadSignal is the heartbeat reading used as z(t).
	LoadSignal LoadSignal `yaml:"load_signal"`
	// DefaultSplitMB is Data_total of a map whose splits carry no length
	// (the HDFS default block size).
	DefaultSplitMB float64 `yaml:"default_split_mb"`
	// Container sizes of a backup whose original attempt did not report
	// its own (the MapReduce defaults of mapreduce.{map,reduce}.memory.mb).
	MapVCores      int `yaml:"map_vcores"`
	MapMemoryMB    int `yaml:"map_memory_mb"`
	ReduceVCores   int `yaml:"reduce_vcores"`
	ReduceMemoryMB int `yaml:"reduce_memory_mb"`
	// HintHold is how long a task stays off the candidate list after a
	// speculate hint, so the backup has time to start and the same task is
	// not proposed twice (the engine's speculate hint TTL).
	HintHold time.Duration `yaml:"hint_hold"`
}

// DefaultConfig returns the paper's parameters: δ = 5 s, k = 5, α = 0.3,
// reduce α = 1/3 and β = 2/3, speculativeLag = 30 s.
func DefaultConfig(est Estimator) Config {
	base := BasePhases // §3.6: MCP and exMCP take t_rem from eq. 4
	if est == EstimatorERUL {
		base = BaseProgress // Algorithm 1 line 20
	}
	return Config{
		Base:           base,
		Delta:          5 * time.Second,
		K:              5,
		Alpha:          0.3,
		ReduceAlpha:    1.0 / 3,
		ReduceBeta:     2.0 / 3,
		SpeculativeLag: 30 * time.Second,
		Estimator:      est,
		LoadSignal:     LoadAverage,
		DefaultSplitMB: 128,
		MapVCores:      1,
		MapMemoryMB:    1024,
		ReduceVCores:   1,
		ReduceMemoryMB: 1024,
		HintHold:       30 * time.Second,
	}
}

// Validate reports the first parameter out of range, by its key.
func (c *Config) Validate() error {
	switch {
	case c.Delta <= 0:
		return fmt.Errorf("delta: must be > 0, got %s", c.Delta)
	case c.K < 1:
		return fmt.Errorf("k: must be >= 1, got %d", c.K)
	case c.Alpha < 0 || c.Alpha >= 1:
		return fmt.Errorf("alpha: must be in [0, 1), got %g", c.Alpha)
	case c.ReduceAlpha <= 0:
		return fmt.Errorf("reduce_alpha: must be > 0, got %g", c.ReduceAlpha)
	case c.ReduceBeta < 0:
		return fmt.Errorf("reduce_beta: must be >= 0, got %g", c.ReduceBeta)
	case c.SpeculativeLag < 0:
		return fmt.Errorf("speculative_lag: must be >= 0, got %s", c.SpeculativeLag)
	case c.Estimator != EstimatorERUL && c.Estimator != EstimatorEWMA:
		return fmt.Errorf("estimator: must be %q or %q, got %q", EstimatorERUL, EstimatorEWMA, c.Estimator)
	case c.Base != BaseProgress && c.Base != BasePhases:
		return fmt.Errorf("base: must be %q or %q, got %q", BaseProgress, BasePhases, c.Base)
	case c.LoadSignal != LoadAverage && c.LoadSignal != LoadPerVCore && c.LoadSignal != LoadCPU:
		return fmt.Errorf("load_signal: must be %q, %q or %q, got %q", LoadAverage, LoadPerVCore, LoadCPU, c.LoadSignal)
	case c.DefaultSplitMB <= 0:
		return fmt.Errorf("default_split_mb: must be > 0, got %g", c.DefaultSplitMB)
	case c.MapVCores < 1 || c.ReduceVCores < 1:
		return fmt.Errorf("map_vcores, reduce_vcores: must be >= 1")
	case c.MapMemoryMB < 1 || c.ReduceMemoryMB < 1:
		return fmt.Errorf("map_memory_mb, reduce_memory_mb: must be >= 1")
	case c.HintHold < 0:
		return fmt.Errorf("hint_hold: must be >= 0, got %s", c.HintHold)
	}
	return nil
}
