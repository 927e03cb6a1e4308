package sim

import (
	"slices"

	"github.com/rmsidecar/rmsidecar/events"
)

// A job whose maps are held by strict place hints (TMaR holds every pending
// map to its planned machine) makes plist.firstFor pass over every held
// entry at every offer of every other node: on the FB-2010 day on 3,000
// nodes a job of 25,000 held maps took most of the run there. heldBlocks
// lets firstFor pass over a whole block of entries that a walk found held
// from every node but those of their holds, until the earliest of those
// holds ends, without reading the tasks again. The summary is exact: a
// block is passed over only when each of its entries is still not eligible
// for the node asking, so firstFor returns what the walk would.

// heldBlockLen is the entries a summary covers.
const heldBlockLen = 64

// heldBlocks are a plist's block summaries, by block (items[b*heldBlockLen:]).
type heldBlocks struct {
	blocks []heldBlock
	words  int // words of a block's node set: one bit per cluster node
}

// heldBlock summarizes a walked block: when the walk was made, with the
// job's holdGen gen, every one of its first n entries was either not
// pending or held by a strict place hint until at least until to the nodes
// in nodes. n is 0 for a block with no summary.
type heldBlock struct {
	gen   uint32
	n     int32
	until int64
	nodes []uint64
}

// skips reports whether block b of p may be passed over for node n at now:
// its summary is of its current entries and of the job's current holds, no
// hold in it has ended and none is to n.
func (h *heldBlocks) skips(p *plist, b int, gen uint32, n int32, now int64) bool {
	if b >= len(h.blocks) {
		return false
	}
	s := &h.blocks[b]
	return s.n == heldBlockLen && s.gen == gen && now < s.until && s.nodes[n>>6]&(1<<(n&63)) == 0 &&
		len(p.items) >= (b+1)*heldBlockLen
}

// record stores the summary of block b, whose every entry the walk at now
// found not eligible for some node: the earliest end of their holds and the
// nodes they are held to.
func (h *heldBlocks) record(p *plist, j *job, b int) {
	for len(h.blocks) <= b {
		h.blocks = append(h.blocks, heldBlock{})
	}
	s := &h.blocks[b]
	if s.nodes == nil {
		s.nodes = make([]uint64, h.words)
	} else {
		clear(s.nodes)
	}
	s.gen, s.n, s.until = j.holdGen, heldBlockLen, 1<<62
	for _, i := range p.items[b*heldBlockLen : (b+1)*heldBlockLen] {
		t := j.maps[i]
		if t.state != taskPending {
			continue // only a re-pend (holdGen) makes it eligible again
		}
		s.until = min(s.until, t.strictUntil)
		for _, r := range t.pref {
			s.nodes[r>>6] |= 1 << (r & 63)
		}
	}
}

// place prefers pref for t and, with until > 0, holds t to them until
// then (sim ms). A map's hold that may now let it run where a summary says
// it may not changes its job's holdGen.
func (t *task) place(pref []int32, until int64) {
	if t.kind == events.Map && t.loosens(pref, until) {
		t.job.holdGen++
	}
	t.pref = append(t.pref[:0], pref...)
	t.strictUntil = until
}

// loosens reports whether a place hint that holds a map to pref until
// until (0: not strictly) may make it eligible where its current hold
// (t.pref until t.strictUntil) does not: a shorter hold or a node added.
// Renewing a hold to the same nodes does not.
func (t *task) loosens(pref []int32, until int64) bool {
	if t.strictUntil == 0 {
		return false // not held: no summary passes over it
	}
	if until < t.strictUntil {
		return true
	}
	for _, r := range pref {
		if !slices.Contains(t.pref, r) {
			return true
		}
	}
	return false
}
