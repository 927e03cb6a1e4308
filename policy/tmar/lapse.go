// When the holds and bindings Bind renews lapse in the engine, so that a
// tick returns only the hints the engine would emit (policy.Lapses).

package tmar

import "github.com/rmsidecar/rmsidecar/policy"

// The kinds Bind's lapses follow, by index in policy.NewLapses. A hint's
// lapse is remembered while no hint of its kind is emitted under another
// policy name: only an emission with the hint's target moves its lapse,
// and the others under TMaR's own name are the hints Bind returned (whose
// lapse it sets) and the place hints of Place, whose reservation reserve
// replaces (with a zero lapse).
const (
	lapsePlace = iota
	lapseBinding
)

func newLapses() policy.Lapses { return policy.NewLapses(policy.KindPlace, policy.KindReduceBinding) }

// UseInForce implements policy.InForceUser: Bind leaves out the holds and
// bindings in force in the engine. Nil: every one is returned, the engine
// dropping the repeats.
func (p *Plugin) UseInForce(f policy.InForce) { p.lapses.Use(f) }

// inForceNow tells whether the hint of target and content, whose lapse is
// remembered in at, is in force in the engine now, asking the engine when
// the lapse is not known.
func (p *Plugin) inForceNow(at *policy.Lapse, target, content string) bool {
	if !p.lapses.Known(*at) {
		p.lapses.Ask(at, target, content)
	}
	return p.lapses.Live(*at)
}
