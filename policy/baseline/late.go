package baseline

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/rmsidecar/rmsidecar/cluster"
	"github.com/rmsidecar/rmsidecar/events"
	"github.com/rmsidecar/rmsidecar/policy"
	"github.com/rmsidecar/rmsidecar/policy/capacity"
	"github.com/rmsidecar/rmsidecar/policy/taskstat"
)

// NameLATE is the registered name of LATE.
const NameLATE = "late"

// LATEConfig are LATE's parameters (Zaharia et al., OSDI'08, §4 defaults).
type LATEConfig struct {
	// SpeculativeCap is the share of the cluster's container slots that
	// speculative copies may hold at once (10 %).
	SpeculativeCap float64 `json:"speculative_cap" yaml:"speculative_cap"`
	// SlowNodeThreshold is the percentile of node scores (total work
	// performed) below which a node gets no copy (25th).
	SlowNodeThreshold float64 `json:"slow_node_threshold" yaml:"slow_node_threshold"`
	// SlowTaskThreshold is the percentile of progress rates a task must be
	// below to be speculated (25th).
	SlowTaskThreshold float64 `json:"slow_task_threshold" yaml:"slow_task_threshold"`
	// MinRuntimeMS: tasks younger than this are not judged (one minute, as
	// Hadoop, on which LATE was built).
	MinRuntimeMS int64 `json:"min_runtime_ms" yaml:"min_runtime_ms"`
	// ReproposeMS is how long a proposal stands (and counts against the
	// cap) before the task may be proposed again if no copy showed up.
	ReproposeMS int64 `json:"repropose_ms" yaml:"repropose_ms"`
}

// DefaultLATEConfig returns the paper's parameters.
func DefaultLATEConfig() LATEConfig {
	return LATEConfig{SpeculativeCap: 0.1, SlowNodeThreshold: 0.25, SlowTaskThreshold: 0.25,
		MinRuntimeMS: 60_000, ReproposeMS: 15_000}
}

// LATE speculates the task with the longest approximate time to end (SAMR
// eq. 4–5 with Hadoop's static weights, eq. 1) among the slow tasks of each
// job, on fast nodes only, while the running copies stay under
// SpeculativeCap.
type LATE struct {
	cfg       LATEConfig
	durations *taskstat.Durations
	proposals *taskstat.Proposals
	// work done per node: succeeded tasks of running apps (LATE's node score
	// is "the sum of progress scores of succeeded and in-progress tasks").
	nodeDone map[string]float64
	appDone  map[string]map[string]float64
}

// NewLATE is the factory of the late policy.
func NewLATE(_ context.Context, h policy.Handle) (policy.Plugin, error) {
	cfg := DefaultLATEConfig()
	if err := h.DecodeArgs(NameLATE, &cfg); err != nil {
		return nil, err
	}
	for _, p := range []struct {
		name string
		v    float64
	}{{"speculative_cap", cfg.SpeculativeCap}, {"slow_node_threshold", cfg.SlowNodeThreshold},
		{"slow_task_threshold", cfg.SlowTaskThreshold}} {
		if p.v < 0 || p.v > 1 {
			return nil, fmt.Errorf("late settings: %s: %v not in [0,1]", p.name, p.v)
		}
	}
	return &LATE{cfg: cfg, durations: taskstat.NewDurations(), proposals: taskstat.NewProposals(),
		nodeDone: map[string]float64{}, appDone: map[string]map[string]float64{}}, nil
}

// Name implements policy.Plugin.
func (*LATE) Name() string { return NameLATE }

// Observe implements policy.Observer: finished-task durations, and work done
// per node for the slow-node test.
func (p *LATE) Observe(_ context.Context, ev *events.Event, v cluster.View) {
	p.durations.Observe(ev, v)
	switch ev.Type {
	case events.TaskFinished:
		if ev.State != events.StateSucceeded {
			return
		}
		at := v.Attempt(ev.Attempt)
		if at == nil || at.Node == "" {
			return
		}
		m := p.appDone[ev.App]
		if m == nil {
			m = map[string]float64{}
			p.appDone[ev.App] = m
		}
		m[at.Node]++
		p.nodeDone[at.Node]++
	case events.AppFinished:
		for node, n := range p.appDone[ev.App] { // per-key updates: order does not matter
			p.nodeDone[node] -= n
		}
		delete(p.appDone, ev.App)
	}
}

type lateCandidate struct {
	at         *cluster.Attempt
	tte, avgPR float64
}

// Speculate implements policy.Speculator.
func (p *LATE) Speculate(_ context.Context, v cluster.View) ([]policy.Hint, *policy.Status) {
	now := v.Now()
	running := taskstat.Running(v)
	outstanding := p.proposals.Outstanding(v, now, p.cfg.ReproposeMS)

	slowNode := p.slowNodes(v, running)
	capTotal := max(1, int(math.Floor(p.cfg.SpeculativeCap*float64(capacity.TotalSlots(v, capacity.Need{VCores: 1})))))
	spec := taskstat.RunningSpeculative(running) + outstanding
	if spec >= capTotal {
		return nil, nil
	}

	var cands []lateCandidate
	for _, g := range taskstat.GroupByJob(running) {
		if g.App.Count[g.Kind].Pending > 0 {
			continue // the job's pending tasks take its slots first
		}
		ps := make([]float64, len(g.Attempts))
		prs := make([]float64, len(g.Attempts))
		sumPR := 0.0
		for i, at := range g.Attempts {
			ps[i] = taskstat.ProgressScore(at, g.Kind, taskstat.HadoopWeights) // eq. 1
			prs[i] = taskstat.ProgressRate(ps[i], taskstat.Elapsed(at, now))   // eq. 4
			sumPR += prs[i]
		}
		sorted := slices.Clone(prs)
		slices.Sort(sorted)
		// The percentile is over the job's tasks of the kind, the finished
		// ones included (their rate is 1/duration): see taskstat.Durations.Rates.
		slowTask := taskstat.PercentileOfTwo(sorted, p.durations.Rates(g.App.ID, g.Kind), p.cfg.SlowTaskThreshold)
		avgPR := sumPR / float64(len(prs))
		for i, at := range g.Attempts {
			t := at.Task
			if at.Speculative || taskstat.HasRunningCopy(t) || taskstat.WaitsForMaps(at) || p.proposals.Recent(taskstat.Key(t), now, p.cfg.ReproposeMS) ||
				taskstat.Elapsed(at, now) < p.cfg.MinRuntimeMS || !(prs[i] < slowTask) {
				continue
			}
			cands = append(cands, lateCandidate{at: at, tte: taskstat.TimeToEnd(ps[i], prs[i]), avgPR: avgPR}) // eq. 5
		}
	}
	// Longest approximate time to end first.
	slices.SortStableFunc(cands, func(a, b lateCandidate) int {
		if c := cmp.Compare(b.tte, a.tte); c != 0 {
			return c
		}
		return cmp.Compare(taskstat.Key(a.at.Task), taskstat.Key(b.at.Task))
	})
	free := capacity.New(v)
	fast := func(n *cluster.Node) bool { return !slowNode[n.ID] }
	var out []policy.Hint
	for _, c := range cands {
		if spec >= capTotal {
			break
		}
		node := free.Pick(capacity.NeedOf(c.at), fast, c.at.Node)
		if node == nil {
			continue
		}
		t := c.at.Task
		p.proposals.Add(taskstat.Key(t), now)
		spec++
		out = append(out, policy.Hint{
			Kind: policy.KindSpeculate, App: t.App.ID, Task: t.ID, Attempt: c.at.ID, Node: node.ID,
			EstRemainingMS: int64(c.tte),
			EstBackupMS:    taskstat.EstBackupMS(p.durations.Of(t.App.ID, t.Kind), c.avgPR),
			Reason: fmt.Sprintf("late: longest TTE %.0f ms (eq. 5), PR below the %.0fth percentile; copies %d of cap %d",
				c.tte, 100*p.cfg.SlowTaskThreshold, spec, capTotal),
		})
	}
	return out, nil
}

// slowNodes marks the nodes whose total work performed (succeeded tasks of
// running apps plus the progress of their running attempts) is below the
// SlowNodeThreshold percentile of all running nodes.
func (p *LATE) slowNodes(v cluster.View, running []*cluster.Attempt) map[string]bool {
	score := map[string]float64{}
	var ids []string
	for _, n := range v.Nodes() {
		if n.State != cluster.NodeRunning {
			continue
		}
		ids = append(ids, n.ID)
		score[n.ID] = p.nodeDone[n.ID]
	}
	for _, at := range running {
		if _, ok := score[at.Node]; ok {
			score[at.Node] += taskstat.ProgressScore(at, at.Task.Kind, taskstat.HadoopWeights)
		}
	}
	vals := make([]float64, 0, len(ids))
	for _, id := range ids {
		vals = append(vals, score[id])
	}
	slices.Sort(vals)
	thr := taskstat.Percentile(vals, p.cfg.SlowNodeThreshold)
	slow := map[string]bool{}
	for _, id := range ids {
		if score[id] < thr {
			slow[id] = true
		}
	}
	return slow
}
