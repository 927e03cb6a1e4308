// Package trace turns workload descriptions — SWIM TSV, Rumen job history,
// SLS job JSON and the scenario YAML's explicit jobs — into one job model,
// Job, that the simulator runs.
//
// Parsers read a whole trace into memory ([]Job in submit order) because a
// simulation needs every job up front; traces are small next to the
// simulator's own state (the SWIM FB-2009 day is 200 KB). Parse errors are
// *ParseError values naming file, line and column. How each format maps to
// Job, and the derivation model for SWIM's missing task counts and times, is
// described in docs/traces.md.
package trace
