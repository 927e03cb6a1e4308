package sim

import "testing"

// A strict place hint keeps a pending map off every node it does not name
// until it expires; other pending maps stay available.
func TestStrictPlaceHoldsTask(t *testing.T) {
	held := &task{idx: 0, state: taskPending, pref: []int32{2}, strictUntil: 1000}
	free := &task{idx: 1, state: taskPending}
	j := &job{maps: []*task{held, free}}
	s := &sim{}
	var p plist
	p.push(0)
	p.push(1)
	if got := p.firstFor(s, j, 1, 500); got != free {
		t.Fatalf("node 1 before expiry got %v, want the unheld task", got)
	}
	if got := p.firstFor(s, j, 2, 500); got != held {
		t.Fatalf("node 2 (named) got %v, want the held task", got)
	}
	if got := p.firstFor(s, j, 1, 1000); got != held {
		t.Fatalf("after expiry node 1 got %v, want the held task", got)
	}
	free.state = taskRunning
	if got := p.firstFor(s, j, 1, 500); got != nil {
		t.Fatalf("only a held task left: got %v, want nil", got)
	}
}

// A strict place hint on a reducer keeps it off other nodes until it
// expires, as for maps; an unheld reducer is the fallback meanwhile.
func TestStrictPlaceHoldsReducer(t *testing.T) {
	held := &task{idx: 0, state: taskPending, pref: []int32{2}, strictUntil: 1000}
	free := &task{idx: 1, state: taskPending, qAt: 1} // its entry in reduceQ
	j := &job{reduces: []*task{held, free}, bind: map[int]binding{}}
	j.reduceQ.push(0)
	j.reduceQ.push(1)
	s := &sim{}
	for _, c := range []struct {
		node int32
		now  int64
		want *task
	}{
		{node: 1, now: 500, want: free},
		{node: 2, now: 500, want: held},
		{node: 1, now: 1000, want: held},
	} {
		s.now = c.now
		if got := s.pickReduce(j, &node{idx: c.node}); got != c.want {
			t.Errorf("node %d at %d: got reducer %v, want %v", c.node, c.now, got, c.want)
		}
	}
	free.state = taskRunning
	s.now = 500
	if got := s.pickReduce(j, &node{idx: 1}); got != nil {
		t.Errorf("only a held reducer left: node 1 got %v, want nil", got)
	}
}
