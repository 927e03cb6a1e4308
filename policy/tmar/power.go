// TMaR*, the power-aware variant: Algorithm 2's tie-break, among equal
// finishes the core that adds the least cluster power (eq. 2).

package tmar

import (
	"math"
)

// busyAt counts cores busy at time t.
func (m *Machine) busyAt(t float64) int {
	n := 0
	for _, f := range m.CoreFree {
		if f > t {
			n++
		}
	}
	return n
}

// pas is eq. 2: power after the assignment at utilisation u.
func (m *Machine) pas(u float64) float64 {
	return m.PowerIdleW + (m.PowerMaxW-m.PowerIdleW)*u
}

// addedEnergy is what running a task of exec seconds starting at start adds
// to the cluster's consumption: the rise of eq. 2 from the node's current
// utilisation to one more busy core, over the task's duration. This is the
// CPC comparison of Algorithm 2 (lines 4–5) made concrete.
func (m *Machine) addedEnergy(start, exec float64) float64 {
	cores := float64(len(m.CoreFree))
	if cores == 0 {
		return math.Inf(1)
	}
	busy := float64(m.busyAt(start))
	before := m.pas(busy / cores)
	after := m.pas(fmin(1, (busy+1)/cores))
	return (after - before) * exec
}

// PowerTie is Algorithm 2's tie-break. With Power off the plan is
// Algorithm 1: the earliest finish wins, the first machine among equals.
// With Power on, of the candidates that finish within Within seconds of the
// earliest the one that adds the least cluster power wins (eq. 2). Within
// is ours: the paper ties only equal times, which real per-node times seldom
// are; the ResourceManager starts nothing more precisely than a heartbeat,
// so finishes one heartbeat apart are the same to it. The chosen finish is
// never later than the earliest plus Within.
//
// WithinMakespan (ours, the "same makespan" of Table 5 taken literally):
// a candidate also ties when it finishes no later than the plan's current
// makespan (the latest busy core), so the tail of a schedule may go to
// slower, lower-power cores without making the plan longer.
type PowerTie struct {
	Power          bool
	Within         float64
	WithinMakespan bool
}

// choose returns the index in cs of the winner, -1 if cs is empty.
func (pt PowerTie) choose(ms []Machine, cs []cand, span float64) int {
	best := -1
	for k, c := range cs {
		if best < 0 || c.finish < cs[best].finish-tieEpsilon {
			best = k
		}
	}
	if best < 0 || !pt.Power {
		return best
	}
	limit := cs[best].finish + fmax(0, pt.Within) + tieEpsilon
	if pt.WithinMakespan {
		limit = fmax(limit, span+tieEpsilon)
	}
	bestE := ms[cs[best].machine].addedEnergy(cs[best].start, cs[best].exec)
	for k, c := range cs {
		if c.finish > limit || k == best {
			continue
		}
		e := ms[c.machine].addedEnergy(c.start, c.exec)
		if e < bestE-1e-9 || (e <= bestE+1e-9 && c.finish < cs[best].finish-tieEpsilon) {
			best, bestE = k, e
		}
	}
	return best
}

// tie is the map stage's tie-break: Algorithm 2 for tmar-power.
func (p *Plugin) tie() PowerTie {
	return PowerTie{Power: p.powerAware, Within: p.cfg.TieS, WithinMakespan: p.cfg.TieMakespan}
}
