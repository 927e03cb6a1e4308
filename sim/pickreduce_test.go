package sim

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/rmsidecar/rmsidecar/events"
	"github.com/rmsidecar/rmsidecar/sim/trace"
)

// pickReduceRef is pickReduce over the pending reducers in the order of
// their latest pend (seq; -1: not in the list), with no list: the reducer bound or placed on n
// first, else the first one neither bound nor strictly placed elsewhere.
func pickReduceRef(j *job, seq []int, n int32, now int64) *task {
	var pend []*task
	for _, t := range j.reduces {
		if t.state == taskPending && seq[t.idx] >= 0 {
			pend = append(pend, t)
		}
	}
	slices.SortFunc(pend, func(a, b *task) int { return seq[a.idx] - seq[b.idx] })
	var fallback *task
	for _, t := range pend {
		if b, ok := j.bind[int(t.part)]; ok && b.expires > now {
			if b.node == n {
				return t
			}
			continue
		}
		if slices.Contains(t.pref, n) {
			return t
		}
		if fallback == nil && !t.heldFrom(n, now) {
			fallback = t
		}
	}
	return fallback
}

// pickReduce answers as the order of the reducers' latest pends does while
// reducers are bound, placed, launched, finished and made pending again,
// and its list drops what it reads past (dropNotPending).
func TestPickReduceSameAsLatestPend(t *testing.T) {
	dropped := 0
	for seed := range uint64(12) {
		rng := rand.New(rand.NewPCG(seed, 37))
		nodes := int32(1 + rng.IntN(40))
		nr := 300 + rng.IntN(1000)
		s := &sim{}
		j := &job{spec: &trace.Job{}, reduces: make([]*task, nr), bind: map[int]binding{}}
		seq, next := make([]int, nr), 0
		pend := func(r *task) {
			r.state = taskPending
			r.qAt = int32(len(j.reduceQ.items))
			j.reduceQ.push(r.idx)
			seq[r.idx], next = next, next+1
		}
		for i := range j.reduces {
			j.reduces[i] = &task{job: j, idx: int32(i), kind: events.Reduce, part: int32(rng.IntN(nr))}
			pend(j.reduces[i])
			if rng.IntN(10) != 0 { // most bound, as TMaR binds them: launched out of order
				j.bind[i] = binding{node: rng.Int32N(nodes), expires: int64(rng.IntN(200_000))}
			}
		}
		for range 8000 {
			r := j.reduces[rng.IntN(nr)]
			switch op := rng.IntN(100); {
			case op < 55:
				n := rng.Int32N(nodes)
				want := pickReduceRef(j, seq, n, s.now)
				items := len(j.reduceQ.items)
				got := s.pickReduce(j, &node{idx: n})
				if got != want {
					t.Fatalf("seed %d: pickReduce on node %d at %d: reducer %d, want %d", seed, n, s.now, idxOf(got), idxOf(want))
				}
				if len(j.reduceQ.items) < items {
					dropped++
				}
				if got != nil && rng.IntN(4) != 0 {
					got.state = taskRunning
				}
			case op < 65:
				s.now += int64(rng.IntN(100))
			case op < 72:
				j.bind[rng.IntN(nr)] = binding{node: rng.Int32N(nodes), expires: s.now + int64(rng.IntN(500))}
			case op < 80:
				if r.state == taskPending {
					r.pref = []int32{rng.Int32N(nodes)}
					r.strictUntil = 0
					if rng.IntN(2) == 0 {
						r.strictUntil = s.now + int64(rng.IntN(500))
					}
					j.redPlaced = placedSome
				}
			case op < 90:
				if r.state == taskRunning {
					pend(r) // killed: setPending
				}
			default:
				if r.state == taskRunning {
					r.state = taskDone
				}
			}
		}
	}
	t.Logf("%d lists dropped entries", dropped)
	if dropped < 10 {
		t.Fatalf("%d lists dropped entries: the test did not exercise dropNotPending", dropped)
	}
}

// idxOf is t's index, -1 for none.
func idxOf(t *task) int32 {
	if t == nil {
		return -1
	}
	return t.idx
}
