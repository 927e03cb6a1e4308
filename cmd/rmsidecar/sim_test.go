package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
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
		{"nodes with scenario", []string{"sim", "--scenario", bad, "--nodes", "3", "--policies", "none"}, "--nodes applies to --trace only"},
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
