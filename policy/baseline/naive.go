package baseline

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	"github.com/rmsidecar/rmsidecar/cluster"
	"github.com/rmsidecar/rmsidecar/events"
	"github.com/rmsidecar/rmsidecar/policy"
	"github.com/rmsidecar/rmsidecar/policy/capacity"
	"github.com/rmsidecar/rmsidecar/policy/taskstat"
)

// NameNaive is the registered name of Hadoop's rule.
const NameNaive = "naive"

// NaiveConfig are the settings of the naive policy (Hadoop 0.20 defaults).
type NaiveConfig struct {
	// Gap is how far below the average progress score a straggler is (eq. 3: 20 %).
	Gap float64 `json:"gap" yaml:"gap"`
	// MinRuntimeMS is how long a task must have run before it may be
	// speculated (Hadoop's SPECULATIVE_LAG, one minute).
	MinRuntimeMS int64 `json:"min_runtime_ms" yaml:"min_runtime_ms"`
	// ReproposeMS is how long a proposal stands before the task may be
	// proposed again if no copy showed up.
	ReproposeMS int64 `json:"repropose_ms" yaml:"repropose_ms"`
}

// DefaultNaiveConfig returns Hadoop's parameters.
func DefaultNaiveConfig() NaiveConfig {
	return NaiveConfig{Gap: 0.2, MinRuntimeMS: 60_000, ReproposeMS: 15_000}
}

// Naive is Hadoop 0.20's speculation rule (SAMR eq. 1–3): a task whose
// progress score is below the average of its job's running tasks of the same
// kind minus 20 % gets one backup, at most once in its life.
type Naive struct {
	cfg       NaiveConfig
	durations *taskstat.Durations
	proposals *taskstat.Proposals
}

// NewNaive is the factory of the naive policy.
func NewNaive(_ context.Context, h policy.Handle) (policy.Plugin, error) {
	cfg := DefaultNaiveConfig()
	if err := h.DecodeArgs(NameNaive, &cfg); err != nil {
		return nil, err
	}
	return &Naive{cfg: cfg, durations: taskstat.NewDurations(), proposals: taskstat.NewProposals()}, nil
}

// Name implements policy.Plugin.
func (*Naive) Name() string { return NameNaive }

// Observe implements policy.Observer: it keeps finished-task durations for
// the backup estimate.
func (p *Naive) Observe(_ context.Context, ev *events.Event, v cluster.View) {
	p.durations.Observe(ev, v)
}

type naiveCandidate struct {
	at          *cluster.Attempt
	ps, avg, pr float64
	avgPR       float64
}

// Speculate implements policy.Speculator.
func (p *Naive) Speculate(_ context.Context, v cluster.View) ([]policy.Hint, *policy.Status) {
	now := v.Now()
	p.proposals.Outstanding(v, now, p.cfg.ReproposeMS) // prune
	var cands []naiveCandidate
	for _, g := range taskstat.GroupByJob(taskstat.Running(v)) {
		// Hadoop hands a job's free slot to its pending tasks before any
		// speculative one.
		if g.App.Count[g.Kind].Pending > 0 {
			continue
		}
		ps := make([]float64, len(g.Attempts))
		sumPR := 0.0
		taskPS := make(map[*cluster.Task]float64, len(g.Attempts))
		for i, at := range g.Attempts {
			ps[i] = taskstat.ProgressScore(at, g.Kind, taskstat.HadoopWeights) // eq. 1
			sumPR += taskstat.ProgressRate(ps[i], taskstat.Elapsed(at, now))
			taskPS[at.Task] = max(taskPS[at.Task], ps[i]) // a task's progress is its best attempt's
		}
		// Eq. 2 averages over all T tasks of the kind, as Hadoop's job-level
		// progress does: finished tasks count 1, running ones their PS, tasks
		// not started 0. Late in a job the finished tasks lift PS_avg, which
		// is what makes Hadoop's rule back up most of the last running tasks.
		sum := float64(g.App.Count[g.Kind].Succeeded)
		for i, at := range g.Attempts {
			if v, ok := taskPS[at.Task]; ok && v == ps[i] {
				sum += v
				delete(taskPS, at.Task) // once per task, in attempt order
			}
		}
		avg := sum / float64(taskTotal(g.App, g.Kind)) // eq. 2
		avgPR := sumPR / float64(len(ps))
		for i, at := range g.Attempts {
			t := at.Task
			if at.Speculative || taskstat.HasRunningCopy(t) || taskstat.EverSpeculated(t) ||
				p.proposals.Recent(taskstat.Key(t), now, p.cfg.ReproposeMS) ||
				taskstat.Elapsed(at, now) < p.cfg.MinRuntimeMS {
				continue
			}
			if ps[i] < avg-p.cfg.Gap { // eq. 3
				cands = append(cands, naiveCandidate{at: at, ps: ps[i], avg: avg,
					pr: taskstat.ProgressRate(ps[i], taskstat.Elapsed(at, now)), avgPR: avgPR})
			}
		}
	}
	// The furthest behind first; ids break ties.
	slices.SortStableFunc(cands, func(a, b naiveCandidate) int {
		if c := cmp.Compare(a.ps, b.ps); c != 0 {
			return c
		}
		return cmp.Compare(taskstat.Key(a.at.Task), taskstat.Key(b.at.Task))
	})
	free := capacity.New(v)
	var out []policy.Hint
	for _, c := range cands {
		node := free.Pick(capacity.NeedOf(c.at), nil, c.at.Node)
		if node == nil {
			continue
		}
		t := c.at.Task
		p.proposals.Add(taskstat.Key(t), now)
		out = append(out, policy.Hint{
			Kind: policy.KindSpeculate, App: t.App.ID, Task: t.ID, Attempt: c.at.ID, Node: node.ID,
			EstRemainingMS: int64(taskstat.TimeToEnd(c.ps, c.pr)),
			EstBackupMS:    taskstat.EstBackupMS(p.durations.Of(t.App.ID, t.Kind), c.avgPR),
			Reason:         fmt.Sprintf("naive: PS %.3f < PS_avg %.3f - %.2f (eq. 3)", c.ps, c.avg, p.cfg.Gap),
		})
	}
	return out, nil
}

// taskTotal is T of eq. 2: the job's declared task count of the kind, or the
// tasks seen if more.
func taskTotal(a *cluster.App, kind events.TaskKind) int {
	c := a.Count[kind]
	total := a.Maps
	if kind == events.Reduce {
		total = a.Reduces
	}
	return max(total, c.Pending+c.Running+c.Succeeded, 1)
}
