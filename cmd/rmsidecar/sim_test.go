package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

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
		{"bad trace format", []string{"sim", "--trace", "csv:x", "--policies", "none"}, `--trace "csv:x": want swim:FILE or rumen:FILE`},
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
