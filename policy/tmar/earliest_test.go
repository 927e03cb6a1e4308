package tmar

import (
	"math"
	"math/rand/v2"
	"testing"
)

// Random core vectors of equal times, zeros of both signs, NaN and
// infinities: earliestOf is the fold of fmin (math.Min) it replaces, bit
// for bit.
func TestEarliestOfAsFold(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 2))
	vals := []float64{0, math.Copysign(0, -1), 1, 1, 2.5, 3 + 1e-10, -1, math.Inf(1), math.Inf(-1), math.NaN()}
	for iter := range 20000 {
		cores := make([]float64, rng.IntN(6))
		for i := range cores {
			cores[i] = vals[rng.IntN(len(vals))]
		}
		want := math.Inf(1)
		for _, f := range cores {
			want = math.Min(want, f)
		}
		if got := earliestOf(cores); math.Float64bits(got) != math.Float64bits(want) && !(math.IsNaN(got) && math.IsNaN(want)) {
			t.Fatalf("instance %d: earliestOf(%v) = %v, want %v", iter, cores, got, want)
		}
	}
}
