// Package yarnclient is rmsidecar's typed client for a stock Apache Hadoop YARN
// cluster: the ResourceManager REST API (/ws/v1/cluster) and the MapReduce
// ApplicationMaster REST API reached through the RM web proxy
// (/proxy/{appId}/ws/v1/mapreduce).
//
// # Reads and writes
//
// Reads cover what a poller needs to rebuild the cluster model cheaply: Info,
// Metrics, Scheduler (queue tree), Nodes (optionally filtered by state), Apps
// (filtered by state, queue, user, type, start time, with deSelects to trim
// the payload), App, AppAttempts and the Containers of one attempt; on the AM
// side Jobs, Job, Tasks, TaskAttempts, JobCounters and JobConf (InputPaths
// extracts mapreduce.input.fileinputformat.inputdir).
//
// Writes are the hooks a stock RM offers to an outside scheduler:
// UpdateNodeResource (POST nodes/{id}/resource), AddNodeLabels,
// ReplaceNodeToLabels and ReplaceNodeLabels (node labels; the RM needs
// yarn.node-labels.enabled), SetAppPriority (CapacityScheduler, needs
// yarn.cluster.max-application-priority > 0), SignalContainer
// (GRACEFUL_SHUTDOWN, FORCEFUL_SHUTDOWN, OUTPUT_THREAD_DUMP), KillApp and
// MoveApp. Every write is idempotent on the RM side, which is what makes
// retrying them safe.
//
// Hadoop's JSON has a few habits the decoder absorbs: lists come wrapped
// ({"nodes":{"node":[...]}}), an empty list is rendered as null
// ({"nodes":null}) and some older versions render a one-element list as a bare
// object or booleans as strings. Missing lists decode to nil slices.
//
// # Reliability
//
// Every call takes a context and runs through one request path:
//
//   - each attempt gets its own timeout (Config.Timeout);
//   - network errors, 5xx answers and standby-RM answers are retried with
//     exponential backoff and full jitter (sleep = rand[0,1) x min(MaxBackoff,
//     BaseBackoff x 2^n)); 4xx answers are returned at once, except 429 and
//     answers carrying Retry-After, where the RM itself asks for a retry;
//   - RM HA: Config.RMURLs lists every RM. A standby RM answers a REST call
//     with a 307 redirect or a "This is standby RM" page; the client then moves
//     to the next RM (or straight to the one the redirect names, if it is
//     configured), backing off only after every RM has been tried. The RM that
//     last answered is remembered and tried first next time; FindActive asks
//     every RM's /info (which a standby answers itself) to pick the active
//     one up front.
//
// Errors name the operation and the URL and wrap their cause with %w. A non-2xx
// answer is an *HTTPError carrying the status and, when the RM sent one, the
// parsed RemoteException (exception, message, javaClassName); IsNotFound and
// errors.As make them easy to branch on.
//
// # Authentication
//
// Simple auth appends user.name=<Config.User> to every request (an unsecured
// RM rejects writes without it). SPNEGO (Config.SPNEGO) uses gokrb5: a keytab,
// a principal and a krb5.conf; the Negotiate header is added when the RM
// answers 401 with "WWW-Authenticate: Negotiate", and the hadoop.auth cookie the
// RM sets is kept so later calls skip the handshake.
//
// # Bridge
//
// Bridge is the event source for a stock cluster: each Poll snapshots the RM
// (nodes in every state, active apps, apps finished since the last poll, the
// containers of each running app's current attempt) and the MapReduce AMs
// (job, tasks, attempts of the tasks not finished at the previous poll; the
// job configuration once per app), diffs it against the previous snapshot
// and publishes events v1 (encoded with package events) through the small
// Publisher interface, keyed by app or node. Diff is a pure function of two
// snapshots. An RM outage leaves the previous snapshot in place; a publisher
// outage keeps the unpublished events, in order, for the next poll.
//
// What the REST APIs cannot tell, the bridge does not invent: task.pending
// carries no splits (hdfslocality resolves the job's input paths),
// container.allocated no locality, map.output is never emitted (partition
// sizes are not exposed), and node.heartbeat's load1 and cpu_util are derived
// from the NodeManager's resourceUtilization (busy vcores), not from a load
// average.
//
// # Logging
//
// The client logs retries and failovers through the zerolog.Logger passed in
// Config.Logger (a disabled logger by default); it never uses the global logger.
package yarnclient
