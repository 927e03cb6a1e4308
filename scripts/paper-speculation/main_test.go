package main

import (
	"context"
	"strings"
	"testing"
)

// TestClaimsCarryIntervals: with two seeds every stack line shows mean ±
// half-width and each claim a paired change with its interval.
func TestClaimsCarryIntervals(t *testing.T) {
	var b strings.Builder
	if err := run(context.Background(), []string{"-seeds", "2", "-only", "sepb", "-scenarios", "../../scenarios"}, &b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{"sepb-batch-5.yaml (seeds 1-2, mean ± 95 % CI)", "LATE+SEPB vs LATE, 5-job batch"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, "LATE+SEPB vs LATE") && !strings.Contains(line, "±") {
			t.Errorf("claim without an interval: %s", line)
		}
	}
	if err := run(context.Background(), []string{"-seeds", "0"}, &b); err == nil {
		t.Error("-seeds 0 accepted")
	}
}
