package sim

import (
	"math"
	"os"
	"runtime/debug"
)

// simGCPercent is the collector's pacing (GOGC) while Simulate runs under
// a soft memory limit. A run allocates its garbage at a few hundred MB/s
// over a live heap of tens of MB (the FB-2009 day: about 800 MB allocated
// over 35-85 MB live, 32 collections at GOGC 100), so the collector and the
// preemptions it asks for were about a tenth of the run's CPU; at 400 the
// heap may grow to five times the live heap between collections, and the
// memory limit, not GOGC, bounds a run whose live heap is large (the
// FB-2010 day on 3,000 nodes: 1.5 times a live heap of up to 660 MB).
// Results do not depend on when the collector runs.
const simGCPercent = 400

// tuneGC sets simGCPercent for a run and returns the function that puts
// the previous setting back. It changes nothing when GOGC is set in the
// environment (the user chose), when no memory limit is in force (nothing
// would bound the larger heap), or when the setting is not the default
// (another Simulate running at the same time already set it: the first
// one restores it).
func tuneGC() (restore func()) {
	if os.Getenv("GOGC") != "" || debug.SetMemoryLimit(-1) == math.MaxInt64 {
		return func() {}
	}
	prev := debug.SetGCPercent(simGCPercent)
	if prev != 100 {
		debug.SetGCPercent(prev)
		return func() {}
	}
	return func() { debug.SetGCPercent(prev) }
}
