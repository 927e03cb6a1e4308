// Package taskstat is what the speculators estimate about running tasks and
// share: the progress score PS of an attempt (SAMR eq. 1, 16–18 with any
// stage weights), its progress rate and time to end (eq. 4–5), percentiles,
// the running attempts grouped by job and kind, finished-task duration
// statistics per job and kind (Durations), the expected duration of a fresh
// copy (EstBackupMS), and what was proposed recently (Proposals), so a hint
// is not re-proposed before the copy shows up.
package taskstat

import (
	"math"

	"github.com/rmsidecar/rmsidecar/cluster"
	"github.com/rmsidecar/rmsidecar/events"
)

// Weights are the stage weights of SAMR eq. 17–18: M1 and M2 for the two map
// stages (execute the map function, reorder intermediate results), R1, R2 and
// R3 for the three reduce stages (copy, sort, merge/reduce). M1+M2 = 1 and
// R1+R2+R3 = 1.
type Weights struct {
	M1 float64 `json:"m1" yaml:"m1"`
	M2 float64 `json:"m2" yaml:"m2"`
	R1 float64 `json:"r1" yaml:"r1"`
	R2 float64 `json:"r2" yaml:"r2"`
	R3 float64 `json:"r3" yaml:"r3"`
}

// HadoopWeights are the static weights Hadoop and LATE use (SAMR §II-B:
// M1 = 1, M2 = 0, R1 = R2 = R3 = 1/3), which turn eq. 17–18 into eq. 1.
var HadoopWeights = Weights{M1: 1, M2: 0, R1: 1.0 / 3, R2: 1.0 / 3, R3: 1.0 / 3}

// yarnWeights are the phase weights YARN's MapReduce tasks use when they
// report overall progress: a map's map phase is 2/3 of it and its sort 1/3,
// a reduce's copy, sort and reduce phases a third each. They let us recover
// the progress inside a stage when an event carries only the overall value.
var yarnWeights = Weights{M1: 2.0 / 3, M2: 1.0 / 3, R1: 1.0 / 3, R2: 1.0 / 3, R3: 1.0 / 3}

// Stage returns the SAMR stage index S of an attempt (0 or 1 for maps;
// 0, 1 or 2 for reduces) from its reported phase.
func Stage(kind events.TaskKind, phase string) int {
	if kind == events.Reduce {
		switch phase {
		case events.PhaseSort, events.PhaseMerge:
			return 1
		case events.PhaseReduce:
			return 2
		}
		return 0 // shuffle, or not yet reported
	}
	switch phase {
	case events.PhaseSort, events.PhaseMerge:
		return 1
	}
	return 0
}

func (w Weights) stages(kind events.TaskKind) []float64 {
	if kind == events.Reduce {
		return []float64{w.R1, w.R2, w.R3}
	}
	return []float64{w.M1, w.M2}
}

// SubProgress is SubPS of SAMR eq. 16, the progress inside the current stage:
// N_f / N_a as maps fetched in the copy stage, else the reported phase
// progress, else records done in the map stage, else recovered from the
// overall progress YARN reports with its own phase weights.
func SubProgress(at *cluster.Attempt, kind events.TaskKind) float64 {
	s := Stage(kind, at.Phase)
	switch {
	case kind == events.Reduce && s == 0 && at.MapsTotal > 0:
		return clamp01(float64(at.MapsFetched) / float64(at.MapsTotal))
	case at.PhaseProgress > 0:
		return clamp01(at.PhaseProgress)
	case kind == events.Map && s == 0 && at.RecordsTotal > 0:
		return clamp01(float64(at.RecordsDone) / float64(at.RecordsTotal))
	}
	st := yarnWeights.stages(kind)
	before := 0.0
	for i := 0; i < s; i++ {
		before += st[i]
	}
	if st[s] <= 0 {
		return 0
	}
	return clamp01((at.Progress - before) / st[s])
}

// ProgressScore is PS of SAMR eq. 17 (maps) and eq. 18 (reduces) with the
// given stage weights; with HadoopWeights it is Hadoop's eq. 1. An attempt
// that has not reported a phase has no stage to weight: its reported
// progress is the score.
func ProgressScore(at *cluster.Attempt, kind events.TaskKind, w Weights) float64 {
	if at.Phase == "" {
		return clamp01(at.Progress)
	}
	st := w.stages(kind)
	s := Stage(kind, at.Phase)
	ps := 0.0
	for i := 0; i < s; i++ {
		ps += st[i]
	}
	return clamp01(ps + st[s]*SubProgress(at, kind))
}

// MaxTTEMS bounds a time to end when the progress rate is zero.
const MaxTTEMS = int64(1e9)

// ProgressRate is PR = PS / Tr (SAMR eq. 4), in progress per millisecond.
func ProgressRate(ps float64, elapsedMS int64) float64 {
	if elapsedMS <= 0 {
		return 0
	}
	return ps / float64(elapsedMS)
}

// TimeToEnd is TTE = (1 − PS) / PR (SAMR eq. 5), in milliseconds.
func TimeToEnd(ps, pr float64) float64 {
	if pr <= 0 {
		return float64(MaxTTEMS)
	}
	return math.Min((1-ps)/pr, float64(MaxTTEMS))
}

// Percentile returns the p-th percentile (0..1) of sorted values with linear
// interpolation between closest ranks; NaN when values is empty.
func Percentile(sorted []float64, p float64) float64 {
	n := len(sorted)
	if n == 0 {
		return math.NaN()
	}
	pos := p * float64(n-1)
	lo := int(math.Floor(pos))
	hi := int(math.Ceil(pos))
	return sorted[lo] + (sorted[hi]-sorted[lo])*(pos-float64(lo))
}

// PercentileOfTwo is Percentile over the union of two ascending slices,
// without merging them.
func PercentileOfTwo(a, b []float64, p float64) float64 {
	n := len(a) + len(b)
	if n == 0 {
		return math.NaN()
	}
	if len(b) == 0 {
		return Percentile(a, p)
	}
	if len(a) == 0 {
		return Percentile(b, p)
	}
	pos := p * float64(n-1)
	lo, hi := int(math.Floor(pos)), int(math.Ceil(pos))
	// Walk both slices in order up to rank hi.
	var xlo, xhi float64
	i, j := 0, 0
	for k := 0; k <= hi; k++ {
		var x float64
		if j >= len(b) || (i < len(a) && a[i] <= b[j]) {
			x = a[i]
			i++
		} else {
			x = b[j]
			j++
		}
		if k == lo {
			xlo = x
		}
		xhi = x
	}
	return xlo + (xhi-xlo)*(pos-float64(lo))
}

func clamp01(x float64) float64 {
	switch {
	case x < 0 || math.IsNaN(x):
		return 0
	case x > 1:
		return 1
	}
	return x
}
