// Package actuate delivers the engine's hints: to the log (dry run, the
// default), to a Kafka hints topic, to the HTTP pull API, and to the YARN
// ResourceManager through the small RMWriter interface that the real-cluster
// work implements with package yarnclient.
//
// A Dispatcher sits between the engine and the actuators. It drops hints that
// were already actuated and are still in force (a Journal that survives
// restarts, so replaying events after a crash does not actuate a hint twice),
// keeps cluster-wide hints to the one instance that leads, and hands each
// hint to every actuator's own worker through a bounded queue. A worker that
// cannot deliver retries with exponential backoff and reports every failure;
// a hint it gives up on is logged with its id and counted, never dropped
// silently.
package actuate
