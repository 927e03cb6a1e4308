// Package baseline holds the speculation baselines every research policy is
// measured against:
//
//   - naive: Hadoop 0.20's rule. A task is a straggler when its progress score
//     is 20 % below the average of its job's running tasks of the same kind
//     (SAMR eq. 1–3), it has run for a minute, and it never had a backup.
//   - late: LATE (Zaharia et al., OSDI'08, as summarised in SAMR §II-C).
//     Progress rate and time to end (SAMR eq. 4–5); speculate the task with the
//     longest time to end among tasks below the SlowTaskThreshold percentile,
//     on a node above the SlowNodeThreshold percentile, while fewer than
//     SpeculativeCap copies run.
//   - yarn: stock YARN 3.x MapReduce AM DefaultSpeculator with the
//     LegacyTaskRuntimeEstimator (estimated runtime = elapsed / progress),
//     its 5 % completed-task gate, its cap max(10, 1 % of tasks, 10 % of
//     running tasks), one speculation per job and task kind per scan, and its
//     1 s / 15 s rescan intervals.
//
// Each is a policy.Speculator (plus a policy.Observer that keeps per-job
// duration statistics) and emits speculate hints naming the attempt it backs
// up and a target node with free capacity according to the latest heartbeats.
// None speculates a task that already runs a speculative copy.
//
// The estimation they share with the research policies lives in package
// policy/taskstat (progress score, rate, time to end, durations, proposals)
// and the target choice in package policy/capacity.
package baseline
