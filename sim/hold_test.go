package sim

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/rmsidecar/rmsidecar/events"
	"github.com/rmsidecar/rmsidecar/sim/trace"
)

// firstForRef is plist.firstFor before walks resumed: a walk of every
// entry after the head. It returns the index of the map firstFor returns,
// and does not make records.
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

// holdJob is a job's maps and lists as offer reads them, changed the way
// the simulator changes them (pendingMap, applyHint, launch).
type holdJob struct {
	rng     *rand.Rand
	s       *sim
	j       *job
	nodes   int
	rep     []int32 // each map's replica node
	repends []int   // by map
}

func newHoldJob(seed uint64) *holdJob {
	rng := rand.New(rand.NewPCG(seed, 29))
	nodes := 2 + rng.IntN(200)
	nm := 1 + rng.IntN(2000)
	h := &holdJob{rng: rng, s: &sim{nodes: make([]*node, nodes)}, nodes: nodes, rep: make([]int32, nm), repends: make([]int, nm)}
	h.j = &job{spec: &trace.Job{}, blockBytes: 1, repl: 1, maps: make([]*task, nm), replicas: make([]int32, nm), byNode: map[int32]*plist{}}
	for i := range nm {
		h.rep[i] = int32(rng.IntN(nodes))
		h.j.nodeList(h.rep[i]).push(int32(i))
		h.j.anyMap.push(int32(i))
		if rng.IntN(1000) < 995 { // most maps held, as TMaR holds them
			h.hint(h.record(i), []int32{int32(rng.IntN(nodes))}, int64(1000+rng.IntN(30000)))
		}
	}
	return h
}

func (h *holdJob) record(i int) *task {
	if h.j.maps[i] == nil {
		h.j.maps[i] = &task{job: h.j, idx: int32(i), kind: events.Map, state: taskPending}
	}
	return h.j.maps[i]
}

// hint is applyHint's place on a pending map: the hold, then the map in
// the lists of the nodes it was not listed on yet.
func (h *holdJob) hint(t *task, pref []int32, until int64) {
	pref = slices.Compact(pref) // applyHint lists a node once; these are one or two
	t.place(pref, until)
	t.listPlaced()
}

// repend is pendingMap for a map whose attempt failed.
func (h *holdJob) repend(t *task) {
	h.repends[t.idx]++
	t.state = taskPending
	h.j.holdGen++
	h.j.nodeList(h.rep[t.idx]).push(t.idx)
	t.relist()
	h.j.anyMap.push(t.idx)
}

// offer asks n's own list, then the any list, as offer does, of firstFor
// and of the full walk, and fails when they differ.
func (h *holdJob) offer(t *testing.T, n int32) *task {
	t.Helper()
	lists := []*plist{h.j.byNode[n], &h.j.anyMap}
	for _, p := range lists {
		if p == nil {
			continue
		}
		want, wok := firstForRef(p, h.j, n, h.s.now)
		got := p.firstFor(h.s, h.j, n, h.s.now)
		if (got != nil) != wok || wok && got.idx != want {
			t.Fatalf("node %d at %d: firstFor %v, the walk %d %v", n, h.s.now, got, want, wok)
		}
		if got != nil {
			return got
		}
	}
	return nil
}

// firstFor returns the map the full walk returns, over random jobs whose
// maps are held, freed, launched and made pending again while time passes,
// asked in offer's order (a node's own list, then the any list).
func TestFirstForSameAsWalk(t *testing.T) {
	resumed := 0
	for seed := range uint64(60) {
		h := newHoldJob(seed)
		rng, nm := h.rng, len(h.j.maps)
		hits := 0
		for range 4000 {
			switch r := rng.IntN(100); {
			case r < 50:
				if got := h.offer(t, int32(rng.IntN(h.nodes))); got != nil {
					hits++
					if rng.IntN(2) == 0 {
						got.state = taskRunning // launched
					}
				}
			case r < 65:
				h.s.now += int64(rng.IntN(40))
			case r < 85: // renew, move, shorten or drop a hold
				tk := h.record(rng.IntN(nm))
				if tk.state != taskPending {
					break
				}
				switch rng.IntN(5) {
				case 0:
					h.hint(tk, append([]int32(nil), tk.pref...), tk.strictUntil+int64(rng.IntN(2000)))
				case 1:
					if tk.strictUntil > h.s.now {
						h.hint(tk, append([]int32(nil), tk.pref...), h.s.now+1+int64(rng.IntN(100)))
					}
				case 2:
					h.hint(tk, []int32{int32(rng.IntN(h.nodes))}, 0)
				default:
					h.hint(tk, []int32{int32(rng.IntN(h.nodes)), int32(rng.IntN(h.nodes))}, h.s.now+int64(rng.IntN(30000)))
				}
			case r < 95:
				if tk := h.record(rng.IntN(nm)); tk.state == taskPending {
					tk.state = taskRunning
				}
			case r < 98:
				if tk := h.record(rng.IntN(nm)); tk.state == taskRunning {
					h.repend(tk)
				}
			default:
				if tk := h.record(rng.IntN(nm)); tk.state == taskRunning {
					tk.state = taskDone
				}
			}
		}
		if hits == 0 {
			t.Fatalf("seed %d: no offer found a map: the test exercised nothing", seed)
		}
		h.checkListed(t)
		if h.j.anyMap.skipTo > int32(h.j.anyMap.head)+1 {
			resumed++
		}
	}
	if resumed < 10 {
		t.Fatalf("%d of 60 jobs left a walk to resume: the test did not exercise it", resumed)
	}
}

// checkListed fails unless every pending map is in the list of each node
// of its pref at or after its head, as offer needs (a map held to n is
// found in n's list; see firstFor), and no more often than its pends
// listed it there (the repeats a re-plan's moves made, see listPlaced).
func (h *holdJob) checkListed(t *testing.T) {
	t.Helper()
	for _, tk := range h.j.maps {
		if tk == nil || tk.state != taskPending {
			continue
		}
		for _, r := range tk.pref {
			p, n := h.j.byNode[r], 0
			for _, i := range p.items[p.head:] {
				if i == tk.idx {
					n++
				}
			}
			most := 1 + h.repends[tk.idx] // an earlier pend's entry is not dropped
			if h.rep[tk.idx] == r {
				most *= 2 // and the replica's entry of each pend
			}
			if n < 1 || n > most {
				t.Fatalf("map %d placed on node %d: %d entries in its list after the head, want 1 to %d", tk.idx, r, n, most)
			}
		}
	}
}

// A list that drops its entries before the head (plist.compact) answers as
// the list of every entry ever pushed, walked from the head first would
// have: maps launched mostly in list order move the head on, while others
// are held elsewhere, come back pending and finish.
func TestCompactSameAsWalk(t *testing.T) {
	compacted := 0
	for seed := range uint64(20) {
		rng := rand.New(rand.NewPCG(seed, 31))
		s := &sim{nodes: make([]*node, 2)}
		nm := 300 + rng.IntN(3000)
		j := &job{spec: &trace.Job{}, blockBytes: 1, repl: 1, maps: make([]*task, nm), replicas: make([]int32, nm)}
		var p plist // node 0's
		var all []int32
		head := 0 // all's, moved as first moves p's
		push := func(i int32) { p.push(i); all = append(all, i) }
		for i := range j.maps {
			j.maps[i] = &task{job: j, idx: int32(i), kind: events.Map, state: taskPending}
			push(int32(i))
		}
		var now int64
		for range 20000 {
			switch r := rng.IntN(100); {
			case r < 60:
				var want *task
				for head < len(all) && j.maps[all[head]].state != taskPending {
					head++
				}
				if head == len(all) {
					all, head = all[:0], 0
				}
				for _, i := range all[head:] {
					if c := j.maps[i]; c.state == taskPending && !c.heldFrom(0, now) {
						want = c
						break
					}
				}
				before := p.head
				got := p.firstFor(s, j, 0, now)
				if got != want {
					t.Fatalf("seed %d at %d: firstFor %v, the walk of every entry %v", seed, now, got, want)
				}
				if p.head < before && len(p.items) > 0 {
					compacted++
				}
				if got != nil && rng.IntN(10) != 0 {
					got.state = taskRunning
				}
			case r < 70:
				now += int64(rng.IntN(50))
			case r < 80:
				if c := j.maps[rng.IntN(nm)]; c.state == taskPending {
					c.place([]int32{1}, now+int64(rng.IntN(500)))
				}
			case r < 90:
				if c := j.maps[rng.IntN(nm)]; c.state == taskRunning {
					c.state = taskPending
					j.holdGen++
					push(c.idx)
				}
			default:
				if c := j.maps[rng.IntN(nm)]; c.state == taskRunning {
					c.state = taskDone
				}
			}
		}
	}
	t.Logf("%d compactions", compacted)
	if compacted < 20 {
		t.Fatalf("%d compactions: the test did not exercise them", compacted)
	}
}

// A map listed on a node in an earlier pending period is listed there again
// when placed there after it ran and came back pending: its earlier entry
// may be gone (the list's head passed it while the map ran).
func TestListedAgainAfterRepend(t *testing.T) {
	s := &sim{nodes: make([]*node, 3)}
	j := &job{spec: &trace.Job{}, blockBytes: 1, repl: 1, maps: make([]*task, 1), replicas: make([]int32, 1), byNode: map[int32]*plist{}}
	m := &task{job: j, idx: 0, kind: events.Map, state: taskPending}
	j.maps[0] = m
	place := func(n int32) { m.place([]int32{n}, 1000); m.listPlaced() }
	place(1)
	place(2) // moved: node 1's list keeps its entry
	m.state = taskRunning
	if got := j.nodeList(1).firstFor(s, j, 1, 0); got != nil {
		t.Fatalf("a running map was offered: %d", got.idx)
	}
	if n := len(j.nodeList(1).items); n != 0 {
		t.Fatalf("node 1's list should have emptied, %d entries", n)
	}
	m.state = taskPending // killed: pendingMap
	j.holdGen++
	m.relist()
	place(1)
	if got := j.nodeList(1).firstFor(s, j, 1, 0); got != m {
		t.Fatalf("map held to node 1 not offered there: %v", got)
	}
}
