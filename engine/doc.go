// Package engine turns events into hints: it applies each event to the
// cluster state, lets the policy stack observe and decide at the extension
// points the event triggers, stamps the resulting hints (id, time, policy,
// expiry) and drops repeats of hints that are still in force.
//
// The engine runs on event time: ticks (speculation, shaping, binding) fire
// when the event clock passes the next tick boundary, so a replayed log or a
// simulation gives the same hints on every run. A panicking or failing policy
// is recovered, counted and skipped; the others keep running.
//
// An Engine is not safe for concurrent use; the live sidecar feeds it from
// one goroutine, the simulator from its event loop.
package engine
