package sweep

import (
	"bytes"
	"context"
	"testing"

	"github.com/rmsidecar/rmsidecar/sim"
)

func TestGenerateIsDeterministicAndInBounds(t *testing.T) {
	b := DefaultBounds()
	sawDegrade, sawRecover, sawStragglers, sawClasses := false, false, false, false
	for seed := uint64(1); seed <= 200; seed++ {
		y1, tr := Generate(seed, b)
		y2, _ := Generate(seed, b)
		if !bytes.Equal(y1, y2) {
			t.Fatalf("seed %d: two different scenarios", seed)
		}
		if tr.Nodes < b.MinNodes || tr.Nodes > b.MaxNodes || tr.Jobs < 1 || tr.Jobs > b.MaxJobs {
			t.Fatalf("seed %d: %+v out of bounds", seed, tr)
		}
		sc, err := sim.ParseScenario("gen.yaml", y1)
		if err != nil {
			t.Fatalf("seed %d: %v\n%s", seed, err, y1)
		}
		nodes := 0
		for _, g := range sc.Cluster.Nodes {
			nodes += g.Count
		}
		if nodes != tr.Nodes || len(sc.Jobs) != tr.Jobs {
			t.Fatalf("seed %d: scenario has %d nodes %d jobs, traits say %+v", seed, nodes, len(sc.Jobs), tr)
		}
		sawDegrade = sawDegrade || tr.Degrading
		sawRecover = sawRecover || tr.Recovering
		sawStragglers = sawStragglers || tr.Stragglers
		sawClasses = sawClasses || tr.Classes == 3
	}
	if !sawDegrade || !sawRecover || !sawStragglers || !sawClasses {
		t.Errorf("200 seeds lack a kind: degrading %v recovering %v stragglers %v three classes %v", sawDegrade, sawRecover, sawStragglers, sawClasses)
	}
}

// TestSweepSample is the small sample of the robustness sweep in `make test`
// (the full one: make speculation-sweep). On 12 scenarios of up to 60 nodes:
// the paper policies beat no speculation and stock YARN on average, and no
// stack is more than 2 % behind no speculation on makespan or mean job time
// in any of them (the full sweep, where a few scenarios are: docs/policies.md),
// and backups that lose waste at most MaxWastedShare of the cluster's
// container time.
func TestSweepSample(t *testing.T) {
	if testing.Short() {
		t.Skip("simulates 72 runs")
	}
	b := Bounds{MinNodes: 10, MaxNodes: 60, MaxJobs: 4}
	var rows []Row
	for seed := uint64(1); seed <= 12; seed++ {
		r, err := Run(context.Background(), seed, b, Stacks)
		if err != nil {
			t.Fatal(err)
		}
		rows = append(rows, r...)
	}
	sums := Summarize(rows, Stacks)
	t.Logf("\n%s", Table(sums))
	for _, s := range sums {
		if s.Stack == "none" {
			continue
		}
		if s.WastedShare > MaxWastedShare {
			t.Errorf("%s: backups wasted %.2f %% of the container time, bound %.0f %%", s.Stack, 100*s.WastedShare, 100*MaxWastedShare)
		}
		if s.Over2Pct > 0 {
			t.Errorf("%s: more than 2 %% behind no speculation in %d scenarios (worst: %d)", s.Stack, s.Over2Pct, s.WorstSeed)
		}
		if s.Stack != "yarn" && (s.VsNone >= 1 || s.VsYARN >= 1) {
			t.Errorf("%s: mean makespan %.3f of none, %.3f of yarn: not better on average", s.Stack, s.VsNone, s.VsYARN)
		}
	}
}
