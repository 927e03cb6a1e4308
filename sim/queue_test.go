package sim

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"testing"
)

// Events pop in time order; equal times pop in scheduling order, so runs
// are deterministic whatever the heap's internal layout.
func TestQueueOrder(t *testing.T) {
	var q queue
	in := []struct {
		at  int64
		ref int32
	}{{5, 0}, {1, 1}, {5, 2}, {3, 3}, {1, 4}, {5, 5}, {0, 6}, {3, 7}}
	for _, e := range in {
		q.push(e.at, evHeartbeat, e.ref, 0)
	}
	want := []int32{6, 1, 4, 3, 7, 0, 2, 5}
	for i, w := range want {
		if q.len() == 0 {
			t.Fatalf("queue empty after %d pops", i)
		}
		if got := q.pop(); got.ref != w {
			t.Fatalf("pop %d: ref %d (t=%d), want %d", i, got.ref, got.at, w)
		}
	}
	if q.len() != 0 {
		t.Fatalf("%d items left", q.len())
	}
}

func BenchmarkQueue(b *testing.B) {
	var q queue
	for i := range 1024 {
		q.push(int64(i*7919%1024), evHeartbeat, int32(i), 0)
	}
	for b.Loop() {
		it := q.pop()
		q.push(it.at+1024, it.kind(), it.ref, 0)
	}
}

// The queue pops what a plain (at, seq) ordering pops, for random times
// with many ties, pushes between pops, and pushes before the last popped
// time.
func TestQueueSameAsSort(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for round := range 200 {
		var q queue
		// The reference: (at, seq, ref) in a plain slice, the least
		// (at, seq) popped by a scan.
		type refItem struct {
			at   int64
			seq  uint64
			ref  int32
			kind evKind
		}
		var ref []refItem
		var seq uint64
		var now int64
		spread := int64(1) << (round % 40)
		for step := range 2000 {
			if rng.IntN(3) > 0 || len(ref) == 0 {
				at := now + rng.Int64N(spread+1)
				switch rng.IntN(20) {
				case 0:
					at = now - rng.Int64N(5) // before the last pop
				case 1:
					at = now
				}
				seq++
				kind := evKind(rng.IntN(int(evPolicyTick) + 1))
				q.push(at, kind, int32(step), uint32(seq))
				ref = append(ref, refItem{at: at, seq: seq, ref: int32(step), kind: kind})
				continue
			}
			best := 0
			for i := range ref {
				if a, b := ref[i], ref[best]; a.at < b.at || a.at == b.at && a.seq < b.seq {
					best = i
				}
			}
			want := ref[best]
			ref = append(ref[:best], ref[best+1:]...)
			got := q.pop()
			if got.at != want.at || got.seq() != want.seq || got.ref != want.ref || got.ver != uint32(want.seq) || got.kind() != want.kind {
				t.Fatalf("round %d step %d: pop (%d, %d), want (%d, %d)", round, step, got.at, got.seq(), want.at, want.seq)
			}
			now = got.at
			if q.len() != len(ref) {
				t.Fatalf("len %d, want %d", q.len(), len(ref))
			}
		}
	}
}

// sortBySeq orders by seq as a plain sort does, for short lists (insertion)
// and long ones.
func TestSortBySeqSameAsSort(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for round := range 2000 {
		n := rng.IntN(40)
		r := make([]item, n)
		for i, s := range rng.Perm(n) {
			r[i] = item{at: 5, sk: uint64(s*7+round)<<8 | uint64(rng.IntN(6)), ref: int32(i)}
		}
		want := slices.Clone(r)
		slices.SortFunc(want, func(a, b item) int { return cmp.Compare(a.sk, b.sk) })
		sortBySeq(r)
		if !slices.Equal(r, want) {
			t.Fatalf("round %d: %v, want %v", round, r, want)
		}
	}
}
