package sim

import "testing"

// A strict place hint keeps a pending map off every node it does not name
// until it expires; other pending maps stay available.
func TestStrictPlaceHoldsTask(t *testing.T) {
	held := &task{state: taskPending, pref: []int32{2}, strictUntil: 1000}
	free := &task{state: taskPending}
	tasks := []*task{held, free}
	var p plist
	p.push(0)
	p.push(1)
	if got := p.firstFor(tasks, 1, 500); got != free {
		t.Fatalf("node 1 before expiry got %v, want the unheld task", got)
	}
	if got := p.firstFor(tasks, 2, 500); got != held {
		t.Fatalf("node 2 (named) got %v, want the held task", got)
	}
	if got := p.firstFor(tasks, 1, 1000); got != held {
		t.Fatalf("after expiry node 1 got %v, want the held task", got)
	}
	free.state = taskRunning
	if got := p.firstFor(tasks, 1, 500); got != nil {
		t.Fatalf("only a held task left: got %v, want nil", got)
	}
}
