package sim

import (
	"math/rand/v2"
	"testing"

	"github.com/rmsidecar/rmsidecar/events"
)

// pickReduce picks the reducer the full scan (pickReduceRef) picks, for
// random jobs with and without
// bound, placed and strictly placed reducers.
func TestPickReduceSameAsScan(t *testing.T) {
	build := func(seed uint64) (*sim, *job, *node) {
		rng := rand.New(rand.NewPCG(seed, 13))
		s := &sim{now: 1000}
		j := &job{bind: map[int]binding{}}
		nr := rng.IntN(12)
		for i := range nr {
			tk := &task{job: j, idx: int32(i), kind: events.Reduce, part: int32(i), state: uint8(rng.IntN(3))}
			if rng.IntN(8) == 0 {
				tk.pref = []int32{int32(rng.IntN(4))}
				if rng.IntN(2) == 0 {
					tk.strictUntil = int64(rng.IntN(2000))
				}
			}
			if rng.IntN(10) == 0 {
				j.bind[i] = binding{node: int32(rng.IntN(4)), expires: int64(rng.IntN(2000))}
			}
			j.reduces = append(j.reduces, tk)
		}
		for range rng.IntN(2*nr + 1) {
			j.reduceQ.push(int32(rng.IntN(max(1, nr))))
		}
		if nr == 0 {
			j.reduceQ = plist{}
		}
		j.reduceQ.head = rng.IntN(len(j.reduceQ.items) + 1)
		for k, i := range j.reduceQ.items {
			j.reduces[i].qAt = int32(k) // its latest entry
		}
		return s, j, &node{idx: int32(rng.IntN(4))}
	}
	// latest is the position of each reducer's latest entry at or after
	// the head, -1 for none (pickReduceRef's order).
	latest := func(j *job) []int {
		at := make([]int, len(j.reduces))
		for i := range at {
			at[i] = -1
		}
		for k, i := range j.reduceQ.items {
			if k >= j.reduceQ.head && int(j.reduces[i].qAt) == k {
				at[i] = k
			}
		}
		return at
	}
	fast := 0
	for seed := range uint64(100_000) {
		s1, j1, n1 := build(seed)
		s2, j2, n2 := build(seed)
		got, want := s1.pickReduce(j1, n1), pickReduceRef(j2, latest(j2), n2.idx, s2.now)
		if j1.redPlaced == placedNone && len(j1.bind) == 0 {
			fast++
		}
		if gi, wi := idxOf(got), idxOf(want); gi != wi {
			t.Fatalf("seed %d: picked %d, the scan %d", seed, gi, wi)
		}
	}
	if fast == 0 {
		t.Fatal("no job took the shortcut")
	}
}
