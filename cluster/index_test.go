package cluster

import (
	"math/rand/v2"
	"strconv"
	"strings"
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

// TestAttemptHasID checks the attempt's own copy of its id (setKey, hasID)
// against comparing ID itself: ids around the lengths the copy holds, with
// and without YARN's "attempt_" prefix, against ids that differ in one byte,
// in length, or in the prefix only.
func TestAttemptHasID(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	randID := func(n int) string {
		b := make([]byte, n)
		for i := range b {
			b[i] = "_0123456789mr"[r.IntN(13)]
		}
		return string(b)
	}
	var ids []string
	for n := range 48 {
		for range 4 {
			s := randID(n)
			ids = append(ids, s, attemptPrefix+s, "attempX_"+s, attemptPrefix[:min(n, len(attemptPrefix))])
		}
	}
	ids = append(ids, "attempt_1763719200000_0001_m_000045_0", "attempt_1763719200000_12345_m_000045_10")
	for _, id := range ids {
		at := &Attempt{ID: id}
		at.setKey()
		others := []string{id, id + "0", "", attemptPrefix + id, randID(len(id))}
		if len(id) > 0 {
			others = append(others, id[:len(id)-1], id[1:])
			for range 4 {
				b := []byte(id)
				b[r.IntN(len(b))] ^= 1
				others = append(others, string(b))
			}
		}
		for _, o := range others {
			if got, want := at.hasID(o), id == o; got != want {
				t.Fatalf("Attempt{ID: %q}.hasID(%q) = %v, want %v (key %v)", id, o, got, want, at.key)
			}
		}
		// An attempt whose key was never set falls back to ID.
		if !(&Attempt{ID: id}).hasID(id) {
			t.Fatalf("unset key: hasID(%q) false", id)
		}
	}
}

// TestNodeIndex checks the node index against a map through random adds
// and gets of ids of every length the nodes' copy of the id holds and
// longer, growing past several sizes.
func TestNodeIndex(t *testing.T) {
	var x nodeIndex
	want := map[string]*Node{}
	r := rand.New(rand.NewPCG(5, 6))
	if x.get("n") != nil {
		t.Fatal("empty index found a node")
	}
	id := func() string {
		return "nm" + strconv.Itoa(r.IntN(3000)) + ".example.com:80" + strings.Repeat("4", r.IntN(20))
	}
	for step := range 50_000 {
		k := id()
		if r.IntN(3) == 0 {
			if want[k] == nil {
				n := &Node{ID: k}
				x.add(n)
				want[k] = n
			}
		} else if got := x.get(k); got != want[k] {
			t.Fatalf("step %d: get(%s) = %p, want %p", step, k, got, want[k])
		}
		if len(x.list) != len(want) {
			t.Fatalf("step %d: %d nodes, want %d", step, len(x.list), len(want))
		}
	}
	for k, n := range want {
		if x.get(k) != n || x.get(k+"x") != nil || x.get(k[:len(k)-1]) != want[k[:len(k)-1]] {
			t.Fatalf("get(%s) wrong", k)
		}
	}
}

// TestAttemptIndexNext checks next, the look-up through a cursor, against a
// map: look-ups in walks of a fixed step through the order of insertion
// (what the cursor predicts), broken by random ones, random ids absent from
// the index, replacements, and deletes enough to compact the order several
// times. It also checks that order holds every indexed attempt at its ord.
func TestAttemptIndexNext(t *testing.T) {
	var x attemptIndex
	var c cursor
	want := map[string]*Attempt{}
	var ids []string // in order of first insertion
	r := rand.New(rand.NewPCG(7, 8))
	if x.next("a", &c) != nil {
		t.Fatal("empty index found an attempt")
	}
	check := func(step int, id string) {
		t.Helper()
		if got := x.next(id, &c); got != want[id] {
			t.Fatalf("step %d: next(%s) = %p, want %p", step, id, got, want[id])
		}
	}
	pos, stride := 0, 1
	for step := range 300_000 {
		switch op := r.IntN(100); {
		case op < 10 || len(ids) == 0:
			id := "attempt_" + strconv.Itoa(r.IntN(20_000))
			if _, ok := want[id]; !ok {
				ids = append(ids, id)
			}
			at := &Attempt{ID: id}
			x.put(at)
			want[id] = at
		case op < 16:
			id := ids[r.IntN(len(ids))]
			x.del(id)
			delete(want, id)
		case op < 20: // a random look-up, maybe of an id never indexed
			check(step, "attempt_"+strconv.Itoa(r.IntN(25_000)))
		case op < 21: // a new walk
			pos, stride = r.IntN(len(ids)), 1+r.IntN(4)
		default:
			pos = (pos + stride) % len(ids)
			check(step, ids[pos])
		}
		if x.Len() != len(want) {
			t.Fatalf("step %d: len %d, want %d", step, x.Len(), len(want))
		}
	}
	n := 0
	for i, at := range x.order {
		if at == nil {
			continue
		}
		n++
		if int(at.ord) != i || want[at.ID] != at {
			t.Fatalf("order[%d] = %s at ord %d, indexed %p", i, at.ID, at.ord, want[at.ID])
		}
	}
	if n != len(want) || len(x.order)-n != x.holes {
		t.Fatalf("order holds %d attempts and %d holes, want %d and %d", n, len(x.order)-n, len(want), x.holes)
	}
	for i, sl := range x.slots {
		if sl.tag != 0 && (x.order[sl.pos] != sl.p || sl.p.ord != sl.pos) {
			t.Fatalf("slot %d: position %d, attempt %s at ord %d", i, sl.pos, sl.p.ID, sl.p.ord)
		}
	}
	for id, at := range want {
		if x.next(id, &c) != at || x.get(id) != at {
			t.Fatalf("next(%s) lost", id)
		}
	}
}

// TestNodeIndexNext checks next against a map as TestAttemptIndexNext does:
// walks of a fixed step through the nodes in order of first sight, random
// look-ups, absent ids, and nodes added during the walks.
func TestNodeIndexNext(t *testing.T) {
	var x nodeIndex
	var c cursor
	want := map[string]*Node{}
	var ids []string
	r := rand.New(rand.NewPCG(9, 10))
	if x.next("n", &c) != nil {
		t.Fatal("empty index found a node")
	}
	pos, stride := 0, 1
	for step := range 200_000 {
		var id string
		switch op := r.IntN(100); {
		case op < 5 || len(ids) == 0:
			id = "nm" + strconv.Itoa(r.IntN(5000)) + ".example.com:8041"
			if want[id] == nil {
				n := &Node{ID: id}
				x.add(n)
				want[id] = n
				ids = append(ids, id)
			}
		case op < 10:
			id = "nm" + strconv.Itoa(r.IntN(6000)) + ".example.com:8041"
		case op < 11:
			pos, stride = r.IntN(len(ids)), 1+r.IntN(3)
			continue
		default:
			pos = (pos + stride) % len(ids)
			id = ids[pos]
		}
		if got := x.next(id, &c); got != want[id] {
			t.Fatalf("step %d: next(%s) = %p, want %p", step, id, got, want[id])
		}
	}
	for i, n := range x.list {
		if s := x.find(n.ID); want[n.ID] != n || s == nil || s.p != n || int(s.pos) != i {
			t.Fatalf("list[%d] = %s, find %+v", i, n.ID, s)
		}
	}
	for i, sl := range x.slots {
		if sl.tag != 0 && x.list[sl.pos] != sl.p {
			t.Fatalf("slot %d: position %d, node %s", i, sl.pos, sl.p.ID)
		}
	}
}

// TestCursorPredicts checks that a walk of a fixed step is predicted once
// the step has repeated, and that a look-up off the walk turns the
// prediction off until a step repeats again.
func TestCursorPredicts(t *testing.T) {
	var c cursor
	predicted := []int{-1, -1, -1, 14, 17, -1, -1, 23}
	for i, p := range []int{5, 8, 11, 14, 2, 9, 16, 23} {
		if got, want := c.predict(), predicted[i]; got != want {
			t.Fatalf("look-up %d (position %d): predicted %d, want %d", i, p, got, want)
		}
		if c.predict() == p {
			c.hit()
		} else {
			c.found(p)
		}
	}
}
