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
