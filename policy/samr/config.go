package samr

import (
	"fmt"

	"github.com/rmsidecar/rmsidecar/policy"
)

// Name is the registered name.
const Name = "samr"

// Config are SAMR's parameters; the defaults are the paper's best values
// (§IV-B: HP = 0.2, STaC = 0.3, STrC = 0.2, STrP = 0.3, BP = 0.2).
type Config struct {
	// HP (HISTORY_PRO) is the weight of historical information in stage weights.
	HP float64 `json:"hp" yaml:"hp"`
	// STaC (SLOW_TASK_CAP) separates slow tasks (eq. 6).
	STaC float64 `json:"stac" yaml:"stac"`
	// STrC (SLOW_TRACKER_CAP) separates slow nodes (eq. 12–13).
	STrC float64 `json:"strc" yaml:"strc"`
	// STrP (SLOW_TRACKER_PRO) caps the share of slow nodes (eq. 14).
	STrP float64 `json:"strp" yaml:"strp"`
	// BP (BACKUP_PRO) caps backups as a share of running tasks (eq. 15).
	BP float64 `json:"bp" yaml:"bp"`
	// MinRuntimeMS: tasks younger than this are not judged (Hadoop 0.19's
	// SPECULATIVE_LAG, which SAMR's implementation inherits).
	MinRuntimeMS int64 `json:"min_runtime_ms" yaml:"min_runtime_ms"`
	// ReproposeMS is how long a backup proposal stands (and counts as a
	// backup) before the task may be proposed again if no copy showed up.
	ReproposeMS int64 `json:"repropose_ms" yaml:"repropose_ms"`
}

// DefaultConfig returns the paper's parameters.
func DefaultConfig() Config {
	return Config{HP: 0.2, STaC: 0.3, STrC: 0.2, STrP: 0.3, BP: 0.2, MinRuntimeMS: 60_000, ReproposeMS: 15_000}
}

func (c Config) validate() error {
	for _, p := range []struct {
		name string
		v    float64
	}{{"hp", c.HP}, {"stac", c.STaC}, {"strc", c.STrC}, {"strp", c.STrP}, {"bp", c.BP}} {
		if p.v < 0 || p.v > 1 {
			return fmt.Errorf("samr settings: %s: %v not in [0,1]", p.name, p.v)
		}
	}
	if c.MinRuntimeMS < 0 || c.ReproposeMS < 0 {
		return fmt.Errorf("samr settings: min_runtime_ms and repropose_ms must not be negative")
	}
	return nil
}

func decodeConfig(h policy.Handle) (Config, error) {
	cfg := DefaultConfig()
	if err := h.DecodeArgs(Name, &cfg); err != nil {
		return cfg, err
	}
	return cfg, cfg.validate()
}
