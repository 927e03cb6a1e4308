package clustertest

import (
	"reflect"
	"testing"

	"github.com/rmsidecar/rmsidecar/engine"
	"github.com/rmsidecar/rmsidecar/policy"
)

// InForcePolicy is a policy that may leave out the hints the engine has in
// force (policy.InForceUser).
type InForcePolicy interface {
	policy.Plugin
	UseInForce(policy.InForce)
}

// InForceEngine is an engine over p and, when not nil, other (before p
// when otherFirst): the setting of an InForce comparison, where one engine
// has p leave out the hints in force (wired) and one has it return every
// one, and both must emit the same hints.
func InForceEngine(p InForcePolicy, other policy.Plugin, otherFirst, wired bool, opts engine.Options) *engine.Engine {
	plugins := []policy.Plugin{p}
	if other != nil {
		if otherFirst {
			plugins = []policy.Plugin{other, p}
		} else {
			plugins = append(plugins, other)
		}
	}
	e := engine.New(policy.NewStack(plugins...), opts)
	if !wired {
		p.UseInForce(nil)
	}
	return e
}

// Repeats tallies, over InForce comparisons, the repeats the engine dropped
// without InForce and how many fewer it dropped with it.
type Repeats struct{ fewer, total uint64 }

// Add checks that the wired and unwired engines of one comparison emitted
// the same hints by policy and kind, and counts their repeats.
func (r *Repeats) Add(t testing.TB, instance int, wired, unwired *engine.Engine) {
	t.Helper()
	s0, s1 := wired.Stats(), unwired.Stats()
	if !reflect.DeepEqual(s0.Hints, s1.Hints) {
		t.Fatalf("instance %d: emitted %v with InForce, %v without", instance, s0.Hints, s1.Hints)
	}
	r.fewer += s1.Suppressed - s0.Suppressed
	r.total += s1.Suppressed
}

// Check fails unless InForce left something out: otherwise the
// comparisons showed nothing.
func (r *Repeats) Check(t testing.TB) {
	t.Helper()
	if r.fewer == 0 || r.total == 0 {
		t.Fatalf("repeats dropped by the engine: %d without InForce, %d fewer with it: nothing left out", r.total, r.fewer)
	}
	t.Logf("repeats dropped by the engine: %d without InForce, %d fewer with it", r.total, r.fewer)
}
