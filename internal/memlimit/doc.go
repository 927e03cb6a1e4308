// Package memlimit keeps the Go runtime's soft memory limit
// (debug.SetMemoryLimit) a step ahead of the live heap, so the collector
// trims the heap's growth between collections without ever running back to
// back the way a fixed limit near the live heap makes it.
//
// With the default pacing (GOGC 100) the heap grows to about twice the live
// heap before a collection; a process whose live heap is large but whose
// garbage rate is small (the live sidecar: about 94 MB live at 10,000 nodes,
// a few MB/s of garbage at 100,000 events/s) pays that overshoot in RSS for
// nothing. A fixed GOMEMLIMIT removes it only while the live heap stays well
// below the limit; as the live heap nears it, collections follow each other
// and take the CPU. The limit here is recomputed from the live heap, so the
// room between collections never falls below a chosen headroom.
//
// Two policies share the mechanism: the simulator's (a floor of 1024 MiB,
// raised to 1.5 times the live heap, GOGC 400 under it; see Sim) and the
// sidecar's headroom policy (see Headroom): the limit is what the runtime
// holds besides heap objects, plus the live heap, plus
// max(minimum, fraction of the live heap, what the process allocates in
// RateWindow), so a burst of allocation collects at most about once per
// RateWindow.
//
// The runtime's limit counts every byte it has mapped and not returned
// (/memory/classes/total minus /memory/classes/heap/released), not only the
// heap, and derives its heap goal by subtracting what is not heap objects
// or free heap, then 3 % of what is left (runtime/mgcpacer.go,
// memoryLimitHeapGoal). The headroom policy reads the same classes through
// runtime/metrics and adds that 3 % back, so the collector's heap goal is
// the live heap plus the headroom.
//
// A GOMEMLIMIT in the environment wins: Start then changes nothing.
package memlimit
