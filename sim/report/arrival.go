package report

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// arrivalShare is the share of the makespan over which jobs must be
// submitted for a run to count as arrival-driven.
const arrivalShare = 0.5

// ArrivalDriven reports whether res comes from jobs arriving over time
// rather than a batch submitted at once, and why. The rule: the run was
// simulated from a trace (results.json meta args hold --trace), or, in
// the first run with finished jobs, the submissions span more than half
// of the makespan (first submit to last finish). For such runs makespan
// mostly measures when the last job arrived, so the report leads with the
// job completion time and slowdown distributions instead.
func ArrivalDriven(res Results) (bool, string) {
	if res.Meta != nil {
		for _, a := range res.Meta.Args {
			if a == "--trace" || strings.HasPrefix(a, "--trace=") {
				return true, "simulated from a trace (--trace)"
			}
		}
	}
	for _, r := range res.Runs {
		first, lastSubmit, lastFinish := math.Inf(1), math.Inf(-1), math.Inf(-1)
		for _, j := range r.Jobs {
			first, lastSubmit = min(first, j.SubmitS), max(lastSubmit, j.SubmitS)
			if j.FinishS >= j.SubmitS && j.FinishS > 0 {
				lastFinish = max(lastFinish, j.FinishS)
			}
		}
		if math.IsInf(lastFinish, -1) {
			continue
		}
		span, makespan := lastSubmit-first, lastFinish-first
		if makespan > 0 && span > arrivalShare*makespan {
			return true, fmt.Sprintf("jobs submitted over %s%% of the makespan (more than %s%%)",
				strconv.FormatFloat(math.Floor(span/makespan*100), 'f', 0, 64), strconv.FormatFloat(arrivalShare*100, 'f', 0, 64))
		}
		return false, ""
	}
	return false, ""
}

// Slowdowns are, per series, each finished job's completion time over the
// shortest completion time any stack in res gave the same job (jobs are
// matched by name and occurrence): 1 for the stack that served the job
// best. It is a relative slowdown: results.json holds no job's time alone
// on the cluster, so the best stack's time stands in for it. nil when res
// has fewer than two distinct outcomes (every slowdown would be 1).
func Slowdowns(res Results) [][]float64 {
	return slowdowns(res, seriesOf(res))
}

func slowdowns(res Results, ss []series) [][]float64 {
	if len(ss) < 2 {
		return nil
	}
	type key struct {
		name string
		k    int
	}
	keys := func(r Run) []key {
		seen := make(map[string]int, len(r.Jobs))
		out := make([]key, len(r.Jobs))
		for i, j := range r.Jobs {
			out[i] = key{j.Name, seen[j.Name]}
			seen[j.Name]++
		}
		return out
	}
	best := make(map[key]float64)
	for _, s := range ss {
		r := res.Runs[s.runs[0]]
		for i, k := range keys(r) {
			j := r.Jobs[i]
			if jct := j.FinishS - j.SubmitS; j.FinishS >= j.SubmitS && j.FinishS > 0 {
				if b, ok := best[k]; !ok || jct < b {
					best[k] = jct
				}
			}
		}
	}
	out := make([][]float64, len(ss))
	for n, s := range ss {
		r := res.Runs[s.runs[0]]
		for i, k := range keys(r) {
			j := r.Jobs[i]
			if j.FinishS < j.SubmitS || j.FinishS <= 0 {
				continue
			}
			jct := j.FinishS - j.SubmitS
			switch b := best[k]; {
			case b > 0:
				out[n] = append(out[n], jct/b)
			case jct == 0: // a job every stack finished instantly
				out[n] = append(out[n], 1)
			}
		}
	}
	return out
}

// WriteSlowdownCDFSVG draws the CDF of per-job slowdowns (see Slowdowns),
// one line per distinct outcome.
func WriteSlowdownCDFSVG(w io.Writer, res Results) error {
	ss := seriesOf(res)
	values := slowdowns(res, ss)
	empty := "slowdown compares stacks: needs two runs with different outcomes"
	if values == nil {
		values = make([][]float64, len(ss))
	}
	return writeCDF(w, "Slowdown CDF (JCT / the job's best JCT over the stacks)", "slowdown", 1, empty, ss, values)
}
