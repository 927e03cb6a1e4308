package main

import (
	"math"
	"os"
	"runtime/debug"
	"runtime/metrics"
	"time"
)

// defaultMemLimitMiB is sim's soft memory limit unless --memory-limit or
// GOMEMLIMIT says otherwise. The FB-2010 day on 3,000 nodes (live heap
// at most about 520 MB) peaks at 1.47 GB of RSS without it and 0.98 GB
// with GOMEMLIMIT=1000MiB, at the same CPU time: the collector's own
// target (twice the live heap) is about the limit there, the limit takes
// away the overshoot and makes the runtime return freed pages.
const defaultMemLimitMiB = 1024

// simGCPercent is the collector's pacing (GOGC) while a simulation runs
// under the soft limit. A run allocates a few hundred MB/s over a live heap
// of tens of MB (the FB-2009 day: about 800 MB over 35-85 MB live, 32
// collections at GOGC 100: about a tenth of its CPU); at 400 the heap may
// grow to five times the live heap between collections, and the limit,
// not GOGC, bounds a run whose live heap is large (FB-2009 day under yarn:
// median 4.48 -> 4.27 CPU s, max RSS 200-245 -> 280-565 MB).
const simGCPercent = 400

// memLimitEvery is how often the limit follows the live heap.
const memLimitEvery = 500 * time.Millisecond

// startMemLimit sets a soft memory limit (debug.SetMemoryLimit) of mib
// MiB for the simulation, raised to 1.5 times the live heap whenever that
// is more: a run whose live heap outgrows the limit collects at most
// about twice as often as the default pacing (GOGC 100: at twice the live
// heap) would, instead of without end (the collector takes a few percent
// of a run's CPU). mib <= 0 or a GOMEMLIMIT in the environment: no limit.
// Under the limit the collector's pacing is simGCPercent unless GOGC is
// set. The returned function restores the previous limit and pacing. The
// simulation's results depend on neither.
func startMemLimit(mib int) func() {
	if mib <= 0 || os.Getenv("GOMEMLIMIT") != "" {
		return func() {}
	}
	base := int64(mib) << 20
	prev := debug.SetMemoryLimit(base)
	prevGC := -2 // not changed
	if os.Getenv("GOGC") == "" {
		prevGC = debug.SetGCPercent(simGCPercent)
	}
	done := make(chan struct{})
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
		limit := base
		t := time.NewTicker(memLimitEvery)
		defer t.Stop()
		for {
			select {
			case <-t.C:
				metrics.Read(sample)
				live := sample[0].Value.Uint64()
				want := base
				if live <= math.MaxInt64/2 && int64(live+live/2) > base {
					want = int64(live + live/2)
				}
				if want != limit {
					limit = want
					debug.SetMemoryLimit(limit)
				}
			case <-done:
				return
			}
		}
	}()
	return func() {
		close(done)
		<-stopped
		if prevGC != -2 {
			debug.SetGCPercent(prevGC)
		}
		debug.SetMemoryLimit(prev)
	}
}
