// Which reservations holds visits: a hold found in force in the engine,
// or returned (then in force for its TTL), is "quiet" until its lapse
// comes due or something it was made from changes; holds visits the
// others ("loud") and those whose lapse is due, not every reservation.

package tmar

import (
	"slices"
	"strings"

	"github.com/rmsidecar/rmsidecar/policy"
)

// holdQuiet is holds' record of its quiet reservations. A reservation r is
// quiet when holds last found its hold in force with the content r makes
// now (holdInForce) or returned it (holdReturned), r's node is in the node
// index and its locality kept (holdLocality), and since then neither r's
// node, equal nodes or task (reserve, replan) nor the task's splits
// (Place, which reserves again) changed, nor the engine's spans (the
// lapses' generation: sentinel) or the node index (idxGen): a visit then
// would find it in force until its lapse (r.quietAt) and change nothing,
// as an overdue or started reservation's visit changes nothing. Every
// reservation that is not quiet is in loud (once: r.inLoud).
//
// On the FB-2009 day under tmar, holds visited 2.0 M reservations and
// found 1.45 M of them in force (321,372 returned).
type holdQuiet struct {
	// ok: the flags are kept (the last full walk was wired), valid for
	// sentinel's generation and the node index of generation idxGen.
	ok       bool
	sentinel policy.Lapse
	idxGen   uint64
	loud     []*reservation
	due      dueHeap
	cands    []holdCand     // the visit's list, reused
	visit    []*reservation // and its reservations
	// full makes every call walk every reservation (tests); partials
	// counts the calls that did not.
	full     bool
	partials uint64
}

// holdCand is a reservation holds visits, with its task's id to sort by:
// read once, not through the reservation and task at every comparison.
type holdCand struct {
	id string
	r  *reservation
}

// dueEntry is a quiet reservation and the lapse it was quieted with;
// stale when r is no longer quiet with that lapse.
type dueEntry struct {
	at int64
	r  *reservation
}

// dueHeap is a binary min-heap of dueEntry by at.
type dueHeap []dueEntry

func (h *dueHeap) push(e dueEntry) {
	*h = append(*h, e)
	s := *h
	for i := len(s) - 1; i > 0; {
		up := (i - 1) / 2
		if s[up].at <= s[i].at {
			break
		}
		s[up], s[i] = s[i], s[up]
		i = up
	}
}

func (h *dueHeap) pop() dueEntry {
	s := *h
	top := s[0]
	last := len(s) - 1
	s[0] = s[last]
	s[last] = dueEntry{}
	s = s[:last]
	for i := 0; ; {
		l, m := 2*i+1, i
		if l < len(s) && s[l].at < s[m].at {
			m = l
		}
		if r := l + 1; r < len(s) && s[r].at < s[m].at {
			m = r
		}
		if m == i {
			break
		}
		s[m], s[i] = s[i], s[m]
		i = m
	}
	*h = s
	return top
}

// makeLoud makes r loud: holds visits it at its next call. Without flags
// (not ok) holds visits every reservation and nothing is listed.
func (q *holdQuiet) makeLoud(r *reservation) {
	r.quiet = false
	if q.ok && !r.inLoud {
		r.inLoud = true
		q.loud = append(q.loud, r)
	}
}

// quieten makes r quiet until its hold lapses at at.
func (q *holdQuiet) quieten(r *reservation, at int64) {
	r.quiet, r.quietAt = true, at
	q.due.push(dueEntry{at: at, r: r})
}

// partial tells whether holds may visit only the loud and due
// reservations: the flags were made under the lapses' generation and node
// index of now, and the order by task id has not gathered many
// reservations since it was last read (a full walk reads it, dropping the
// dead ones it keeps).
func (p *Plugin) partialHolds() bool {
	q := &p.holdQ
	return q.ok && !q.full && p.lapses.Wired() && p.lapses.Known(q.sentinel) && q.idxGen == p.idxGen &&
		len(p.byID.added) <= max(1024, len(p.byID.list))
}

// dueHolds is the reservations holds visits in a partial call, in task id
// order: the loud ones and the quiet ones whose lapse is due, dead ones
// dropped. Those returned are neither loud nor quiet until visited.
func (p *Plugin) dueHolds() []*reservation {
	q := &p.holdQ
	cs := q.cands[:0]
	for _, r := range q.loud {
		r.inLoud = false
		if !r.dead {
			cs = append(cs, holdCand{r.task.ID, r})
		}
	}
	clear(q.loud)
	q.loud = q.loud[:0]
	for len(q.due) > 0 && !p.lapses.Live(policy.Lapse{At: q.due[0].at}) {
		e := q.due.pop()
		if r := e.r; r.quiet && !r.dead && r.quietAt == e.at {
			r.quiet = false
			cs = append(cs, holdCand{r.task.ID, r})
		}
	}
	// Mostly in order already (the re-plan's order, the last call's).
	byID := func(a, b holdCand) int { return strings.Compare(a.id, b.id) }
	if !slices.IsSortedFunc(cs, byID) {
		slices.SortFunc(cs, byID)
	}
	rs := q.visit[:0]
	for _, c := range cs {
		rs = append(rs, c.r)
	}
	clear(cs)
	q.cands, q.visit = cs[:0], rs
	return rs
}

// resetHolds forgets every flag before a full walk, which makes them
// again when the engine reports the holds in force (wired).
func (p *Plugin) resetHolds() {
	q := &p.holdQ
	for _, r := range q.loud {
		r.inLoud = false
	}
	clear(q.loud)
	q.loud = q.loud[:0]
	clear(q.due)
	q.due = q.due[:0]
	q.ok = p.lapses.Wired()
}

// endHolds records, after a walk, what the flags were made under.
func (p *Plugin) endHolds() {
	q := &p.holdQ
	clear(q.visit)
	q.visit = q.visit[:0]
	if q.ok {
		p.lapses.Returned(&q.sentinel, lapsePlace) // its generation
		q.idxGen = p.idxGen
	}
}

// quietHold makes r, whose hold holds found in force or returned, quiet
// until the hold lapses, when its locality is kept (its node is in the
// index); else loud. Not wired, every hold is returned at every call.
func (p *Plugin) quietHold(r *reservation) {
	if p.lapses.Wired() && r.locOK {
		p.holdQ.quieten(r, r.hold.lapse.At)
		return
	}
	p.holdQ.makeLoud(r)
}
