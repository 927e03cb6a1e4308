package dhsa

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// The reason builder writes what fmt's %s and %d wrote before it replaced
// fmt.Sprintf in Shape (negative numbers included).
func TestReasonAsSprintf(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for range 1000 {
		a, b, c, d := rng.IntN(2001)-1000, rng.IntN(100000), rng.IntN(7)-3, rng.IntN(1<<30)
		name, q := "dhsa-pi", fmt.Sprintf("pool%d", rng.IntN(9))
		if got, want := newReason(8).s(name).s(": ").s(q).s(" has ").d(a).s("/").d(b).s(", case ").d(c).s(" ").d(d).String(),
			fmt.Sprintf("%s: %s has %d/%d, case %d %d", name, q, a, b, c, d); got != want {
			t.Fatalf("got %q, want %q", got, want)
		}
	}
}
