package engine

import (
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strconv"
	"testing"

	"github.com/rmsidecar/rmsidecar/cluster"
	"github.com/rmsidecar/rmsidecar/events"
	"github.com/rmsidecar/rmsidecar/policy"
)

// mergeScoresRef is place's merge before mergeScores (a map from node to
// its first entry).
func mergeScoresRef(scores []policy.NodeScore) []policy.NodeScore {
	var combined []policy.NodeScore
	index := map[string]int{}
	for _, s := range scores {
		if i, ok := index[s.Node]; ok {
			combined[i].Score += s.Score
			continue
		}
		index[s.Node] = len(combined)
		combined = append(combined, s)
	}
	return combined
}

// TestMergeScoresSameAsMap holds mergeScores (scan and map forms) to the
// map merge, on random lists with and without repeated nodes, sorted after.
func TestMergeScoresSameAsMap(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 20))
	for round := range 20000 {
		n := 1 + r.IntN(3*mergeScan)
		nodes := 1 + r.IntN(2*n)
		in := make([]policy.NodeScore, n)
		for i := range in {
			in[i] = policy.NodeScore{Node: "n" + strconv.Itoa(r.IntN(nodes)), Score: float64(r.IntN(5)) + r.Float64()*float64(r.IntN(2)),
				Locality: []events.Locality{"", events.NodeLocal, events.RackLocal}[r.IntN(3)]}
		}
		orig := append([]policy.NodeScore(nil), in...)
		got, want := mergeScores(in), mergeScoresRef(in)
		if !reflect.DeepEqual(in, orig) {
			t.Fatalf("round %d: input changed", round)
		}
		sortScores(got)
		sortScores(want)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("round %d: %v, want %v (input %v)", round, got, want, in)
		}
	}
}

// randPlacer ranks random nodes (repeats, more than mergeScan at times),
// skips or fails now and then: the same answer for a task each time.
type randPlacer struct {
	seed   uint64
	strict bool
}

func (r randPlacer) Name() string          { return "rand" }
func (r randPlacer) StrictPlacement() bool { return r.strict }
func (r randPlacer) Place(_ context.Context, _ cluster.View, t *cluster.Task) ([]policy.NodeScore, *policy.Status) {
	var h uint64
	for i := range len(t.ID) {
		h = h*31 + uint64(t.ID[i])
	}
	rng := rand.New(rand.NewPCG(r.seed, h))
	switch rng.IntN(10) {
	case 0:
		return nil, policy.NewStatus(policy.Skip, "nothing")
	case 1:
		return []policy.NodeScore{{Node: "n1", Score: 1}}, policy.NewStatus(policy.Error, "failed")
	}
	n := rng.IntN(2 * mergeScan)
	out := make([]policy.NodeScore, n)
	for i := range out {
		out[i] = policy.NodeScore{Node: "n" + strconv.Itoa(rng.IntN(1+n)), Score: rng.Float64(),
			Locality: []events.Locality{"", events.NodeLocal}[rng.IntN(2)]}
	}
	return out, nil
}

// skipPlacer has nothing to say: a stack of it and one other placer takes
// place's path for several placers with the other's scores alone.
type skipPlacer struct{}

func (skipPlacer) Name() string { return "skip" }
func (skipPlacer) Place(context.Context, cluster.View, *cluster.Task) ([]policy.NodeScore, *policy.Status) {
	return nil, policy.NewStatus(policy.Skip, "never")
}

// TestPlaceOneSameAsCombined: an engine with one placer emits
// the hints, ids and counts of one whose stack adds a placer that always
// skips (no copy of the scores and the reason built once for one placer
// that ranks, a copy for several), over 400
// pending tasks of random rankings, skips and errors, strict or not.
func TestPlaceOneSameAsCombined(t *testing.T) {
	for _, strict := range []bool{false, true} {
		rp := randPlacer{seed: 7, strict: strict}
		one := New(policy.NewStack(rp), Options{})
		two := New(policy.NewStack(rp, skipPlacer{}), Options{})
		evs := []events.Event{{ID: "1", Type: events.AppSubmitted, TS: 1000, App: "a", Name: "n", Queue: "q", User: "u", JobType: "sort", Maps: 400}}
		for i := range 400 {
			evs = append(evs, events.Event{ID: strconv.Itoa(i + 2), Type: events.TaskPending, TS: int64(1000 + 10*i), App: "a",
				Task: fmt.Sprintf("task_1_0001_m_%06d", i), Kind: events.Map})
		}
		got, want := apply(t, one, evs), apply(t, two, evs)
		if len(got) < 200 {
			t.Fatalf("strict %v: only %d hints", strict, len(got))
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("strict %v: one placer's hints differ from the combined path's", strict)
		}
		if g, w := one.Stats().Errors, two.Stats().Errors; !reflect.DeepEqual(g, w) || g["rand"] == 0 {
			t.Fatalf("strict %v: errors %v, want %v", strict, g, w)
		}
	}
}
