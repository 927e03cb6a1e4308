// When the holds and bindings Bind renews lapse in the engine, so that a
// tick returns only the hints the engine would emit (policy.InForce).

package tmar

import "github.com/rmsidecar/rmsidecar/policy"

// lapses is what Bind knows of the engine's hints in force. A hint's lapse
// is remembered (lapse) while no hint of its kind is emitted under another
// policy name: only an emission with the hint's target moves its lapse,
// and the others under TMaR's own name are the hints Bind returned (whose
// lapse it sets) and the place hints of Place, whose reservation reserve
// replaces (with a zero lapse).
type lapses struct {
	// gen numbers the spans in which no other policy emitted a place or
	// reduce-binding hint; a lapse of another span is not known.
	gen uint64
	// others is the count of such hints at the last Bind.
	others [2]uint64
	// now and ttl: the round's time and the TTLs of place and
	// reduce-binding hints (ms).
	now int64
	ttl [2]int64
}

// Kinds lapses follows, by index in its arrays.
const (
	lapsePlace = iota
	lapseBinding
)

var lapseKinds = [...]policy.HintKind{lapsePlace: policy.KindPlace, lapseBinding: policy.KindReduceBinding}

// lapse is when one hint of Bind's lapses in the engine, for the target
// and content it is kept with, in the span gen (0: not known).
type lapse struct {
	at  int64
	gen uint64
}

// beginRound reads the engine's round at the start of Bind: its time and
// TTLs, and whether another policy emitted a hint of a kind Bind returns
// since the last Bind (then every remembered lapse is forgotten).
func (p *Plugin) beginRound() {
	f, l := p.inForce, &p.lapses
	if f == nil {
		return
	}
	l.now = f.Now()
	changed := l.gen == 0
	for i, k := range lapseKinds {
		l.ttl[i] = f.TTL(k)
		if n := f.Others(k, p.name); n != l.others[i] {
			l.others[i], changed = n, true
		}
	}
	if changed {
		l.gen++
	}
}

// inForceNow tells whether the hint of target and content, whose lapse is
// remembered in at, is in force in the engine now, asking the engine when
// the lapse is not known.
func (p *Plugin) inForceNow(at *lapse, target, content string) bool {
	l := &p.lapses
	if at.gen != l.gen {
		*at = lapse{at: p.inForce.Until(target, content), gen: l.gen}
	}
	return at.at > l.now
}

// returned records that Bind returns the hint whose lapse is at, of kind
// index kind, not in force: the engine emits it, in force for its TTL.
func (p *Plugin) returned(at *lapse, kind int) {
	l := &p.lapses
	if p.inForce == nil {
		return
	}
	*at = lapse{at: l.now + l.ttl[kind], gen: l.gen}
}
