package sim

import "testing"

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
		q.push(it.at+1024, it.kind, it.ref, 0)
	}
}
