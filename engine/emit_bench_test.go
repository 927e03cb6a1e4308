package engine

import (
	"strconv"
	"testing"

	"github.com/rs/zerolog"

	"github.com/rmsidecar/rmsidecar/policy"
)

// BenchmarkEmit2000 is the engine's share of a speculation round that
// proposes a copy in each of 2,000 jobs: validation, de-duplication against
// the hints in force, ids and counters.
func BenchmarkEmit2000(b *testing.B) {
	hs := make([]policy.Hint, 2000)
	for i := range hs {
		s := strconv.Itoa(i)
		hs[i] = policy.Hint{Kind: policy.KindSpeculate, Policy: "yarn", App: "application_1_" + s, Task: "task_1_" + s + "_m_7",
			Attempt: "task_1_" + s + "_m_7_0", Node: "nm" + s + ".bench:8041", EstRemainingMS: 1234, EstBackupMS: 40000,
			Reason: "yarn: estimated end 12345 ms from now, a new attempt 40000 ms; gain 2345 ms; 0 of 10 allowed copies run"}
	}
	now := int64(1_000_000)
	for b.Loop() {
		e := New(policy.NewStack(), Options{Log: zerolog.Nop()})
		e.out = e.out[:0]
		e.emit("", hs, nil, now)
		if len(e.out) != len(hs) {
			b.Fatal(len(e.out))
		}
	}
}
