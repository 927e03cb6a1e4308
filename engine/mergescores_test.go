package engine

import (
	"math/rand/v2"
	"reflect"
	"strconv"
	"testing"

	"github.com/rmsidecar/rmsidecar/events"
	"github.com/rmsidecar/rmsidecar/policy"
)

// mergeScoresRef is place's merge for many placers (a map from node to its
// first entry), which placeOne's mergeScores replaces for one.
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
