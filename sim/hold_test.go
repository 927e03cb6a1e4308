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
	rng   *rand.Rand
	s     *sim
	j     *job
	nodes int
	rep   []int32 // each map's replica node
}

func newHoldJob(seed uint64) *holdJob {
	rng := rand.New(rand.NewPCG(seed, 29))
	nodes := 2 + rng.IntN(200)
	nm := 1 + rng.IntN(2000)
	h := &holdJob{rng: rng, s: &sim{nodes: make([]*node, nodes)}, nodes: nodes, rep: make([]int32, nm)}
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
// the lists of the nodes it was not placed on yet.
func (h *holdJob) hint(t *task, pref []int32, until int64) {
	old := append([]int32(nil), t.pref...)
	t.place(pref, until)
	for _, r := range t.pref {
		if !slices.Contains(old, r) {
			h.j.nodeList(r).push(t.idx)
		}
	}
}

// repend is pendingMap for a map whose attempt failed.
func (h *holdJob) repend(t *task) {
	t.state = taskPending
	h.j.holdGen++
	h.j.nodeList(h.rep[t.idx]).push(t.idx)
	for _, r := range t.pref {
		h.j.nodeList(r).push(t.idx)
	}
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
		if h.j.anyMap.skipTo > int32(h.j.anyMap.head)+1 {
			resumed++
		}
	}
	if resumed < 10 {
		t.Fatalf("%d of 60 jobs left a walk to resume: the test did not exercise it", resumed)
	}
}

// A list that empties starts again at position 0: where the last walk
// stopped must not pass over the new entries, which a place hint may add
// without anything else changing (a node's list).
func TestFirstForAfterListEmpties(t *testing.T) {
	s := &sim{nodes: make([]*node, 4)}
	const n = 256
	j := &job{spec: &trace.Job{}, blockBytes: 1, repl: 1, maps: make([]*task, 2*n), replicas: make([]int32, 2*n)}
	for i := range j.maps {
		j.maps[i] = &task{job: j, idx: int32(i), kind: events.Map, state: taskPending}
		j.maps[i].place([]int32{1}, 1000)
	}
	var p plist // node 0's
	for i := range n {
		p.push(int32(i))
	}
	if got := p.firstFor(s, j, 0, 0); got != nil {
		t.Fatalf("every map is held to node 1, node 0 got map %d", got.idx)
	}
	for i := range n {
		j.maps[i].state = taskRunning
	}
	if got := p.firstFor(s, j, 0, 0); got != nil {
		t.Fatalf("every map of the list runs, got map %d", got.idx)
	}
	// New maps: some held to node 1, then one to node 0.
	for i := n; i < n+10; i++ {
		p.push(int32(i))
	}
	j.maps[n+9].pref[0] = 0
	if got := p.firstFor(s, j, 0, 0); got == nil || got.idx != n+9 {
		t.Fatalf("node 0 got %v, want map %d", got, n+9)
	}
}
