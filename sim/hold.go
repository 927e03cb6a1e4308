package sim

import (
	"slices"

	"github.com/rmsidecar/rmsidecar/events"
)

// place prefers pref for t and, with until > 0, holds t to them until
// then (sim ms). A map's hold that may let it run where a list's last walk
// found it could not changes its job's holdGen (see plist.firstFor).
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

// listPlaced puts map t, just placed, in the lists of the nodes of its pref
// it was not listed on since it last became pending (t.listed). The list
// of such a node has it still (a pending map's entry is not dropped), at
// an earlier place: another entry would matter only after the map ran and
// came back pending, when it would stand at this hint's place rather than
// at its re-pend's, the end of the list (as in its other lists). TMaR
// re-plans every tick and moves waiting maps back and forth between a few
// machines: on the FB-2010 day three entries in four at the peak were such
// repeats (16.6 M of 21.8 M at simulated 6h20m).
func (t *task) listPlaced() {
	for _, r := range t.pref {
		if !slices.Contains(t.listed, r) {
			t.job.nodeList(r).push(t.idx)
			t.listed = append(t.listed, r)
		}
	}
}

// relist is map t's re-pend in the lists of its pref's nodes: an entry at
// the end of each, and those nodes its only listings since.
func (t *task) relist() {
	for _, r := range t.pref {
		t.job.nodeList(r).push(t.idx)
	}
	t.listed = append(t.listed[:0], t.pref...)
}
