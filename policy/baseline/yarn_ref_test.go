package baseline

import (
	"context"
	"fmt"
	"math"

	"github.com/rmsidecar/rmsidecar/cluster"
	"github.com/rmsidecar/rmsidecar/events"
	"github.com/rmsidecar/rmsidecar/policy"
	"github.com/rmsidecar/rmsidecar/policy/capacity"
	"github.com/rmsidecar/rmsidecar/policy/taskstat"
)

// refYARN is the yarn speculator as it was before its scan became
// incremental (a full scan of every task each time): the reference the
// differential test holds the incremental one to.
type refYARN struct {
	cfg        YARNConfig
	durations  *taskstat.Durations
	proposals  *taskstat.Proposals
	speculated map[string]bool // DefaultSpeculator.mayHaveSpeculated
	nextScan   int64
}

// NewYARN is the factory of the yarn policy.
func newRefYARN(cfg YARNConfig) *refYARN {
	return &refYARN{cfg: cfg, durations: taskstat.NewDurations(), proposals: taskstat.NewProposals(), speculated: map[string]bool{}}
}

// Name implements policy.Plugin.
func (*refYARN) Name() string { return NameYARN }

// Observe implements policy.Observer.
func (p *refYARN) Observe(_ context.Context, ev *events.Event, v cluster.View) {
	p.durations.Observe(ev, v)
	if ev.Type == events.AppFinished {
		prefix := ev.App + "/"
		for k := range p.speculated { // deleting: order does not matter
			if len(k) > len(prefix) && k[:len(prefix)] == prefix {
				delete(p.speculated, k)
			}
		}
	}
}

// Speculate implements policy.Speculator.
func (p *refYARN) Speculate(_ context.Context, v cluster.View) ([]policy.Hint, *policy.Status) {
	now := v.Now()
	if now < p.nextScan {
		return nil, nil
	}
	p.proposals.Outstanding(v, now, p.cfg.RetryAfterSpeculateMS) // prune
	free := capacity.New(v)
	var out []policy.Hint
	for _, a := range v.Apps() {
		if a.Finished() {
			continue
		}
		for _, kind := range []events.TaskKind{events.Map, events.Reduce} {
			if h, ok := p.scanJob(v, a, kind, now, free); ok {
				out = append(out, h)
			}
		}
	}
	if len(out) > 0 {
		p.nextScan = now + p.cfg.RetryAfterSpeculateMS
	} else {
		p.nextScan = now + p.cfg.RetryAfterNoSpeculateMS
	}
	return out, nil
}

// scanJob is DefaultSpeculator.maybeScheduleASpeculation for one job and kind.
func (p *refYARN) scanJob(v cluster.View, a *cluster.App, kind events.TaskKind, now int64, free *capacity.Capacity) (policy.Hint, bool) {
	counts := a.Count[kind]
	if counts.Pending > 0 {
		return policy.Hint{}, false // the job still waits for containers of this kind
	}
	total := a.Maps
	if kind == events.Reduce {
		total = a.Reduces
	}
	if n := counts.Pending + counts.Running + counts.Succeeded; total < n {
		total = n
	}
	if total == 0 {
		return policy.Hint{}, false
	}
	stats := p.durations.Of(a.ID, kind)
	// StartEndTimesBase.thresholdRuntime: no speculation until enough tasks
	// of the kind have finished.
	enough := counts.Succeeded >= p.cfg.MinimumCompleteNumber &&
		float64(counts.Succeeded)/float64(total) >= p.cfg.MinimumCompleteProportion
	if !enough {
		// speculationValue never proposes a copy before the gate opens, so
		// the per-task scan (the tick's main cost on a large job) is skipped.
		return policy.Hint{}, false
	}
	threshold := stats.Mean + p.cfg.SlowTaskThreshold*stats.Std()

	var (
		best                  *cluster.Attempt
		bestValue             = int64(-1)
		bestEnd               int64
		already, runningTasks int
	)
	for _, t := range a.Tasks {
		if t.Kind != kind {
			continue
		}
		value, at, end := p.speculationValue(t, now, enough, threshold, stats)
		if value == alreadySpeculating {
			already++
		}
		if value != notRunning {
			runningTasks++
		}
		if value > bestValue {
			best, bestValue, bestEnd = at, value, end
		}
	}
	allowed := max(float64(p.cfg.MinimumAllowedSpeculativeTasks), p.cfg.ProportionTotalTasksSpeculatable*float64(total))
	allowed = max(allowed, p.cfg.ProportionRunningTasksSpeculatable*float64(runningTasks))
	if best == nil || int(allowed) <= already {
		return policy.Hint{}, false
	}
	node := free.Pick(capacity.NeedOf(best), nil, best.Node)
	if node == nil {
		return policy.Hint{}, false
	}
	t := best.Task
	p.proposals.Add(taskstat.Key(t), now)
	p.speculated[taskstat.Key(t)] = true
	return policy.Hint{
		Kind: policy.KindSpeculate, App: a.ID, Task: t.ID, Attempt: best.ID, Node: node.ID,
		EstRemainingMS: max(0, bestEnd-now),
		EstBackupMS:    int64(stats.Mean),
		Reason: fmt.Sprintf("yarn: estimated end %d ms from now, a new attempt %.0f ms; gain %d ms; %d of %d allowed copies run",
			bestEnd-now, stats.Mean, bestValue, already, int(allowed)),
	}, true
}

// speculationValue is DefaultSpeculator.speculationValue: how much earlier a
// fresh attempt would end than the running one (>= 0), or a negative reason.
func (p *refYARN) speculationValue(t *cluster.Task, now int64, enough bool, threshold float64, stats taskstat.Stats) (int64, *cluster.Attempt, int64) {
	key := taskstat.Key(t)
	mayHave := p.speculated[key] || taskstat.EverSpeculated(t)
	if !mayHave && !enough {
		return onSchedule, nil, 0
	}
	var run *cluster.Attempt
	for _, at := range t.Attempts {
		if at.Running() {
			if run != nil {
				return alreadySpeculating, nil, 0
			}
			run = at
		}
	}
	if run == nil {
		return notRunning, nil, 0
	}
	// A copy we asked for is starting: the AM would hold it as STARTING.
	if p.proposals.Recent(key, now, p.cfg.RetryAfterSpeculateMS) {
		return alreadySpeculating, nil, 0
	}
	estimate := p.estimatedRuntime(run, now)
	end := run.StartTS + estimate
	if end < now {
		return progressIsGood, nil, 0
	}
	replacementEnd := now + int64(stats.Mean)
	if replacementEnd >= end {
		return tooLateToSpeculate, nil, 0
	}
	if !enough {
		return onSchedule, nil, 0
	}
	if p.cfg.CompareThreshold && float64(estimate) <= threshold {
		return onSchedule, nil, 0
	}
	return end - replacementEnd, run, end
}

// estimatedRuntime is LegacyTaskRuntimeEstimator's estimate: the time from
// start to the attempt's last status over its progress then, or -1 before
// any status. A status older than StagnationMS is treated as repeated now.
func (p *refYARN) estimatedRuntime(at *cluster.Attempt, now int64) int64 {
	ts := at.ProgressTS
	if ts > 0 && now-ts > p.cfg.StagnationMS {
		ts = now
	}
	if at.StartTS <= 0 || ts <= at.StartTS {
		return -1
	}
	return int64(float64(ts-at.StartTS) / math.Max(0.0001, at.Progress))
}
