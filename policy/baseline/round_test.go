package baseline

import (
	"math"
	"math/rand/v2"
	"strconv"
	"testing"
)

// TestAppendRoundedSameAsAppendFloat holds appendRounded to the
// strconv.AppendFloat(b, x, 'f', 0, 64) it replaces: halves (ties go to
// even), values next to them, zeros of both signs, values about 2^53 and
// beyond, negatives, infinities, NaN and random durations.
func TestAppendRoundedSameAsAppendFloat(t *testing.T) {
	xs := []float64{0, math.Copysign(0, -1), 0.5, 1.5, 2.5, -0.5, -0.4, -2.5, 1 << 53, 1<<53 - 1, 1<<53 + 2, 1e300,
		math.Inf(1), math.Inf(-1), math.NaN(), math.SmallestNonzeroFloat64, 4503599627370495.5}
	r := rand.New(rand.NewPCG(1, 2))
	for range 200_000 {
		h := float64(r.IntN(1 << 20))
		xs = append(xs, h+0.5, math.Nextafter(h+0.5, 0), math.Nextafter(h+0.5, math.Inf(1)),
			r.Float64()*1e6, r.ExpFloat64()*1e5, -r.Float64()*100, math.Ldexp(r.Float64(), r.IntN(70)))
	}
	for _, x := range xs {
		got, want := string(appendRounded([]byte("a"), x)), string(strconv.AppendFloat([]byte("a"), x, 'f', 0, 64))
		if got != want {
			t.Fatalf("%v (%b): %q, AppendFloat %q", x, x, got, want)
		}
	}
}
