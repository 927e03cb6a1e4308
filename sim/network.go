package sim

import "math"

// The network model. Every node has a full-duplex NIC (an "out" and an "in"
// link) and every rack an uplink to the core (an "up" and a "down" link).
// A flow traverses src.out and dst.in, plus src-rack.up and dst-rack.down
// when it crosses racks.
//
// Sharing: equal share per link. A link of capacity C crossed by n flows
// gives each of them C/n, and a flow runs at its bottleneck share: it is
// served by the link with the smallest share C/n when it starts (the other
// links count it). Each link tracks its served flows in virtual time
// advancing at C/n, so a flow starting or ending anywhere on the link
// re-rates every flow it serves at O(log n) cost (one completion event per
// link, not per flow). Shares are equal, not max-min: bandwidth a flow
// leaves unused because it is held back elsewhere is not redistributed, so a
// link is never oversubscribed. The bottleneck is chosen once, at the
// start; a later change elsewhere does not move a flow to another link.
// This keeps a day of shuffle (millions of fetches) cheap.

// link is one direction of a NIC or rack uplink.
type link struct {
	capB     float64 // bytes per ms
	v        float64 // virtual time: bytes served to each member so far
	vAt      int64   // time v was last advanced
	members  int     // flows served by this link
	traverse int     // flows crossing this link (served here or elsewhere): the share is capB/traverse
	ver      uint32  // bumps when the completion event is rescheduled
	at       int64   // time of the valid completion event, -1 when none
	tags     []hent  // the flows it serves, min-heap by (tag, flow id)
	bytes    int64   // bytes carried (served here), for reports
}

// flow is one shuffle fetch: a reducer attempt copying the map outputs it
// needs from one source node.
type flow struct {
	att    *attempt
	bytes  int64
	tag    float64 // virtual finish time on its serving link
	serve  int32   // serving link
	links  [4]int32
	nlinks int8
	cross  bool
	active bool
}

type network struct {
	links   []link
	flows   []flow
	free    []int32
	latency float64 // ms added to every fetch, as bytes at the serving link's rate
}

func (nw *network) advance(l *link, now int64) {
	if l.members > 0 && now > l.vAt {
		l.v += l.capB * float64(now-l.vAt) / float64(l.traverse)
	}
	l.vAt = now
}

// nextDone is when the link's earliest flow finishes, or -1.
func (nw *network) nextDone(l *link) int64 {
	if l.members == 0 {
		return -1
	}
	rem := l.tags[0].tag - l.v
	if rem < 0 {
		rem = 0
	}
	return l.vAt + int64(math.Ceil(rem*float64(l.traverse)/l.capB))
}

// start adds a flow and returns its id; the caller reschedules the
// completion of every link the flow crosses (their shares changed).
func (nw *network) start(now int64, att *attempt, cross bool, bytes int64, links []int32) int32 {
	var id int32
	if n := len(nw.free); n > 0 {
		id = nw.free[n-1]
		nw.free = nw.free[:n-1]
	} else {
		nw.flows = append(nw.flows, flow{})
		id = int32(len(nw.flows) - 1)
	}
	f := &nw.flows[id]
	*f = flow{att: att, cross: cross, bytes: bytes, active: true}
	best, bestShare := int32(-1), math.Inf(1)
	for _, li := range links {
		l := &nw.links[li]
		nw.advance(l, now) // at the old share
		l.traverse++
		if share := l.capB / float64(l.traverse); share < bestShare {
			best, bestShare = li, share
		}
		f.links[f.nlinks] = li
		f.nlinks++
	}
	l := &nw.links[best]
	f.serve = best
	f.tag = l.v + float64(bytes) + nw.latency*l.capB
	l.members++
	heapPush(l, hent{tag: f.tag, id: id})
	return id
}

// finish removes flow id (completed or cancelled) from its links; the
// caller reschedules the links (see flowLinks).
func (nw *network) finish(now int64, id int32) {
	f := &nw.flows[id]
	for i := range f.nlinks {
		l := &nw.links[f.links[i]]
		nw.advance(l, now) // at the old share
		l.traverse--
	}
	l := &nw.links[f.serve]
	heapRemove(l, id)
	l.members--
	f.active = false
	f.att = nil
	nw.free = append(nw.free, id)
}

// due returns the id of the link's earliest flow if it has finished by now, else -1.
func (nw *network) due(l *link, now int64) int32 {
	if l.members == 0 {
		return -1
	}
	nw.advance(l, now)
	// Completion times are rounded up to whole ms, so at the event the flow's
	// tag has been reached up to float error.
	if e := l.tags[0]; e.tag <= l.v+1e-6*math.Max(1, l.v) {
		return e.id
	}
	return -1
}

// hent is a flow in its serving link's heap. The tag is kept beside the
// id so that sifting compares without reading the flow table; (tag, id) is
// a total order over the link's flows, so the top does not depend on the
// heap's shape.
type hent struct {
	tag float64
	id  int32
}

func (a hent) less(b hent) bool {
	if a.tag != b.tag {
		return a.tag < b.tag
	}
	return a.id < b.id
}

// A link's heap is 4-ary: half the levels of a binary heap, and a node's
// children share a cache line.
const heapD = 4

func heapPush(l *link, e hent) {
	l.tags = append(l.tags, e)
	h := l.tags
	i := len(h) - 1
	for i > 0 {
		p := (i - 1) / heapD
		if !e.less(h[p]) {
			break
		}
		h[i] = h[p]
		i = p
	}
	h[i] = e
}

// heapRemove removes flow id from the link's heap: the top when the flow
// completes, anywhere when it is cancelled (rare: a linear search).
func heapRemove(l *link, id int32) {
	h := l.tags
	i := 0
	if h[0].id != id {
		for i = 1; h[i].id != id; i++ {
		}
	}
	n := len(h) - 1
	last := h[n]
	l.tags = h[:n]
	if i == n {
		return
	}
	h = l.tags
	// Sift last down from i, then up (it may be smaller than i's parent
	// when i is not the top).
	for {
		c := heapD*i + 1
		if c >= n {
			break
		}
		m := c
		for k := c + 1; k < min(c+heapD, n); k++ {
			if h[k].less(h[m]) {
				m = k
			}
		}
		if !h[m].less(last) {
			break
		}
		h[i] = h[m]
		i = m
	}
	for i > 0 {
		p := (i - 1) / heapD
		if !last.less(h[p]) {
			break
		}
		h[i] = h[p]
		i = p
	}
	h[i] = last
}
