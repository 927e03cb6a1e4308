// Package sim is rmsidecar's deterministic discrete-event simulator of a
// Hadoop YARN cluster running MapReduce jobs.
//
// The simulator is the ground truth: it owns the cluster (nodes, racks,
// network links, HDFS blocks, containers) and the jobs, and it advances time
// through one event heap ordered by (time, sequence), so the same scenario
// and seed always produce byte-identical results. It does not call policies
// its own way: everything it does is reported as events v1 (node.registered,
// node.heartbeat, app.submitted, task.pending, container.allocated,
// task.progress, task.finished, map.output, app.finished) into one
// engine.Engine built from the policy stack, and the hints the engine returns
// are applied to the simulated cluster (speculate, kill, place, ratio,
// node-capacity, reduce-binding, priority). A policy that works here works
// in the live sidecar, which decodes the same events.
//
// The model, its defaults and how to validate it are in docs/simulator.md.
package sim
