package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// --memprofile writes a heap profile and --memory-limit changes nothing
// in results.json (neither is in its args).
func TestSimMemProfileAndLimit(t *testing.T) {
	var results [][]byte
	for _, extra := range [][]string{nil, {"--memprofile", filepath.Join(t.TempDir(), "heap.prof"), "--memory-limit", "64"}} {
		dir := t.TempDir()
		args := append([]string{"sim", "--scenario", "../../scenarios/samr-sort.yaml", "--policies", "none,yarn", "--out", dir, "--quiet"}, extra...)
		code, stdout, stderr := run(t, args...)
		if code != 0 {
			t.Fatalf("exit %d: %s %s", code, stdout, stderr)
		}
		b, err := os.ReadFile(filepath.Join(dir, "results.json"))
		if err != nil {
			t.Fatal(err)
		}
		results = append(results, b)
		if extra != nil {
			p, err := os.ReadFile(extra[1])
			if err != nil || len(p) < 100 || p[0] != 0x1f || p[1] != 0x8b { // a gzipped profile.proto
				t.Fatalf("heap profile: %v, %d bytes", err, len(p))
			}
		}
	}
	if !bytes.Equal(results[0], results[1]) {
		t.Error("results.json differs with --memprofile and --memory-limit")
	}
}
