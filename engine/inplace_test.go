package engine

import (
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/rs/zerolog"

	"github.com/rmsidecar/rmsidecar/cluster"
	"github.com/rmsidecar/rmsidecar/events"
	"github.com/rmsidecar/rmsidecar/policy"
)

// scratchSpec returns, from one slice it rebuilds at every call, random
// speculate hints from a pool (repeats of earlier calls, changed contents,
// repeats and changes within a call, invalid hints), sometimes more than a
// block of them; scratch says whether it declares them scratchHints.
type scratchSpec struct {
	rng     *rand.Rand
	out     []policy.Hint
	scratch bool
}

func (s *scratchSpec) Name() string          { return "spec" }
func (s *scratchSpec) HintsAreScratch() bool { return s.scratch }
func (s *scratchSpec) Speculate(context.Context, cluster.View) ([]policy.Hint, *policy.Status) {
	s.out = s.out[:0]
	n := s.rng.IntN(12)
	if s.rng.IntN(4) == 0 {
		n = 60 + s.rng.IntN(150)
	}
	for range n {
		k := s.rng.IntN(300)
		h := policy.Hint{Kind: policy.KindSpeculate, App: fmt.Sprint("a", k%40), Task: fmt.Sprint("t", k),
			Attempt: fmt.Sprint("t", k, "_0"), Node: fmt.Sprint("n", s.rng.IntN(3)), Reason: fmt.Sprint("r", s.rng.IntN(9))}
		if s.rng.IntN(25) == 0 {
			h.App = "" // invalid
		}
		s.out = append(s.out, h)
	}
	return s.out, nil
}

// TestEmitInPlaceSameAsCopied runs two engines over the same random ticks:
// one whose speculator declares its hints scratch (stamped in place and
// returned from its slice), one whose speculator does not (copied into the
// engine's); half the runs add a binder whose hints come after the round
// (the round then moves to the engine's slice). Every tick must return the
// same hints, ids included, and the engines keep the same counts.
func TestEmitInPlaceSameAsCopied(t *testing.T) {
	ctx := context.Background()
	inPlace := 0
	for seed := range uint64(20) {
		var engines [2]*Engine
		for k := range engines {
			plugins := []policy.Plugin{&scratchSpec{rng: rand.New(rand.NewPCG(seed, 1)), scratch: k == 0}}
			if seed%2 == 1 {
				plugins = append(plugins, &randomBinder{name: "b", rng: rand.New(rand.NewPCG(seed, 2))})
			}
			engines[k] = New(policy.NewStack(plugins...), Options{Log: zerolog.Nop()})
		}
		now := int64(1_000)
		for step := range 200 {
			now += 1_000 * int64(1+step%40) // some hints lapse between ticks
			got, want := engines[0].Tick(ctx, now), engines[1].Tick(ctx, now)
			if (len(got) > 0 || len(want) > 0) && !reflect.DeepEqual(got, want) { // nil and empty alike
				t.Fatalf("seed %d step %d: in place %d hints %+v, copied %d %+v", seed, step, len(got), got, len(want), want)
			}
			if len(engines[0].round) > 0 {
				inPlace++
			}
		}
		if a, b := engines[0].Stats(), engines[1].Stats(); !reflect.DeepEqual(a, b) {
			t.Fatalf("seed %d: stats %+v in place, %+v copied", seed, a, b)
		}
	}
	if inPlace < 1000 {
		t.Fatalf("only %d ticks returned their hints in place", inPlace)
	}
}

// poison is what a scratch plugin writes over its last call's hints when
// called again: a hint the engine or its caller read after that shows up.
var poison = policy.Hint{Kind: policy.KindKill, App: "poison", Attempt: "poison", Reason: "read after reuse"}

// scratchBinder returns random place and reduce-binding hints (repeats,
// changed contents, invalid ones, sometimes hundreds) from one slice it
// reuses at every call, after writing poison over the last call's.
type scratchBinder struct {
	name    string
	rng     *rand.Rand
	out     []policy.Hint
	scratch bool
}

func (b *scratchBinder) Name() string          { return b.name }
func (b *scratchBinder) HintsAreScratch() bool { return b.scratch }
func (b *scratchBinder) Bind(context.Context, cluster.View) ([]policy.Hint, *policy.Status) {
	for i := range b.out {
		b.out[i] = poison
	}
	b.out = b.out[:0]
	if b.rng.IntN(10) == 0 {
		return nil, policy.NewStatus(policy.Error, "failed")
	}
	n := b.rng.IntN(8)
	if b.rng.IntN(4) == 0 {
		n = 60 + b.rng.IntN(200)
	}
	seen := map[string]bool{}
	for range n {
		k := b.rng.IntN(400)
		h := policy.Hint{Kind: policy.KindPlace, App: fmt.Sprint("a", k%30), Task: fmt.Sprint(b.name, "t", k), Strict: true,
			Nodes: []policy.NodeScore{{Node: fmt.Sprint("n", b.rng.IntN(3)), Score: 1}}, Reason: fmt.Sprint("r", b.rng.IntN(3))}
		if b.rng.IntN(4) == 0 {
			h = policy.Hint{Kind: policy.KindReduceBinding, App: fmt.Sprint("a", k%30), Partition: k % 7,
				Node: fmt.Sprint("n", b.rng.IntN(3)), Reducers: 1}
		}
		if b.rng.IntN(30) == 0 {
			h.App = "" // invalid
		}
		key := string(policy.AppendTarget(nil, &h))
		if seen[key] {
			continue // one hint per target in a call, as the plugins return them
		}
		seen[key] = true
		b.out = append(b.out, h)
	}
	return b.out, nil
}

// eventShaper emits a few random priority hints after every event (through
// Apply, a DemandShaper) and, when inTick, at ticks too (before the
// binders, so their hints can no longer be kept in place).
type eventShaper struct {
	rng    *rand.Rand
	inTick bool
	onEv   bool
}

func (s *eventShaper) Name() string               { return "shaper" }
func (s *eventShaper) ShapeOn(*events.Event) bool { s.onEv = true; return true }
func (s *eventShaper) Shape(context.Context, cluster.View) ([]policy.Hint, *policy.Status) {
	ev := s.onEv
	s.onEv = false
	if !ev && (!s.inTick || s.rng.IntN(2) == 0) {
		return nil, nil
	}
	var hs []policy.Hint
	for range s.rng.IntN(5) {
		hs = append(hs, policy.Hint{Kind: policy.KindPriority, App: fmt.Sprint("a", s.rng.IntN(30)), Priority: s.rng.IntN(3),
			Reason: "shape"})
	}
	return hs, nil
}

// passGate keeps every other speculation it is given, in a new slice.
type passGate struct{}

func (passGate) Name() string { return "gate" }
func (passGate) Gate(_ context.Context, _ cluster.View, in []policy.Hint) ([]policy.Hint, *policy.Status) {
	var out []policy.Hint
	for i := 0; i < len(in); i += 2 {
		out = append(out, in[i])
	}
	return out, nil
}

// TestScratchBindersSameAsCopied runs two engines, as the simulator does
// (ManualTick), over random stacks of a speculator, one or two binders, a
// shaper emitting after every event (and at some ticks) and a gate: in one
// every speculator and binder declares its hints scratch and writes poison
// over them when called again, in the other none does (the engine copies
// them). Every Tick and Apply must return the same hints, and a Tick's
// hints must stay as they were while Apply runs until the next Tick (the
// simulator applies them, and the events they cause, without a copy).
func TestScratchBindersSameAsCopied(t *testing.T) {
	ctx := context.Background()
	inPlace := 0
	for seed := range uint64(40) {
		cfg := rand.New(rand.NewPCG(seed, 7))
		spec, gate, shaper, inTick, binders := cfg.IntN(2) == 0, cfg.IntN(4) == 0, cfg.IntN(2) == 0, cfg.IntN(3) == 0, 1+cfg.IntN(2)
		var engines [2]*Engine
		var firstBinder *scratchBinder
		for k := range engines {
			var plugins []policy.Plugin
			if spec {
				plugins = append(plugins, &scratchSpec{rng: rand.New(rand.NewPCG(seed, 1)), scratch: k == 0})
			}
			if gate {
				plugins = append(plugins, passGate{})
			}
			if shaper {
				plugins = append(plugins, &eventShaper{rng: rand.New(rand.NewPCG(seed, 3)), inTick: inTick})
			}
			for i := range binders {
				b := &scratchBinder{name: fmt.Sprint("b", i), rng: rand.New(rand.NewPCG(seed, 4+uint64(i))), scratch: k == 0}
				if k == 0 && i == 0 {
					firstBinder = b
				}
				plugins = append(plugins, b)
			}
			engines[k] = New(policy.NewStack(plugins...), Options{Log: zerolog.Nop(), ManualTick: true})
		}
		now, app := int64(1_000), 0
		for step := range 150 {
			now += 1_000 * int64(1+step%40) // some hints lapse between ticks
			got, want := engines[0].Tick(ctx, now), engines[1].Tick(ctx, now)
			if (len(got) > 0 || len(want) > 0) && !reflect.DeepEqual(got, want) { // nil and empty alike
				t.Fatalf("seed %d step %d: tick in place %d hints %+v, copied %d %+v", seed, step, len(got), got, len(want), want)
			}
			if len(got) > 0 && len(firstBinder.out) > 0 && &got[0] == &firstBinder.out[0] {
				inPlace++
			}
			kept := slices.Clone(got)
			for range cfg.IntN(4) { // none at times: a tick right after a tick
				app++
				ev := events.Event{V: events.Version, ID: fmt.Sprint("e", app), Type: events.AppSubmitted,
					TS: now + int64(app%900), App: fmt.Sprint("x", app), Maps: 1}
				evB := ev
				a, b := engines[0].Apply(ctx, &ev), engines[1].Apply(ctx, &evB)
				if (len(a) > 0 || len(b) > 0) && !reflect.DeepEqual(a, b) {
					t.Fatalf("seed %d step %d: apply %+v, copied %+v", seed, step, a, b)
				}
			}
			if (len(got) > 0 || len(kept) > 0) && !reflect.DeepEqual(got, kept) {
				t.Fatalf("seed %d step %d: a tick's hints changed under Apply:\n got %+v\nwant %+v", seed, step, got, kept)
			}
		}
		if a, b := engines[0].Stats(), engines[1].Stats(); !reflect.DeepEqual(a, b) {
			t.Fatalf("seed %d: stats %+v in place, %+v copied", seed, a, b)
		}
	}
	t.Logf("in place %d", inPlace)
	if inPlace < 500 {
		t.Fatalf("only %d ticks returned a binder's hints in place", inPlace)
	}
}
