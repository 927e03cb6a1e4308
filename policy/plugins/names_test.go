package plugins

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestEveryPolicyHasItsSection: each name the registry knows (the name
// stacks, --policies, results.json and the hints' policy field use) heads a
// section of docs/policies.md under that exact name, so users find a policy
// by the name they type.
func TestEveryPolicyHasItsSection(t *testing.T) {
	b, err := os.ReadFile("../../docs/policies.md")
	if err != nil {
		t.Fatal(err)
	}
	headed := map[string]bool{}
	// "## erul, mcp, exmcp — ERUL, MCP, exMCP": the names before the dash.
	for _, m := range regexp.MustCompile(`(?m)^## ([a-z0-9, -]+?)(?: —.*)?$`).FindAllStringSubmatch(string(b), -1) {
		for _, n := range strings.Split(m[1], ",") {
			headed[strings.TrimSpace(n)] = true
		}
	}
	for _, name := range NewRegistry().Names() {
		if !headed[name] {
			t.Errorf("policy %q has no section headed with its name in docs/policies.md", name)
		}
	}
}
