package bench

import (
	"math/rand/v2"
	"testing"

	"github.com/rmsidecar/rmsidecar/events"
)

// TestEventRingReusesOnlyApplied offers events to a simulated loop that
// applies them in order at a random pace, and checks that the ring never
// hands out an event the loop has not applied yet (where new(events.Event)
// per offer, which it replaces, never did), and that it does reuse them.
func TestEventRingReusesOnlyApplied(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for round := range 200 {
		size := 1 + rng.IntN(64)
		r := newEventRing(size)
		owner := map[*events.Event]uint64{} // event -> the offer it carries
		var applied uint64
		reused := 0
		for seq := range uint64(5000) {
			// The loop applies up to a random number of the offers before this one.
			if seq > applied && rng.IntN(3) > 0 {
				applied += 1 + uint64(rng.IntN(int(seq-applied)))
			}
			ev := r.get(seq, applied)
			if prev, ok := owner[ev]; ok {
				if prev >= applied {
					t.Fatalf("round %d (ring %d): offer %d got the event of offer %d, not applied yet (applied %d)",
						round, size, seq, prev, applied)
				}
				reused++
			}
			owner[ev] = seq
		}
		if reused == 0 {
			t.Fatalf("round %d (ring %d): no event reused", round, size)
		}
	}
}
