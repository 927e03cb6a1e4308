// Package policy defines how scheduling policies plug into rmsidecar: the
// small extension-point interfaces, the Status a plugin returns, the hint
// type (hints v1, the sidecar's output contract), the registry of policy
// factories and the stack a user composes as "a+b+c".
//
// A policy never talks to YARN, Kafka or HDFS. It reads a cluster.View,
// keeps its own learned state (persisted through a ProfileStore) and returns
// hints; the engine stamps, deduplicates and routes them, and actuators
// deliver them. The same plugin runs in the live sidecar and in the simulator.
//
// The shape follows the Kubernetes scheduler framework: one interface per
// extension point, a plugin implements only the points it needs, and a
// registry maps names to factories. Sub-packages hold one policy each.
package policy
