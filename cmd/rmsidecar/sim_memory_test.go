package main

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime/debug"
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

// startMemLimit sets the limit and restores the previous one; with
// GOMEMLIMIT set or a limit of 0 it leaves the runtime's limit alone.
func TestStartMemLimit(t *testing.T) {
	before := debug.SetMemoryLimit(-1)
	gcPercent := func() int { p := debug.SetGCPercent(100); debug.SetGCPercent(p); return p }
	beforeGC := gcPercent()
	stop := startMemLimit(512)
	if got := debug.SetMemoryLimit(-1); got < 512<<20 {
		t.Errorf("limit %d during the run, want at least 512 MiB", got)
	}
	if got := gcPercent(); os.Getenv("GOGC") == "" && got != simGCPercent {
		t.Errorf("GOGC %d under the limit, want %d", got, simGCPercent)
	}
	stop()
	if got := debug.SetMemoryLimit(-1); got != before {
		t.Errorf("limit %d after, want %d restored", got, before)
	}
	if got := gcPercent(); got != beforeGC {
		t.Errorf("GOGC %d after, want %d restored", got, beforeGC)
	}
	startMemLimit(0)()
	t.Setenv("GOMEMLIMIT", "4GiB")
	startMemLimit(512)()
	if got := debug.SetMemoryLimit(-1); got != before {
		t.Errorf("limit %d, want %d untouched", got, before)
	}
	t.Setenv("GOMEMLIMIT", "")
	t.Setenv("GOGC", "150")
	stop = startMemLimit(512)
	if got := gcPercent(); got != beforeGC {
		t.Errorf("GOGC %d with GOGC set in the environment, want %d untouched", got, beforeGC)
	}
	stop()
}
