package tmar

import (
	"math"
	"math/rand/v2"
	"testing"
)

// powerScanRef is the pass powerScan replaces: every offer in machine order.
func powerScanRef(fin, en []float64, pres []bool, best int, limit float64) int {
	bestE := en[best]
	for i, f := range fin {
		if !pres[i] || f > limit || i == best {
			continue
		}
		e := en[i]
		if e < bestE-1e-9 || (e <= bestE+1e-9 && f < fin[best]-tieEpsilon) {
			best, bestE = i, e
		}
	}
	return best
}

// TestPowerScanSameAsRef holds powerScan, with its blocks kept up to date
// by touch as offers change between scans, to the plain pass: random
// clusters whose energies and finishes are close (within and around the
// 1e-9 and tieEpsilon tolerances) or equal, offers absent, NaNs, windows.
func TestPowerScanSameAsRef(t *testing.T) {
	rng := rand.New(rand.NewPCG(20, 4))
	for run := range 300 {
		n := 1 + rng.IntN(150)
		fin, en, pres := make([]float64, n), make([]float64, n), make([]bool, n)
		baseE, baseF := 100+rng.Float64(), 1000.0
		steps := []float64{0, 1e-10, 5e-10, 1e-9, 2e-9, 1e-6, tieEpsilon / 2, tieEpsilon, 2 * tieEpsilon, 0.5, 3}
		set := func(i int) {
			pres[i] = rng.IntN(10) > 0
			en[i] = baseE + steps[rng.IntN(len(steps))]*float64(rng.IntN(5)-2)
			fin[i] = baseF + steps[rng.IntN(len(steps))]*float64(rng.IntN(5))
			switch rng.IntN(200) {
			case 0:
				en[i] = math.NaN()
			case 1:
				fin[i] = math.NaN()
			case 2:
				fin[i] = math.Inf(1)
			}
		}
		for i := range n {
			set(i)
		}
		var bl powerBlocks
		bl.reset(n)
		for range 30 {
			for range rng.IntN(4) {
				i := rng.IntN(n)
				set(i)
				if pres[i] || rng.IntN(2) == 0 { // planMaps does not touch an offer gone
					bl.touch(i)
				}
			}
			best := -1
			for i := range n {
				if pres[i] && (best < 0 || fin[i] < fin[best]-tieEpsilon) {
					best = i
				}
			}
			if best < 0 {
				continue
			}
			limit := fin[best] + []float64{0, tieEpsilon, 1, math.Inf(1)}[rng.IntN(4)]
			bl.refresh(fin, en, pres)
			if got, want := powerScan(fin, en, pres, &bl, best, limit), powerScanRef(fin, en, pres, best, limit); got != want {
				t.Fatalf("run %d: powerScan %d, the plain pass %d (n %d, best %d, limit %v)", run, got, want, n, best, limit)
			}
		}
	}
}
