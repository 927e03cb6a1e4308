package policy_test

import (
	"os/exec"
	"strings"
	"testing"
)

const module = "github.com/rmsidecar/rmsidecar"

// TestImportDirection enforces the allowed import direction.
func TestImportDirection(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the go tool")
	}
	// importRules is the allowed import direction (docs/architecture.md): each
	// rule names packages (go list patterns) and what they may not depend on,
	// even transitively. Tests are not covered (-test=false): a test may start
	// an embedded broker or run the simulator.
	importRules := []struct {
		why       string
		packages  []string
		forbidden []string
	}{
		{
			// Policies read state and return decisions.
			why:      "policies take no transport or storage",
			packages: []string{module + "/policy/..."},
			forbidden: []string{"github.com/IBM/sarama", "github.com/twmb/franz-go", "github.com/colinmarc/hdfs",
				"net/http", "go.etcd.io/bbolt", module + "/events/kafka", module + "/yarnclient", module + "/hdfslocality"},
		},
		{
			// The production packages hold neither the simulator nor the embedded
			// broker: the demo (package demo) and the benchmark (package bench)
			// drive them from outside.
			why: "production code holds no simulator or embedded broker",
			packages: []string{module + "/sidecar", module + "/engine", module + "/actuate", module + "/events/...",
				module + "/yarnclient", module + "/hdfslocality", module + "/cluster", module + "/policy/...",
				module + "/config", module + "/profiles"},
			forbidden: []string{module + "/sim", "github.com/twmb/franz-go/pkg/kfake", module + "/demo", module + "/bench"},
		},
	}
	for _, r := range importRules {
		for _, pkg := range r.packages {
			for _, dep := range deps(t, pkg) {
				for _, f := range r.forbidden {
					if dep == f || strings.HasPrefix(dep, f+"/") {
						t.Errorf("%s depends on %s (%s)", pkg, dep, r.why)
					}
				}
			}
		}
	}
}

// deps lists what the packages of pattern depend on, themselves included.
func deps(t *testing.T, pattern string) []string {
	t.Helper()
	out, err := exec.Command("go", "list", "-deps", "-test=false", pattern).CombinedOutput()
	if err != nil {
		t.Fatalf("go list %s: %v\n%s", pattern, err, out)
	}
	return strings.Fields(string(out))
}

// TestBaselineHoldsBaselines: package baseline holds the baselines (naive,
// late, yarn) and nothing the research policies need; what they share lives
// in packages named for it (policy/taskstat, policy/capacity). Only the
// registry composes the baselines into stacks, so no other policy package
// imports baseline (tests may, to compare against one).
func TestBaselineHoldsBaselines(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the go tool")
	}
	mayCompose := map[string]bool{module + "/policy/plugins": true}
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}} {{join .Imports " "}}`, module+"/policy/...").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		if len(f) == 0 || mayCompose[f[0]] {
			continue
		}
		for _, imp := range f[1:] {
			if imp == module+"/policy/baseline" {
				t.Errorf("%s imports policy/baseline: take shared helpers from policy/taskstat or policy/capacity", f[0])
			}
		}
	}
}
