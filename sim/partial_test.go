package sim

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/rmsidecar/rmsidecar/sim/report"
)

// partialRun runs the scenario's stack and cancels its context from the
// Progress callback once n jobs have finished.
func partialRun(t *testing.T, sc *Scenario, stacks []string, n int) (report.Results, []Progress, error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var seen []Progress
	res, err := Simulate(ctx, sc, stacks, Options{Progress: func(p Progress) {
		seen = append(seen, p)
		if p.JobsDone == n {
			cancel()
		}
	}})
	return res, seen, err
}

// TestInterruptedRunKeepsWhatFinished: a run whose context ends returns
// the error with the jobs it finished (their times those of the complete
// run up to that point), the others counted as unfinished, the same every
// time; a stack that had not started reports every job unfinished.
func TestInterruptedRunKeepsWhatFinished(t *testing.T) {
	sc := mustLoad(t, "../scenarios/sepb-batch-10.yaml")
	full, err := Simulate(context.Background(), sc, []string{"yarn"}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	res, seen, err := partialRun(t, sc, []string{"yarn", "none"}, 4)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	r := res.Runs[0]
	if r.Policy != "yarn" || len(r.Jobs) != 4 || r.Unfinished != 6 {
		t.Fatalf("partial run: policy %q, %d jobs, %d unfinished; want yarn, 4, 6", r.Policy, len(r.Jobs), r.Unfinished)
	}
	byName := map[string]report.Job{}
	for _, j := range full.Runs[0].Jobs {
		byName[j.Name] = j
	}
	var sum float64
	for _, j := range r.Jobs {
		if j != byName[j.Name] {
			t.Errorf("job %s: %+v, complete run %+v", j.Name, j, byName[j.Name])
		}
		sum += j.FinishS - j.SubmitS
	}
	if d := r.MeanJCTS - sum/4; d > 1e-9 || d < -1e-9 {
		t.Errorf("mean JCT %v over the finished jobs, want %v", r.MeanJCTS, sum/4)
	}
	last := seen[len(seen)-1]
	if r.MakespanS < last.SimS-r.Jobs[0].SubmitS-1e-9 || r.Utilization <= 0 || r.Utilization > 1 {
		t.Errorf("makespan %v (stopped at %v s), utilization %v", r.MakespanS, last.SimS, r.Utilization)
	}
	if r.Detail == nil || r.Detail.Heat.EndS <= 0 {
		t.Fatal("no detail for the partial run")
	}
	running := 0
	for _, b := range r.Detail.Gantt.Bars {
		if b.State == "RUNNING" {
			running++
		}
	}
	if running == 0 {
		t.Error("no attempt shown running at the interruption")
	}
	if o := res.Runs[1]; o.Policy != "none" || o.Unfinished != 10 || o.Jobs == nil || len(o.Jobs) != 0 {
		t.Errorf("stack not run: %+v", o)
	}
	again, _, _ := partialRun(t, sc, []string{"yarn", "none"}, 4)
	a, _ := json.Marshal(res)
	b, _ := json.Marshal(again)
	if string(a) != string(b) {
		t.Error("the same interruption gave different partial results")
	}
}

// TestProgressMovesWithTasks: Progress reports tasks done of the
// scenario's tasks, between finished jobs too, up to all of them.
func TestProgressMovesWithTasks(t *testing.T) {
	sc := mustLoad(t, "../scenarios/sepb-batch-10.yaml")
	var seen []Progress
	if _, err := Run(context.Background(), sc, "yarn", Options{Progress: func(p Progress) { seen = append(seen, p) }}); err != nil {
		t.Fatal(err)
	}
	between, prev := 0, Progress{}
	for _, p := range seen {
		if p.TasksDone < prev.TasksDone || p.SimS < prev.SimS || p.Tasks != seen[0].Tasks {
			t.Fatalf("progress went back: %+v after %+v", p, prev)
		}
		if p.JobsDone == prev.JobsDone {
			between++
		}
		prev = p
	}
	if last := seen[len(seen)-1]; last.TasksDone != last.Tasks || last.Tasks == 0 || last.JobsDone != 10 {
		t.Errorf("last progress %+v", last)
	}
	if between == 0 {
		t.Error("no progress reported between finished jobs")
	}
}

// TestDetailAddsUp: the heatmap holds every container-second of the run
// (its buckets widened to cover it), the timeline and tasks rows every
// attempt while they fit their bounds.
func TestDetailAddsUp(t *testing.T) {
	sc := mustLoad(t, "../scenarios/sepb-batch-10.yaml")
	r, err := Run(context.Background(), sc, "yarn", Options{})
	if err != nil {
		t.Fatal(err)
	}
	d := r.Detail
	var heat float64
	for _, row := range d.Heat.VCoreS {
		if len(row) > report.HeatBuckets || float64(len(row))*d.Heat.BucketS < d.Heat.EndS {
			t.Fatalf("%d buckets of %v s for a run to %v s", len(row), d.Heat.BucketS, d.Heat.EndS)
		}
		for _, v := range row {
			heat += v
		}
	}
	if cs := r.Extra["container_s"]; d.Heat.BucketS <= 1 || heat < cs*(1-1e-9) || heat > cs*(1+1e-9) {
		t.Errorf("heatmap holds %v vcore-s in buckets of %v s, container_s %v", heat, d.Heat.BucketS, cs)
	}
	if d.TasksN == 0 || d.Tasks == nil || len(d.Gantt.Bars) == 0 || len(d.Nodes) != sc.Cluster.NodeCount() {
		t.Errorf("detail: %d attempts, %d bytes of rows, %d bars, %d nodes", d.TasksN, len(d.Tasks), len(d.Gantt.Bars), len(d.Nodes))
	}
	if nd, err := Run(context.Background(), sc, "yarn", Options{NoDetail: true}); err != nil || nd.Detail != nil {
		t.Errorf("NoDetail: %v, %v", nd.Detail, err)
	}
}
