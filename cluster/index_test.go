package cluster

import (
	"math/rand/v2"
	"strconv"
	"testing"
)

// TestAttemptIndex checks the index against a map through random puts,
// replacements, gets and deletes, growing past several sizes and deleting
// inside probe runs (a small id space makes collisions of home slots common).
func TestAttemptIndex(t *testing.T) {
	var x attemptIndex
	want := map[string]*Attempt{}
	r := rand.New(rand.NewPCG(1, 2))
	if x.get("a") != nil {
		t.Fatal("empty index found an attempt")
	}
	x.del("a")
	for step := range 200_000 {
		id := "attempt_" + strconv.Itoa(r.IntN(5000))
		switch op := r.IntN(10); {
		case op < 5:
			at := &Attempt{ID: id}
			x.put(at)
			want[id] = at
		case op < 8:
			x.del(id)
			delete(want, id)
		default:
			if got := x.get(id); got != want[id] {
				t.Fatalf("step %d: get(%s) = %p, want %p", step, id, got, want[id])
			}
		}
		if x.Len() != len(want) {
			t.Fatalf("step %d: len %d, want %d", step, x.Len(), len(want))
		}
	}
	for id, at := range want {
		if x.get(id) != at {
			t.Fatalf("get(%s) lost", id)
		}
	}
	for i := range 5000 {
		id := "attempt_" + strconv.Itoa(i)
		if _, ok := want[id]; !ok && x.get(id) != nil {
			t.Fatalf("get(%s) found a deleted attempt", id)
		}
	}
}
