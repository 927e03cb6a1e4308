package sim

import (
	"context"
	"testing"
)

// On a heterogeneous cluster with stragglers, the speculation baselines
// must beat no speculation, and Hadoop's naive rule must waste more container
// time than LATE for every seed and launch more copies over the seeds (issue
// 3). One seed may see LATE launch a few more: since LATE leaves reduces that
// wait for maps alone, its cap goes to map stragglers.
func TestBaselines(t *testing.T) {
	naiveCopies, lateCopies := 0, 0
	for seed := uint64(1); seed <= 3; seed++ {
		sc := mustLoad(t, "testdata/stragglers.yaml")
		sc.Seed = seed
		res, err := Simulate(context.Background(), sc, []string{"none", "naive", "late", "yarn"}, Options{Parallel: 2})
		if err != nil {
			t.Fatal(err)
		}
		none := res.Runs[0]
		if none.Spec.Launched != 0 {
			t.Fatalf("seed %d: none launched %d copies", seed, none.Spec.Launched)
		}
		for _, r := range res.Runs[1:] {
			t.Logf("seed %d %-5s makespan %6.0f s (none %6.0f)  mean JCT %5.0f s (none %5.0f)  copies %d won %d lost %.0f wasted %.0f s",
				seed, r.Policy, r.MakespanS, none.MakespanS, r.MeanJCTS, none.MeanJCTS, r.Spec.Launched, r.Spec.Won,
				r.Extra["spec_lost"], r.Spec.WastedS)
			if r.Spec.Launched == 0 {
				t.Errorf("seed %d: %s launched no copy", seed, r.Policy)
			}
			if r.Policy == "naive" {
				continue // measured and logged; the issue asks only late and yarn to win
			}
			if r.MakespanS >= none.MakespanS || r.MeanJCTS >= none.MeanJCTS {
				t.Errorf("seed %d: %s (makespan %.0f, mean JCT %.0f) does not beat none (%.0f, %.0f)",
					seed, r.Policy, r.MakespanS, r.MeanJCTS, none.MakespanS, none.MeanJCTS)
			}
		}
		naive, late := res.Runs[1], res.Runs[2]
		naiveCopies += naive.Spec.Launched
		lateCopies += late.Spec.Launched
		if naive.Spec.WastedS <= late.Spec.WastedS {
			t.Errorf("seed %d: naive launched %d copies wasting %.0f s, late %d wasting %.0f s: naive should waste more",
				seed, naive.Spec.Launched, naive.Spec.WastedS, late.Spec.Launched, late.Spec.WastedS)
		}
	}
	if naiveCopies <= lateCopies {
		t.Errorf("naive launched %d copies over the seeds, late %d: naive should launch more", naiveCopies, lateCopies)
	}
}
