// Package actuate delivers the engine's hints: to the log (dry run, the
// default), to a Kafka hints topic, to the HTTP pull API, and to the YARN
// ResourceManager through the small RMWriter interface that the real-cluster
// work implements with package yarnclient.
//
// A Dispatcher sits between the engine and the actuators. It drops hints that
// were already actuated and are still in force (a Journal that survives
// restarts, so replaying events after a crash does not actuate a hint twice),
// keeps cluster-wide hints to the one instance that leads, and hands each
// hint to every actuator's own worker through a bounded queue that never
// blocks the caller: a newer hint for a queued target replaces the older one,
// and a full queue drops its oldest hint (counted and logged). A worker that
// cannot deliver retries with exponential backoff, each attempt under a
// timeout, reports every failure and marks its actuator degraded after
// consecutive failures; a hint it gives up on is logged with its id and
// counted, never dropped silently. Pending lists what is undelivered, for
// the live loop's checkpoint.
package actuate
