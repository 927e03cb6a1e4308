package engine

import (
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/rs/zerolog"

	"github.com/rmsidecar/rmsidecar/cluster"
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
