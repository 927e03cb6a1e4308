// What Shape knows of its ratio hints in force in the engine
// (policy.InForce), so that it returns only the hints the engine would
// emit: most Shape calls change no queue's or node's caps, and the engine
// dropped their repeats (about 1.4 M on the FB-2009 day) after building
// each one's target and content, and Shape had built their reasons.

package dhsa

import (
	"github.com/rmsidecar/rmsidecar/cluster"
	"github.com/rmsidecar/rmsidecar/policy"
)

// lapses is the engine's round as Shape reads it. A hint's lapse is
// remembered (sent) while no ratio hint is emitted under another policy
// name: then the engine's hint in force for a target of DHSA's is the one
// Shape returned last (every hint Shape returns is emitted, as it returns
// only those not in force), or the one the engine reported (Until).
type lapses struct {
	f policy.InForce // nil: not wired, every hint is returned
	// gen numbers the spans in which no other policy emitted a ratio hint;
	// a sent of another span is not known.
	gen    uint64
	others uint64 // ratio hints emitted under other names, at the last Shape
	now    int64  // the round's time (ms)
	ttl    int64  // a ratio hint's TTL (ms)
	buf    []byte // target and content, for Until
}

// sent is a ratio hint the engine has for a target of DHSA's: its caps and
// when it lapses, in span gen (0: not known).
type sent struct {
	caps Slots
	at   int64
	gen  uint64
}

// nodeSent is sent for the node at one position of View.Nodes.
type nodeSent struct {
	n *cluster.Node
	sent
}

// UseInForce implements policy.InForceUser. A new view forgets every lapse.
func (p *Plugin) UseInForce(f policy.InForce) {
	p.lapses.f, p.lapses.ttl = f, 0
	p.lapses.gen++
}

// beginRound reads the engine's round at the start of Shape: its time and
// the ratio TTL, and whether another policy emitted a ratio hint since the
// last Shape (then every remembered lapse is forgotten).
func (l *lapses) beginRound(name string) {
	if l.f == nil {
		return
	}
	l.now = l.f.Now()
	if n := l.f.Others(policy.KindRatio, name); n != l.others || l.gen == 0 || l.ttl == 0 {
		// The TTL is the engine's for its life: read again with a new span.
		l.others, l.ttl = n, l.f.TTL(policy.KindRatio)
		l.gen++
	}
}

// inForce tells whether h (a ratio hint for a queue or node, remembered in
// s) is in force in the engine now, so that returning it would be dropped
// as a repeat; when it is not, Shape returns it and s records that it is
// in force from now for the TTL. Not wired, every hint is returned.
func (l *lapses) inForce(s *sent, h *policy.Hint) bool {
	if l.f == nil {
		return false
	}
	c := Slots{Map: h.MaxMaps, Reduce: h.MaxReduces}
	if s.gen != l.gen {
		// Not known: ask the engine (once per target and span).
		var nt int
		l.buf, nt = policy.AppendTargetContent(l.buf[:0], h, 0)
		at := l.f.Until(string(l.buf[:nt]), string(l.buf[nt+1:]))
		*s = sent{caps: c, at: at, gen: l.gen}
	}
	if s.caps == c && s.at > l.now {
		return true
	}
	*s = sent{caps: c, at: l.now + l.ttl, gen: l.gen}
	return false
}
