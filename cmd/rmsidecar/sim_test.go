package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rmsidecar/rmsidecar/sim"
	"github.com/rmsidecar/rmsidecar/sim/report"
)

func TestSimBadInputExitsTwo(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "bad.yaml")
	os.WriteFile(bad, []byte("seed: 1\ncluster:\n  racks: 1\n  nodes:\n    - {count: 2, vcores: -1, memory_mb: 1024}\n"), 0o600)
	badCfg := filepath.Join(t.TempDir(), "cfg.yaml")
	os.WriteFile(badCfg, []byte("policies:\n  tmar: {alpha: 5}\n"), 0o600)
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no workload", []string{"sim", "--policies", "none"}, "at least one of the flags in the group [scenario trace] is required"},
		{"both workloads", []string{"sim", "--scenario", bad, "--trace", "swim:x"}, "none of the others can be"},
		{"bad trace format", []string{"sim", "--trace", "csv:x", "--policies", "none"}, `--trace "csv:x": want swim:FILE, rumen:FILE or sls:FILE`},
		{"missing trace file", []string{"sim", "--trace", "swim:/nope.tsv", "--policies", "none"}, "/nope.tsv"},
		{"nodes with scenario", []string{"sim", "--scenario", bad, "--nodes", "3", "--policies", "none"}, "--nodes, --trace-nodes, --window and --limit-jobs apply to --trace only"},
		{"bad scenario names line and key", []string{"sim", "--scenario", bad, "--policies", "none"}, "bad.yaml:5"},
		{"unknown policy", []string{"sim", "--trace", "swim:/nope.tsv", "--policies", "none,telepathy"}, "telepathy"},
		{"bad policy setting in config", []string{"--config", badCfg, "sim", "--trace", "swim:/nope.tsv", "--policies", "tmar"}, "policies.tmar.alpha"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, errOut := run(t, append(tt.args, "--log-level", "error", "--out", t.TempDir())...)
			if code != 2 || !strings.Contains(errOut, tt.want) {
				t.Fatalf("exit %d, stderr %q; want exit 2 containing %q", code, errOut, tt.want)
			}
		})
	}
}

// TestSimSeeds: --seeds N writes the first seed's runs plus a summary over
// the N seeds, the same whatever --parallel is.
func TestSimSeeds(t *testing.T) {
	var outs []string
	for _, par := range []string{"1", "0"} {
		dir := t.TempDir()
		code, stdout, stderr := run(t, "sim", "--scenario", "../../scenarios/samr-sort.yaml", "--policies", "none,yarn",
			"--seeds", "3", "--parallel", par, "--out", dir, "--quiet")
		if code != 0 {
			t.Fatalf("exit %d: %s %s", code, stdout, stderr)
		}
		res, err := report.ReadFile(filepath.Join(dir, "results.json"))
		if err != nil {
			t.Fatal(err)
		}
		st := res.SeedStats
		if st == nil || len(st.Seeds) != 3 || st.Seeds[0] != res.Seed || st.Baseline != "yarn" || len(st.Stacks) != 2 || st.Stacks[0].N != 3 {
			t.Fatalf("seed_stats = %+v", st)
		}
		b, err := os.ReadFile(filepath.Join(dir, "report", "seeds.txt"))
		if err != nil || !strings.Contains(string(b), "3 seeds") {
			t.Fatalf("seeds.txt: %v\n%s", err, b)
		}
		outs = append(outs, string(b))
	}
	if outs[0] != outs[1] {
		t.Errorf("--parallel changed the summary:\n%s\n%s", outs[0], outs[1])
	}
	if code, _, stderr := run(t, "sim", "--scenario", "../../scenarios/samr-sort.yaml", "--seeds", "0"); code != exitBadUse || !strings.Contains(stderr, "--seeds") {
		t.Errorf("--seeds 0: exit %d %s", code, stderr)
	}
}

// TestSimResultsMeta: results.json says which binary, arguments, input
// (with its digest), cluster size and seeds made it; where it was written
// and how fast do not change it.
func TestSimResultsMeta(t *testing.T) {
	var files [][]byte
	for i, extra := range [][]string{{"--parallel", "1"}, {"--parallel=2", "--quiet"}} {
		dir := t.TempDir()
		args := append([]string{"sim", "--scenario", "../../scenarios/samr-sort.yaml", "--policies", "none,yarn", "--out", dir}, extra...)
		if code, _, stderr := run(t, args...); code != 0 {
			t.Fatalf("run %d: %s", i, stderr)
		}
		b, err := os.ReadFile(filepath.Join(dir, "results.json"))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, b)
		res, err := report.ReadFile(filepath.Join(dir, "results.json"))
		if err != nil {
			t.Fatal(err)
		}
		m := res.Meta
		if m == nil || m.Version == "" || m.Input != "../../scenarios/samr-sort.yaml" || len(m.Digest) != 64 || m.Nodes != 8 ||
			len(m.Seeds) != 1 || strings.Join(m.Args, " ") != "sim --scenario ../../scenarios/samr-sort.yaml --policies none,yarn" {
			t.Fatalf("meta = %+v", m)
		}
	}
	if string(files[0]) != string(files[1]) {
		t.Error("results.json differs between two runs that differ only in --out, --parallel and --quiet")
	}
}

// TestSimTraceScaleInMeta: a SWIM run says how its bytes were scaled, on
// stderr and in results.json.
func TestSimTraceScaleInMeta(t *testing.T) {
	dir := t.TempDir()
	code, _, stderr := run(t, "sim", "--trace", "swim:../../testdata/traces/SWIM_FB-2009_samples_24_times_1hr_0_first50jobs.tsv",
		"--nodes", "300", "--trace-nodes", "3000", "--limit-jobs", "3", "--policies", "none", "--out", dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stderr, "recorded on 3000 nodes, bytes scaled by 0.1") {
		t.Errorf("stderr does not give the scale:\n%s", stderr)
	}
	res, err := report.ReadFile(filepath.Join(dir, "results.json"))
	if err != nil {
		t.Fatal(err)
	}
	if m := res.Meta; m == nil || m.TraceNodes != 3000 || m.TraceScale != 0.1 || m.Nodes != 300 {
		t.Fatalf("meta = %+v, want trace_nodes 3000, trace_scale 0.1, nodes 300", m)
	}
}

// interruptAfter runs rmsidecar with a context cancelled once any run has
// finished n jobs (as SIGINT would), deterministically.
func interruptAfter(t *testing.T, n int, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	simProgressHook = func(p sim.Progress) {
		if p.JobsDone >= n {
			cancel()
		}
	}
	defer func() { simProgressHook = nil }()
	var out, errb bytes.Buffer
	code = execute(ctx, args, stdio{in: strings.NewReader(""), out: &out, err: &errb}, nil)
	return code, out.String(), errb.String()
}

// TestSimInterruptedWritesPartialResults: an interrupted run writes
// results.json and the report for the jobs that finished, says partial in
// meta and on stderr, and exits non-zero.
func TestSimInterruptedWritesPartialResults(t *testing.T) {
	dir := t.TempDir()
	code, _, stderr := interruptAfter(t, 3, "sim", "--scenario", "../../scenarios/sepb-batch-10.yaml", "--policies", "yarn", "--out", dir, "--quiet")
	if code != exitFailure || !strings.Contains(stderr, "simulation interrupted: partial results (3 of 10 jobs done)") {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	res, err := report.ReadFile(filepath.Join(dir, "results.json"))
	if err != nil {
		t.Fatal(err)
	}
	m := res.Meta
	if m == nil || !m.Partial || m.JobsDone != 3 || m.JobsTotal != 10 || len(res.Runs) != 1 || len(res.Runs[0].Jobs) != 3 || res.Runs[0].Unfinished != 7 {
		t.Fatalf("meta %+v, runs %+v", m, res.Runs)
	}
	for _, f := range []string{"table.txt", "index.html", "heatmap.svg", "gantt.svg", "tasks.csv"} {
		if _, err := os.Stat(filepath.Join(dir, "report", f)); err != nil {
			t.Errorf("report/%s: %v", f, err)
		}
	}
	page, _ := os.ReadFile(filepath.Join(dir, "report", "index.html"))
	if !strings.Contains(string(page), `id="partial"`) {
		t.Error("index.html does not say the results are partial")
	}
	// The same interruption gives the same file.
	dir2 := t.TempDir()
	interruptAfter(t, 3, "sim", "--scenario", "../../scenarios/sepb-batch-10.yaml", "--policies", "yarn", "--out", dir2, "--quiet")
	a, _ := os.ReadFile(filepath.Join(dir, "results.json"))
	b, _ := os.ReadFile(filepath.Join(dir2, "results.json"))
	if !bytes.Equal(a, b) {
		t.Error("two identical interruptions wrote different results.json")
	}
}

// TestSimSeedsInterrupted: with --seeds, an interruption leaves the seeds
// that did not finish out of the summary and counts them.
func TestSimSeedsInterrupted(t *testing.T) {
	dir := t.TempDir()
	// One seed at a time: seeds 1 and 2 finish (10 jobs each); seed 3 is
	// cancelled after its 4th job, seeds 4 and 5 never start.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	finished, prev := 0, 0
	simProgressHook = func(p sim.Progress) {
		if p.JobsDone == p.Jobs && prev != p.Jobs {
			finished++
		}
		prev = p.JobsDone
		if finished == 2 && p.JobsDone == 4 {
			cancel()
		}
	}
	defer func() { simProgressHook = nil }()
	var out, errb bytes.Buffer
	code := execute(ctx, []string{"sim", "--scenario", "../../scenarios/sepb-batch-10.yaml", "--policies", "yarn", "--seeds", "5", "--parallel", "1",
		"--out", dir, "--quiet"}, stdio{in: strings.NewReader(""), out: &out, err: &errb}, nil)
	if code != exitFailure || !strings.Contains(errb.String(), "24 of 50 jobs, 2 of 5 seeds done") {
		t.Fatalf("exit %d, stderr %q", code, errb.String())
	}
	res, err := report.ReadFile(filepath.Join(dir, "results.json"))
	if err != nil {
		t.Fatal(err)
	}
	m, st := res.Meta, res.SeedStats
	if m == nil || !m.Partial || m.SeedsDone != 2 || m.SeedsTotal != 5 || m.JobsDone != 24 || m.JobsTotal != 50 {
		t.Fatalf("meta %+v", m)
	}
	if st == nil || len(st.Seeds) != 2 || st.Stacks[0].N != 2 || res.Seed != st.Seeds[0] || len(res.Runs[0].Jobs) != 10 ||
		len(m.Seeds) != 2 {
		t.Fatalf("seed_stats %+v, seed %d", st, res.Seed)
	}
}
