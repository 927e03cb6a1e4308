// What Shape knows of its ratio hints in force in the engine
// (policy.Lapses), so that it returns only the hints the engine would
// emit: most Shape calls change no queue's or node's caps, and the engine
// dropped their repeats (about 1.4 M on the FB-2009 day) after building
// each one's target and content, and Shape had built their reasons.

package dhsa

import (
	"github.com/rmsidecar/rmsidecar/cluster"
	"github.com/rmsidecar/rmsidecar/policy"
)

// sent is a ratio hint the engine has for a target of DHSA's: its caps and
// when it lapses. Within a span of policy.Lapses the engine's hint in force
// for the target is the one Shape returned last (every hint Shape returns
// is emitted, as it returns only those not in force), or the one the
// engine reported (Until).
type sent struct {
	caps  Slots
	lapse policy.Lapse
}

// nodeSent is sent for the node at one position of View.Nodes.
type nodeSent struct {
	n *cluster.Node
	sent
}

// UseInForce implements policy.InForceUser. A new view forgets every lapse.
func (p *Plugin) UseInForce(f policy.InForce) { p.lapses.Use(f) }

// inForce tells whether h (a ratio hint for a queue or node, remembered in
// s) is in force in the engine now, so that returning it would be dropped
// as a repeat; when it is not, Shape returns it and s records that it is
// in force from now for the TTL. Not wired, every hint is returned.
func (p *Plugin) inForce(s *sent, h *policy.Hint) bool {
	l := &p.lapses
	if !l.Wired() {
		return false
	}
	c := Slots{Map: h.MaxMaps, Reduce: h.MaxReduces}
	if !l.Known(s.lapse) {
		// Not known: ask the engine (once per target and span).
		var nt int
		p.keyBuf, nt = policy.AppendTargetContent(p.keyBuf[:0], h, 0)
		l.Ask(&s.lapse, string(p.keyBuf[:nt]), string(p.keyBuf[nt+1:]))
		s.caps = c
	}
	if s.caps == c && l.Live(s.lapse) {
		return true
	}
	s.caps = c
	l.Returned(&s.lapse, 0)
	return false
}
