package taskstat_test

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/rmsidecar/rmsidecar/cluster"
	"github.com/rmsidecar/rmsidecar/events"
	"github.com/rmsidecar/rmsidecar/policy/taskstat"
)

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

// TestProgressScore checks eq. 1 (Hadoop weights) and eq. 16–18 (any weights).
func TestProgressScore(t *testing.T) {
	samrLike := taskstat.Weights{M1: 0.8, M2: 0.2, R1: 0.6, R2: 0.2, R3: 0.2}
	tests := []struct {
		name string
		kind events.TaskKind
		at   cluster.Attempt
		w    taskstat.Weights
		want float64
	}{
		{"eq1 map M/N from phase progress", events.Map, cluster.Attempt{Phase: "map", PhaseProgress: 0.4}, taskstat.HadoopWeights, 0.4},
		{"eq16 map M/N from records", events.Map, cluster.Attempt{Phase: "map", RecordsDone: 30, RecordsTotal: 120}, taskstat.HadoopWeights, 0.25},
		{"eq1 map in sort counts as done (M2=0)", events.Map, cluster.Attempt{Phase: "sort", PhaseProgress: 0.5}, taskstat.HadoopWeights, 1},
		{"eq1 reduce copy K=0, fetched 3/10", events.Reduce, cluster.Attempt{Phase: "shuffle", MapsFetched: 3, MapsTotal: 10}, taskstat.HadoopWeights, 0.1},
		{"eq1 reduce sort K=1", events.Reduce, cluster.Attempt{Phase: "sort"}, taskstat.HadoopWeights, 1.0 / 3},
		{"eq1 reduce reduce K=2 half", events.Reduce, cluster.Attempt{Phase: "reduce", PhaseProgress: 0.5}, taskstat.HadoopWeights, 2.0/3 + 1.0/6},
		{"eq17 S=0", events.Map, cluster.Attempt{Phase: "map", PhaseProgress: 0.5}, samrLike, 0.4},
		{"eq17 S=1", events.Map, cluster.Attempt{Phase: "sort", PhaseProgress: 0.5}, samrLike, 0.9},
		{"eq18 S=0", events.Reduce, cluster.Attempt{Phase: "shuffle", MapsFetched: 5, MapsTotal: 10}, samrLike, 0.3},
		{"eq18 S=1", events.Reduce, cluster.Attempt{Phase: "merge", PhaseProgress: 0.5}, samrLike, 0.7},
		{"eq18 S=2", events.Reduce, cluster.Attempt{Phase: "reduce", PhaseProgress: 0.5}, samrLike, 0.9},
		// Only the overall YARN progress: the map phase is 2/3 of a YARN map.
		{"sub progress recovered from YARN progress", events.Map, cluster.Attempt{Phase: "map", Progress: 0.5}, taskstat.HadoopWeights, 0.75},
		{"no phase: reported progress", events.Map, cluster.Attempt{Progress: 0.42}, samrLike, 0.42},
	}
	for _, tt := range tests {
		got := taskstat.ProgressScore(&tt.at, tt.kind, tt.w)
		if !near(got, tt.want, 1e-9) {
			t.Errorf("%s: PS = %v, want %v", tt.name, got, tt.want)
		}
	}
}

// TestLATETimeToEndExample is SAMR §II-C: a reduce task that finished its
// copy stage in Tr seconds. With the real weights R1 = 0.6 it needs
// (1-0.6)*(Tr/0.6) = 0.67 Tr more; LATE's static 1/3 weights say 2 Tr.
func TestLATETimeToEndExample(t *testing.T) {
	const tr = 100_000 // ms
	at := cluster.Attempt{Phase: events.PhaseSort}
	real := taskstat.Weights{M1: 1, R1: 0.6, R2: 0.2, R3: 0.2}

	psLATE := taskstat.ProgressScore(&at, events.Reduce, taskstat.HadoopWeights) // eq. 1
	tteLATE := taskstat.TimeToEnd(psLATE, taskstat.ProgressRate(psLATE, tr))     // eq. 4, 5
	if !near(tteLATE, 2*tr, 1) {
		t.Errorf("LATE TTE = %v, want 2*Tr = %v", tteLATE, 2*tr)
	}
	psReal := taskstat.ProgressScore(&at, events.Reduce, real)
	tteReal := taskstat.TimeToEnd(psReal, taskstat.ProgressRate(psReal, tr))
	if !near(tteReal, 0.4*tr/0.6, 1) || !near(tteReal/tr, 0.67, 0.005) {
		t.Errorf("real TTE = %v, want 0.67*Tr", tteReal)
	}
}

func TestTimeToEndZeroRate(t *testing.T) {
	if got := taskstat.TimeToEnd(0, 0); got != float64(taskstat.MaxTTEMS) {
		t.Errorf("TTE at zero rate = %v, want the cap", got)
	}
	if got := taskstat.ProgressRate(0.5, 0); got != 0 {
		t.Errorf("PR with no elapsed time = %v", got)
	}
}

func TestPercentile(t *testing.T) {
	tests := []struct {
		vals []float64
		p    float64
		want float64
	}{
		{[]float64{1, 2, 3, 4}, 0.25, 1.75},
		{[]float64{1, 2, 3, 4, 5}, 0.25, 2},
		{[]float64{7}, 0.25, 7},
		{[]float64{1, 2, 3, 4}, 0, 1},
		{[]float64{1, 2, 3, 4}, 1, 4},
	}
	for _, tt := range tests {
		if got := taskstat.Percentile(tt.vals, tt.p); !near(got, tt.want, 1e-12) {
			t.Errorf("Percentile(%v, %v) = %v, want %v", tt.vals, tt.p, got, tt.want)
		}
	}
	if !math.IsNaN(taskstat.Percentile(nil, 0.5)) {
		t.Error("empty percentile must be NaN")
	}
}

func TestPercentileOfTwo(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 200 {
		a := make([]float64, rng.IntN(6))
		b := make([]float64, rng.IntN(6))
		for i := range a {
			a[i] = float64(rng.IntN(10))
		}
		for i := range b {
			b[i] = float64(rng.IntN(10))
		}
		slices.Sort(a)
		slices.Sort(b)
		all := slices.Sorted(slices.Values(append(slices.Clone(a), b...)))
		for _, p := range []float64{0, 0.25, 0.5, 0.9, 1} {
			got, want := taskstat.PercentileOfTwo(a, b, p), taskstat.Percentile(all, p)
			if got != want && !(math.IsNaN(got) && math.IsNaN(want)) {
				t.Fatalf("trial %d: PercentileOfTwo(%v, %v, %v) = %v, want %v", trial, a, b, p, got, want)
			}
		}
	}
}
