// Package sidecar is the live rmsidecar: Kafka consumer groups feed one
// engine through a bounded queue (Loop), the engine's hints go to the
// configured actuators (package actuate), and an HTTP server exposes
// metrics, health, readiness, hints, nodes and apps.
//
// Reliability: offsets are committed only after the events before them are
// applied, their hints handed to the actuators, and a checkpoint of the
// cluster state, the engine, the positions and the hints no actuator has
// delivered yet (the outbox) written to the profiles store together with the
// plugins' learned profiles. The checkpoint does not wait for delivery, so a
// ResourceManager that is down does not stop ingestion; the outbox is
// dispatched again after a restart. A restart restores that
// checkpoint and resumes from the committed offsets; events re-consumed after
// a crash are applied again, which changes nothing twice, and an actuation
// journal keeps their hints from being actuated twice.
//
// The sidecar needs kafka.brokers. The embedded demo of `rmsidecar run`
// (package demo: an in-process broker fed by the simulator) and the
// benchmark (package bench) live outside this package, which imports
// neither the simulator nor the embedded broker.
package sidecar
