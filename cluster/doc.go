// Package cluster is rmsidecar's in-memory model of a YARN cluster: nodes,
// racks, applications, tasks, attempts and containers, built only by applying
// events (package events).
//
// Applying is idempotent and order-tolerant, because Kafka delivers at least
// once and partitions interleave: every field group of an entity remembers the
// (ts, id) of the event that last wrote it, and an event only writes a group
// when it is newer. Re-applying an event therefore changes nothing, and an
// older event never undoes a newer one. Derived facts (a task's state, an
// app's counters, a node's running containers) are recomputed from the
// entities, not counted up, so duplicates cannot skew them.
//
// Policies get the State through the read-only View interface. The engine
// owns the State and never mutates it while a policy runs; the pointers a
// View hands out are shared and must be treated as read-only.
package cluster
