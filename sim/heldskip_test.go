package sim

import (
	"math/rand/v2"
	"testing"

	"github.com/rmsidecar/rmsidecar/events"
	"github.com/rmsidecar/rmsidecar/sim/trace"
)

// firstForRef is plist.firstFor before the held-block summaries: a walk of
// every entry after the head. It returns the index of the map firstFor
// returns, and does not make records.
func firstForRef(p *plist, j *job, n int32, now int64) (int32, bool) {
	i, ok := p.first(j)
	if !ok {
		return 0, false
	}
	if t := j.maps[i]; t == nil || !t.heldFrom(n, now) {
		return i, true
	}
	for k := p.head + 1; k < len(p.items); k++ {
		i := p.items[k]
		if c := j.maps[i]; c == nil || c.state == taskPending && !c.heldFrom(n, now) {
			return i, true
		}
	}
	return 0, false
}

// firstFor with held-block summaries returns the map the full walk
// returns, over random lists of held, free, running and finished maps
// while holds are renewed, moved, shortened and dropped, maps launch and
// come back pending, and time passes.
func TestFirstForSameAsWalk(t *testing.T) {
	summarized := 0
	for seed := range uint64(40) {
		rng := rand.New(rand.NewPCG(seed, 29))
		nodes := 2 + rng.IntN(300)
		s := &sim{now: 0, nodes: make([]*node, nodes)}
		nm := 1 + rng.IntN(2000)
		j := &job{spec: &trace.Job{}, blockBytes: 1, repl: 1, maps: make([]*task, nm), replicas: make([]int32, nm)}
		// The list is like a node's: it starts with some of the job's maps
		// and place hints add others.
		var p plist
		inList := make([]bool, nm)
		for i := range nm {
			if rng.IntN(10) < 7 {
				p.push(int32(i))
				inList[i] = true
			}
		}
		hold := func(tk *task) {
			var pref []int32
			for range 1 + rng.IntN(3) {
				pref = append(pref, int32(rng.IntN(nodes)))
			}
			until := int64(0)
			if rng.IntN(20) > 0 {
				until = s.now + int64(rng.IntN(30000))
			}
			tk.place(pref, until)
		}
		record := func(i int) *task {
			if j.maps[i] == nil {
				j.maps[i] = &task{job: j, idx: int32(i), kind: events.Map, state: taskPending}
			}
			return j.maps[i]
		}
		// Most maps start held, as TMaR holds them.
		for i := range nm {
			if rng.IntN(1000) < 995 {
				tk := record(i)
				tk.place([]int32{int32(rng.IntN(nodes))}, int64(1000+rng.IntN(30000)))
			}
		}
		hits := 0
		for step := range 3000 {
			switch r := rng.IntN(100); {
			case r < 55:
				n := int32(rng.IntN(nodes))
				want, wok := firstForRef(&p, j, n, s.now)
				got := p.firstFor(s, j, n, s.now)
				if (got != nil) != wok || wok && got.idx != want {
					t.Fatalf("seed %d step %d node %d now %d: firstFor %v, walk %d %v", seed, step, n, s.now, got, want, wok)
				}
				if got != nil {
					hits++
				}
			case r < 70:
				s.now += int64(rng.IntN(40))
			case r < 85: // renew, move, shorten or drop a hold
				tk := record(rng.IntN(nm))
				if tk.state != taskPending {
					break
				}
				switch rng.IntN(4) {
				case 0:
					tk.place(append([]int32(nil), tk.pref...), tk.strictUntil+int64(rng.IntN(2000)))
				case 1:
					if tk.strictUntil > s.now {
						tk.place(append([]int32(nil), tk.pref...), s.now+1+int64(rng.IntN(100)))
					}
				default:
					hold(tk)
				}
				if rng.IntN(2) == 0 {
					p.push(tk.idx) // as a place hint adds a map to its nodes' lists
					inList[tk.idx] = true
				}
			case r < 93: // launch
				if tk := record(rng.IntN(nm)); tk.state == taskPending {
					tk.state = taskRunning
				}
			case r < 97: // the attempt failed: pending again, at the lists' end
				if tk := record(rng.IntN(nm)); tk.state == taskRunning {
					tk.state = taskPending
					j.holdGen++
					p.push(tk.idx)
					inList[tk.idx] = true
				}
			case r < 99:
				if tk := record(rng.IntN(nm)); tk.state == taskRunning {
					tk.state = taskDone
				}
			default: // every map of the list launched (it empties and restarts), then some back
				for i := range nm {
					if tk := record(i); inList[i] && tk.state == taskPending {
						tk.state = taskRunning
					}
				}
				for range rng.IntN(300) {
					if tk := record(rng.IntN(nm)); tk.state == taskRunning {
						tk.state = taskPending
						hold(tk)
						j.holdGen++
						p.push(tk.idx)
						inList[tk.idx] = true
					}
				}
			}
		}
		if hits == 0 {
			t.Fatalf("seed %d: no query found a map: the test exercised nothing", seed)
		}
		if p.held != nil {
			summarized++
		}
	}
	if summarized < 10 {
		t.Fatalf("%d of 40 lists made summaries: the test did not exercise them", summarized)
	}
}

// A list that empties starts again at position 0: the summaries of its old
// entries must not pass over the new ones, which a place hint may add
// without anything else changing (a node's list).
func TestFirstForAfterListEmpties(t *testing.T) {
	s := &sim{nodes: make([]*node, 4)}
	const n = 4 * heldBlockLen
	j := &job{spec: &trace.Job{}, blockBytes: 1, repl: 1, maps: make([]*task, 2*n), replicas: make([]int32, 2*n)}
	for i := range j.maps {
		j.maps[i] = &task{job: j, idx: int32(i), kind: events.Map, state: taskPending}
		j.maps[i].place([]int32{1}, 1000)
	}
	var p plist
	for i := range n {
		p.push(int32(i))
	}
	if got := p.firstFor(s, j, 0, 0); got != nil {
		t.Fatalf("every map is held to node 1, node 0 got map %d", got.idx)
	}
	if p.held == nil {
		t.Fatal("the walk made no summary")
	}
	for i := range n {
		j.maps[i].state = taskRunning
	}
	if got := p.firstFor(s, j, 1, 0); got != nil {
		t.Fatalf("every map of the list runs, got map %d", got.idx)
	}
	// New maps: one block held to node 1, then one to node 0.
	for i := n; i < n+2*heldBlockLen; i++ {
		if i >= n+heldBlockLen {
			j.maps[i].pref[0] = 0
		}
		p.push(int32(i))
	}
	if got := p.firstFor(s, j, 0, 0); got == nil || got.idx != n+heldBlockLen {
		t.Fatalf("node 0 got %v, want map %d", got, n+heldBlockLen)
	}
}
