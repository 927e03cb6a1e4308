package tmar

import (
	"math/rand/v2"
	"slices"
	"sort"
	"testing"
)

// TestMovedSetSameAsMap holds movedSet to the map it replaced in
// bindShared (moved[ri] = true, then the keys sorted) over random rounds of
// marks, one set reused from round to round as bindShared reuses it.
func TestMovedSetSameAsMap(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 20))
	var m movedSet
	for round := range 5000 {
		ref := map[int]bool{}
		n := 1 + rng.IntN(60)
		for range rng.IntN(40) {
			ri := rng.IntN(n)
			m.add(ri)
			ref[ri] = true
		}
		want := make([]int, 0, len(ref))
		for ri := range ref {
			want = append(want, ri)
		}
		sort.Ints(want)
		if got := m.drain(); !slices.Equal(got, want) {
			t.Fatalf("round %d: drained %v, the map's sorted keys %v", round, got, want)
		}
		for ri, on := range m.at {
			if on {
				t.Fatalf("round %d: reducer %d still marked after drain", round, ri)
			}
		}
	}
}
