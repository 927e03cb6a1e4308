package baseline

import (
	"fmt"

	"github.com/rmsidecar/rmsidecar/policy"
)

// DecodeArgs fills cfg from the policy's settings; without settings cfg keeps
// its defaults.
func DecodeArgs(h policy.Handle, name string, cfg any) error {
	if h.Args == nil {
		return nil
	}
	if err := h.Args.Decode(name, cfg); err != nil {
		return fmt.Errorf("%s settings: %w", name, err)
	}
	return nil
}

// EstBackupMS is what a fresh copy is expected to take: the mean duration of
// the job's finished tasks of the kind, else the full duration of a task
// progressing at the average rate avgPR (progress per ms), else 0.
func EstBackupMS(s Stats, avgPR float64) int64 {
	switch {
	case s.N > 0:
		return int64(s.Mean)
	case avgPR > 0:
		return int64(min(1/avgPR, float64(MaxTTEMS)))
	}
	return 0
}
