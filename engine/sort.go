package engine

import (
	"cmp"
	"slices"

	"github.com/rmsidecar/rmsidecar/policy"
)

// sortScores orders best first; ties by node name keep output deterministic.
func sortScores(s []policy.NodeScore) {
	slices.SortStableFunc(s, func(a, b policy.NodeScore) int {
		if c := cmp.Compare(b.Score, a.Score); c != 0 {
			return c
		}
		return cmp.Compare(a.Node, b.Node)
	})
}
