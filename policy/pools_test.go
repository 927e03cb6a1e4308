package policy

import (
	"math"
	"testing"
)

// TestCheckPoolWeights: a bad weight (zero, negative, NaN) is named; with
// several, the first by name is named every time, whatever order the map
// ranges in.
func TestCheckPoolWeights(t *testing.T) {
	for _, c := range []struct {
		pools map[string]float64
		want  string
	}{
		{nil, ""},
		{map[string]float64{"a": 1, "b": 0.5}, ""},
		{map[string]float64{"etl": 0}, "pools.etl: weight must be > 0, got 0"},
		{map[string]float64{"x": math.NaN()}, "pools.x: weight must be > 0, got NaN"},
		{map[string]float64{"q1": 0, "q2": -1, "q3": 0, "q4": -2, "ok": 1}, "pools.q1: weight must be > 0, got 0"},
	} {
		for i := range 200 {
			err := CheckPoolWeights(c.pools)
			got := ""
			if err != nil {
				got = err.Error()
			}
			if got != c.want {
				t.Fatalf("%v, call %d: got %q, want %q", c.pools, i, got, c.want)
			}
		}
	}
}
