package sim

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/rmsidecar/rmsidecar/events"
)

// pickReduceRef is pickReduce as it was before its shortcut for jobs with
// no bound or placed reducer: a scan of every pending reducer.
func pickReduceRef(s *sim, j *job, n *node) *task {
	var fallback *task
	for i := j.reduceQ.head; i < len(j.reduceQ.items); i++ {
		t := j.reduces[j.reduceQ.items[i]]
		if t.state != taskPending {
			if i == j.reduceQ.head {
				j.reduceQ.head++
			}
			continue
		}
		if b, ok := j.bind[int(t.part)]; ok && b.expires > s.now {
			if b.node == n.idx {
				return t
			}
			continue
		}
		if slices.Contains(t.pref, n.idx) {
			return t
		}
		if t.heldFrom(n.idx, s.now) {
			continue
		}
		if fallback == nil {
			fallback = t
		}
	}
	return fallback
}

// pickReduce picks the reducer the full scan picks and leaves the pending
// list's head where the scan leaves it, for random jobs with and without
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
		return s, j, &node{idx: int32(rng.IntN(4))}
	}
	fast := 0
	for seed := range uint64(100_000) {
		s1, j1, n1 := build(seed)
		s2, j2, n2 := build(seed)
		got, want := s1.pickReduce(j1, n1), pickReduceRef(s2, j2, n2)
		if j1.redPlaced == placedNone && len(j1.bind) == 0 {
			fast++
		}
		gi, wi := int32(-1), int32(-1)
		if got != nil {
			gi = got.idx
		}
		if want != nil {
			wi = want.idx
		}
		if gi != wi || j1.reduceQ.head != j2.reduceQ.head {
			t.Fatalf("seed %d: picked %d (head %d), the scan %d (head %d)", seed, gi, j1.reduceQ.head, wi, j2.reduceQ.head)
		}
	}
	if fast == 0 {
		t.Fatal("no job took the shortcut")
	}
}
