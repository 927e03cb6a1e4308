// Package report holds the simulator's results (results.json, the contract
// in shared/interfaces.md) and renders them for people: a text table for the
// terminal, CSV (one row per run, one row per job), SVG plots drawn with the
// standard library (makespan per policy, JCT CDF, running maps and reduces
// over time), and one self-contained HTML page that ties them together.
// Write produces all of them in a results directory.
//
// Every renderer is a pure function of a Results value: the same value gives
// byte-identical output (golden files in testdata/, refreshed with
// go test ./sim/report -update), so a deterministic simulation gives a
// deterministic report. Progress draws a progress bar for long runs.
package report
