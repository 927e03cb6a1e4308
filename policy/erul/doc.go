// Package erul implements three speculative-execution policies from Huang,
// Zhang, Li, Wan and Li, "Novel heuristic speculative execution strategies in
// heterogeneous distributed environments" (Computers and Electrical
// Engineering, 2016):
//
//   - erul: remaining time by the load-aware linear model ERUL (Algorithm 1,
//     eq. 8–11), speculation priority per task class (eq. 12–13), node
//     capability per task class (eq. 14–15) and the MCP benefit test
//     (eq. 16–18), as the paper's §3.4–3.5 combine them;
//   - mcp: the Hadoop-MCP baseline the paper compares against: the same
//     candidate order and benefit test, but a load-unaware remaining time
//     (an EWMA of the attempt's progress rate, the "EWMA speed" of §3.6);
//   - exmcp: MCP with the slot-value test of eq. 19, which weighs the value
//     of the original slot (t_original) beside the backup slot (t_backup).
//
// All three share one pipeline. As an Observer the plugin follows each
// running attempt's node load (sampled every δ, Algorithm 1) and its
// progress rate, and learns each node's capability per task class from
// task.finished events; the capabilities live in the profile store
// (namespace "erul") so a restart keeps them. As a Speculator it ranks the
// running tasks that have run at least speculativeLag, class by class in the
// order Off-Rack map, Rack-Local map, Data-Local map, reduce, and for each
// picks the fastest free node that is not slow for the task's class there;
// the benefit test decides whether the backup is worth its slot. A task with
// a running copy is never speculated again.
package erul
