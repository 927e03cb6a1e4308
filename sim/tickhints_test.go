package sim

import (
	"context"
	"fmt"
	"testing"

	"github.com/rmsidecar/rmsidecar/cluster"
	"github.com/rmsidecar/rmsidecar/events"
	"github.com/rmsidecar/rmsidecar/policy"
	"github.com/rmsidecar/rmsidecar/policy/plugins"
)

// A tick's hints are applied where the engine returned them (tickHints),
// not copied into s.hints first: the results, event log and tasks.csv are
// those of the copy, over scenarios, seeds and stacks whose ticks speculate,
// kill, shape, bind and hold (TMaR's hints stay in its own buffer) while
// the events they cause return more hints through Apply.
func TestTickHintsNotCopied(t *testing.T) {
	reg := plugins.NewRegistry()
	scs := map[string]string{"shuffle": shuffleYAML, "hetero": heteroYAML, "empty": fmt.Sprintf(emptyShareYAML, 0)}
	for name, yml := range scs {
		for _, stack := range []string{"yarn", "late", "dhsa-pi", "erul", "yarn+prescheduling", "late+sepb",
			"learning-nb", "tmar", "tmar-power", "yarn+tmar"} {
			for seed := uint64(1); seed <= 2; seed++ {
				t.Run(fmt.Sprintf("%s/%s/%d", name, stack, seed), func(t *testing.T) {
					sc := mustParse(t, yml)
					sc.Seed = seed
					_, want := runOutputs(t, sc, stack, Options{Registry: reg, copyTickHints: true})
					s, got := runOutputs(t, sc, stack, Options{Registry: reg})
					if s.m.byKind[evPolicyTick] == 0 {
						t.Fatal("no tick: nothing checked")
					}
					sameOutputs(t, got, want, "when a tick's hints are not copied")
				})
			}
		}
	}
}

// killBinder kills, at each tick, running attempts that have run for more
// than after ms (a few per tick), after a priority hint per job, from one
// slice it reuses; when scratch, it declares the hints scratch and writes
// poison over the last call's when called again.
type killBinder struct {
	name    string
	after   int64
	scratch bool
	out     []policy.Hint
	killed  map[string]bool // tasks killed once (a task killed at every tick never ends)
}

func (b *killBinder) Name() string          { return b.name }
func (b *killBinder) HintsAreScratch() bool { return b.scratch }
func (b *killBinder) Bind(_ context.Context, v cluster.View) ([]policy.Hint, *policy.Status) {
	for i := range b.out {
		b.out[i] = policy.Hint{Kind: policy.KindKill, App: "poison", Attempt: "poison", Reason: "read after reuse"}
	}
	b.out = b.out[:0]
	kills := 0
	for _, app := range v.Apps() {
		if app.Finished() {
			continue
		}
		b.out = append(b.out, policy.Hint{Kind: policy.KindPriority, App: app.ID, Priority: int(v.Now()/1000) % 3, Reason: "test"})
		for _, t := range app.Tasks {
			for _, a := range t.Running() {
				if kills < 3 && v.Now()-a.StartTS > b.after && !b.killed[t.ID] {
					b.out = append(b.out, policy.Hint{Kind: policy.KindKill, App: app.ID, Attempt: a.ID, Container: a.Container, Reason: "test"})
					b.killed[t.ID] = true
					kills++
				}
			}
		}
	}
	return b.out, nil
}

// firstNode places every pending task on the first registered node: the
// task a kill sends back to pending gets a place hint through Apply while
// the tick's hints are being applied.
type firstNode struct{}

func (firstNode) Name() string { return "firstnode" }
func (firstNode) Place(_ context.Context, v cluster.View, _ *cluster.Task) ([]policy.NodeScore, *policy.Status) {
	ns := v.Nodes()
	if len(ns) == 0 {
		return nil, nil
	}
	return []policy.NodeScore{{Node: ns[0].ID, Score: 1}}, nil
}

// eventShaper returns, after every event (not at ticks), priority hints
// for up to four running jobs: an Apply run while a tick's hints are
// applied writes several hints where the engine keeps an event's.
type eventShaper struct {
	n    int
	onEv bool
}

func (s *eventShaper) Name() string               { return "evshaper" }
func (s *eventShaper) ShapeOn(*events.Event) bool { s.onEv = true; return true }
func (s *eventShaper) Shape(_ context.Context, v cluster.View) ([]policy.Hint, *policy.Status) {
	if !s.onEv {
		return nil, nil
	}
	s.onEv = false
	s.n++
	var hs []policy.Hint
	for _, a := range v.Apps() {
		if !a.Finished() && len(hs) < 4 {
			hs = append(hs, policy.Hint{Kind: policy.KindPriority, App: a.ID, Priority: (s.n + len(hs)) % 3, Reason: "shape"})
		}
	}
	return hs, nil
}

// The same, with test plugins made to catch a hint read after its buffer
// was reused: a binder whose tick hints kill attempts (events whose Apply
// returns place hints, from firstNode, before the tick's later hints are
// applied) and that writes poison over its last hints when called again,
// declared scratch or not (then the engine copies them).
func TestTickHintsNotCopiedKills(t *testing.T) {
	nested := 0
	for _, scratch := range []bool{false, true} {
		for seed := uint64(1); seed <= 3; seed++ {
			t.Run(fmt.Sprintf("scratch=%v/%d", scratch, seed), func(t *testing.T) {
				sc := mustParse(t, heteroYAML)
				sc.Seed = seed
				run := func(copied bool) (*sim, [3][]byte) {
					reg := testRegistry(&killBinder{name: "killb", after: 4_000, scratch: scratch, killed: map[string]bool{}}, firstNode{},
						&eventShaper{})
					return runOutputs(t, sc, "killb+firstnode+evshaper", Options{Registry: reg, copyTickHints: copied, onTick: func(s *sim) {
						if s.inHints {
							t.Fatal("a tick inside a drain")
						}
					}})
				}
				_, want := run(true)
				s, got := run(false)
				if s.m.hints[policy.KindKill] == 0 || s.m.hints[policy.KindPlace] == 0 {
					t.Fatalf("hints applied %v: no kill or no place, nothing checked", s.m.hints)
				}
				nested += s.m.hints[policy.KindPlace]
				sameOutputs(t, got, want, "when a tick's hints are not copied")
			})
		}
	}
	if nested == 0 {
		t.Fatal("no place hint")
	}
}
