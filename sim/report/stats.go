package report

import (
	"math"
	"slices"
)

// JCTs are the job completion times (finish - submit, seconds) of the jobs
// that finished, in job order.
func JCTs(jobs []Job) []float64 {
	out := make([]float64, 0, len(jobs))
	for _, j := range jobs {
		if j.FinishS >= j.SubmitS && j.FinishS > 0 {
			out = append(out, j.FinishS-j.SubmitS)
		}
	}
	return out
}

// Mean is the arithmetic mean, 0 for no values.
func Mean(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	var s float64
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

// Percentile is the nearest-rank p-th percentile (0 < p <= 100): the
// smallest value with at least p% of the values at or below it, so it is
// always one of the values. 0 for no values.
func Percentile(xs []float64, p float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	rank := int(math.Ceil(p / 100 * float64(len(s))))
	return s[min(max(rank, 1), len(s))-1]
}

// Jain is Jain's fairness index (Σx)² / (n·Σx²): 1 when all shares are
// equal, 1/n when one party gets everything; 0 for no values or all zeros.
func Jain(xs []float64) float64 {
	var s, s2 float64
	for _, x := range xs {
		s += x
		s2 += x * x
	}
	if s2 == 0 {
		return 0
	}
	return s * s / (float64(len(xs)) * s2)
}

// baseline is the index of the run others are compared with: the first
// stock-YARN run when there is one, else the first run; -1 for no runs.
func baseline(res Results) int {
	for i, r := range res.Runs {
		if r.Policy == "yarn" {
			return i
		}
	}
	if len(res.Runs) > 0 {
		return 0
	}
	return -1
}

// relMakespan is r's makespan relative to the baseline's (1 = same);
// undefined when either run was interrupted (their windows end wherever
// each stopped).
func relMakespan(r, base Run) (float64, bool) {
	if base.MakespanS <= 0 || r.Unfinished > 0 || base.Unfinished > 0 {
		return 0, false
	}
	return r.MakespanS / base.MakespanS, true
}

// JobStats summarizes finished jobs the way results.json reports them:
// makespan from the first submit to the last finish, mean and nearest-rank
// 95th-percentile completion time. Jobs that did not finish are left out.
func JobStats(jobs []Job) (makespanS, meanJCTS, p95JCTS float64) {
	first, last := math.Inf(1), math.Inf(-1)
	for _, j := range jobs {
		if j.FinishS >= j.SubmitS && j.FinishS > 0 {
			first, last = min(first, j.SubmitS), max(last, j.FinishS)
		}
	}
	if math.IsInf(first, 1) {
		return 0, 0, 0
	}
	jcts := JCTs(jobs)
	return last - first, Mean(jcts), Percentile(jcts, 95)
}
