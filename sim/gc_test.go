package sim

import (
	"math"
	"os"
	"runtime/debug"
	"testing"
)

// tuneGC raises GOGC only under a memory limit and only from the default,
// and puts the previous setting back.
func TestTuneGC(t *testing.T) {
	if os.Getenv("GOGC") != "" {
		t.Skip("GOGC is set in the environment")
	}
	prevLimit := debug.SetMemoryLimit(-1)
	defer debug.SetMemoryLimit(prevLimit)
	gc := func() int { p := debug.SetGCPercent(100); debug.SetGCPercent(p); return p }

	debug.SetMemoryLimit(math.MaxInt64)
	restore := tuneGC()
	if got := gc(); got != 100 {
		t.Errorf("without a memory limit: GOGC %d, want 100", got)
	}
	restore()

	debug.SetMemoryLimit(1 << 30)
	restore = tuneGC()
	if got := gc(); got != simGCPercent {
		t.Errorf("under a memory limit: GOGC %d, want %d", got, simGCPercent)
	}
	inner := tuneGC() // a second run at the same time leaves it to the first
	inner()
	if got := gc(); got != simGCPercent {
		t.Errorf("after a nested run: GOGC %d, want %d", got, simGCPercent)
	}
	restore()
	if got := gc(); got != 100 {
		t.Errorf("restored: GOGC %d, want 100", got)
	}
}
