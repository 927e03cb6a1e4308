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
// re-rates every flow it serves without touching them (one completion event
// per link, not per flow; the served flows are a list sorted by virtual
// finish time, see hent). Shares are equal, not max-min: bandwidth a flow
// leaves unused because it is held back elsewhere is not redistributed, so a
// link is never oversubscribed. The bottleneck is chosen once, at the
// start; a later change elsewhere does not move a flow to another link.
// This keeps a day of shuffle (millions of fetches) cheap.

// link is one direction of a NIC or rack uplink.
type link struct {
	capB     float64 // bytes per ms
	invCap   float64 // 1/capB (newLink), for notBefore; 0 turns that shortcut off
	v        float64 // virtual time: bytes served to each member so far
	vAt      int64   // time v was last advanced
	members  int     // flows served by this link
	traverse int     // flows crossing this link (served here or elsewhere): the share is capB/traverse
	ver      uint32  // bumps when the completion event is rescheduled
	at       int64   // time of the valid completion event, -1 when none
	tags     []hent  // the flows it serves: tags[head:] sorted by (tag, flow id)
	head     int
	// headTag is tags[head].tag while members > 0: every reschedule reads
	// it (notBefore, nextDone), and this way without touching the list.
	headTag float64
	bytes   int64 // bytes carried (served here), for reports
}

// flow is one shuffle fetch: a reducer attempt copying the map outputs it
// needs from one source node. 40 bytes: the reducer by pointer, not by its
// attempt slot, as a slot's look-up in the attempt table was one more
// miss in a row of them at a fetch's end (FB-2010 hours 0-6: 1.3 s).
type flow struct {
	att    *attempt // nil when free
	bytes  int64
	links  [4]int32 // links[:nlinks] in the order they are rescheduled
	serve  int8     // the serving link is links[serve]
	nlinks int8
	cross  bool
}

// serving is the flow's serving link.
func (f *flow) serving() int32 { return f.links[f.serve] }

type network struct {
	links   []link
	flows   []flow
	free    []int32
	latency float64 // ms added to every fetch, as bytes at the serving link's rate
}

func newLink(capB float64) link { return link{capB: capB, invCap: 1 / capB, at: -1} }

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
	rem := l.headTag - l.v
	if rem < 0 {
		rem = 0
	}
	return l.vAt + int64(math.Ceil(rem*float64(l.traverse)/l.capB))
}

// notBefore reports that the link's earliest flow does not finish before at
// (nextDone(l) >= at, or nextDone(l) < 0), found without nextDone's
// division; false means not known. Most reschedules find a completion
// event already due no later than the flow's finish (a start only delays
// the others), and this answers them with a multiplication.
//
// Why it never errs: nextDone is vAt + ceil(x), x = fl(fl(rem*traverse) /
// capB) >= 0. At or before vAt the answer is yes (ceil(x) >= 0; an x past
// the int64 range makes nextDone negative, which also keeps the event).
// Otherwise d >= 1 and y = fl(fl(rem*traverse) * invCap) is within 3 ulp
// of x (two roundings of y, one of x), so max(d-1, 0.5) < y*(1-1e-9) gives
// x > d-1 (and x > 0), and ceil(x) >= d for a whole d: nextDone >= at. (It
// asked x > d before, which left out the event due exactly at nextDone,
// the common case: on the FB-2010 day's first three hours 24.8 M of
// rescheduleDue's 62.8 M calls, each a division, are now answered here.)
func (nw *network) notBefore(l *link, at int64) bool {
	d := at - l.vAt
	if d <= 0 {
		return true
	}
	rem := l.headTag - l.v
	return max(float64(d-1), 0.5) < rem*float64(l.traverse)*l.invCap*(1-1e-9)
}

// start adds a flow over links[:nl] for the reducer att and returns its
// id; the caller reschedules the completion of every link
// the flow crosses (their shares changed).
func (nw *network) start(now int64, att *attempt, cross bool, bytes int64, links [4]int32, nl int) int32 {
	var id int32
	if n := len(nw.free); n > 0 {
		id = nw.free[n-1]
		nw.free = nw.free[:n-1]
	} else {
		nw.flows = append(nw.flows, flow{})
		id = int32(len(nw.flows) - 1)
	}
	// The serving link is the first of least share capB/traverse. Between
	// links of one capacity (the common case: NICs, or uplinks) the share
	// is less exactly when traverse is more, with no division: for c > 0
	// and whole t1 > t2 below 2^31, c/t1 and c/t2 differ by more than
	// 2^-31 relatively, far beyond rounding, so fl(c/t1) < fl(c/t2).
	var (
		best      int
		bestL     *link
		bestShare float64
		shareOK   bool // bestShare is bestL's share
	)
	for k, li := range links[:nl] {
		l := &nw.links[li]
		nw.advance(l, now) // at the old share
		l.traverse++
		switch {
		case bestL == nil:
			best, bestL, shareOK = k, l, false
		case l.capB == bestL.capB:
			if l.traverse > bestL.traverse {
				best, bestL, shareOK = k, l, false
			}
		default:
			if !shareOK {
				bestShare, shareOK = bestL.capB/float64(bestL.traverse), true
			}
			if share := l.capB / float64(l.traverse); share < bestShare {
				best, bestL, bestShare = k, l, share
			}
		}
	}
	// Field by field: a composite literal is built on the stack and
	// copied, with a write-barrier check for the pointer.
	f := &nw.flows[id]
	f.att, f.bytes, f.links = att, bytes, links
	f.serve, f.nlinks, f.cross = int8(best), int8(nl), cross
	l := bestL
	l.members++
	insert(l, hent{tag: l.v + float64(bytes) + nw.latency*l.capB, id: id})
	return id
}

// finish removes flow id (completed or cancelled) from its links; the
// caller reschedules the links (see flowLinks).
func (nw *network) finish(now int64, id int32) {
	f := &nw.flows[id]
	fl, nl, serve := f.links, f.nlinks, f.serve
	for _, li := range fl[:nl] {
		l := &nw.links[li]
		nw.advance(l, now) // at the old share
		l.traverse--
	}
	l := &nw.links[fl[serve]]
	remove(l, id)
	l.members--
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
	if l.headTag <= l.v+1e-6*max(1, l.v) { // the builtin: math.Max is a call on amd64, the same value here
		return l.tags[l.head].id
	}
	return -1
}

// hent is a flow in its serving link's list, kept sorted by (tag, flow
// id): a total order over the link's flows. The earliest is at the head and
// leaves by moving the head; a new flow's tag is mostly among the latest
// (the link's virtual time only grows), so inserting moves few entries.
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

// insert files a flow in the link's sorted list.
func insert(l *link, e hent) {
	t := l.tags
	n := len(t)
	if l.head >= 16 && l.head >= n-l.head {
		// Mostly consumed: slide the live part down, so the list's
		// storage follows the flows the link serves, not all it served.
		n = copy(t, t[l.head:])
		t = t[:n]
		l.tags, l.head = t, 0
	}
	if n == l.head || t[n-1].less(e) {
		if n == l.head {
			l.headTag = e.tag
		}
		l.tags = append(t, e)
		return
	}
	// Insertion from the end: a new flow lands on average a few entries
	// before it.
	t = append(t, e)
	i := n
	for i > l.head && e.less(t[i-1]) {
		t[i] = t[i-1]
		i--
	}
	t[i] = e
	l.tags = t
	if i == l.head {
		l.headTag = e.tag
	}
}

// remove takes flow id off the link's list: the head when the flow
// completes, anywhere when it is cancelled.
func remove(l *link, id int32) {
	t := l.tags
	if t[l.head].id == id {
		l.head++
	} else {
		i := l.head + 1
		for t[i].id != id {
			i++
		}
		copy(t[i:], t[i+1:])
		t = t[:len(t)-1]
		l.tags = t
	}
	if l.head == len(t) {
		l.tags, l.head = t[:0], 0
	} else {
		l.headTag = t[l.head].tag
	}
}
