package samr

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

// Plugin is SAMR: an Observer (stage weights, durations), a Speculator
// (node classes and backups) and a Flusher (history to the profile store).
type Plugin struct {
	cfg       Config
	store     policy.ProfileStore
	hist      *history
	jobs      map[string]*jobSamples
	durations *taskstat.Durations
	proposals *taskstat.Proposals
	// nodes' last class and relative rate per kind, kept while a node runs
	// no task of the kind.
	slow  map[events.TaskKind]map[string]bool
	ratio map[events.TaskKind]map[string]float64
	// class is the last node-class hint sent per node.
	class map[string][2]bool
}

// jobSamples are the stage weights observed in one running job: per node
// and over all nodes.
type jobSamples struct {
	byNode map[string]*sample
	all    sample
}

// New is the factory: it reads the configuration and loads the stage-weight
// history from the profile store.
func New(ctx context.Context, h policy.Handle) (policy.Plugin, error) {
	cfg, err := decodeConfig(h)
	if err != nil {
		return nil, err
	}
	p := &Plugin{
		cfg: cfg, store: h.Profiles, hist: &history{entries: map[historyKey]*Entry{}},
		jobs: map[string]*jobSamples{}, durations: taskstat.NewDurations(), proposals: taskstat.NewProposals(),
		slow:  map[events.TaskKind]map[string]bool{events.Map: {}, events.Reduce: {}},
		ratio: map[events.TaskKind]map[string]float64{events.Map: {}, events.Reduce: {}},
		class: map[string][2]bool{},
	}
	if err := p.hist.load(ctx, h.Profiles); err != nil {
		return nil, err
	}
	return p, nil
}

// Name implements policy.Plugin.
func (*Plugin) Name() string { return Name }

// Flush implements policy.Flusher: it writes the history back (Fig. 2, step 4).
func (p *Plugin) Flush(ctx context.Context) error { return p.hist.save(ctx, p.store) }

// History returns the stored stage weights of a node for a job type (Hadoop's
// defaults when nothing was learned), for reports and tests.
func (p *Plugin) History(jobType, node string, kind events.TaskKind) taskstat.Weights {
	return p.hist.weights(jobTypeOf(jobType), node, kind)
}

// Observe implements policy.Observer: a successful task's phase durations
// update the node's history and the job's samples (Algorithm 1, line 8).
func (p *Plugin) Observe(_ context.Context, ev *events.Event, v cluster.View) {
	p.durations.Observe(ev, v)
	switch ev.Type {
	case events.AppFinished:
		delete(p.jobs, ev.App)
	case events.TaskFinished:
		if ev.State != events.StateSucceeded {
			return
		}
		at := v.Attempt(ev.Attempt)
		if at == nil || at.Task == nil || at.Node == "" {
			return
		}
		obs, ok := observed(at.Task.Kind, ev.PhaseMS)
		if !ok {
			return
		}
		app := at.Task.App
		p.hist.update(jobTypeOf(app.JobType), at.Node, at.Task.Kind, obs, p.cfg.HP)
		js := p.jobs[app.ID]
		if js == nil {
			js = &jobSamples{byNode: map[string]*sample{}}
			p.jobs[app.ID] = js
		}
		s := js.byNode[at.Node]
		if s == nil {
			s = &sample{}
			js.byNode[at.Node] = s
		}
		s.add(at.Task.Kind, obs)
		js.all.add(at.Task.Kind, obs)
	}
}

// Weights are the stage weights SAMR uses for a task of app on node
// (Fig. 2, step 2): HP of the node's history plus 1 − HP of what the job's
// finished tasks of the kind showed (on that node if any finished there,
// else anywhere); history alone before the job finished any.
func (p *Plugin) Weights(app *cluster.App, node string, kind events.TaskKind) taskstat.Weights {
	hist := p.hist.weights(jobTypeOf(app.JobType), node, kind)
	js := p.jobs[app.ID]
	if js == nil {
		return hist
	}
	if s := js.byNode[node]; s.n(kind) > 0 {
		return blend(kind, hist, s.w, p.cfg.HP)
	}
	if js.all.n(kind) > 0 {
		return blend(kind, hist, js.all.w, p.cfg.HP)
	}
	return hist
}

// estimate is one running attempt as SAMR sees it.
type estimate struct {
	at          *cluster.Attempt
	kind        events.TaskKind
	ps, pr, tte float64
	elapsed     int64
	group       int
}

type jobRate struct {
	app  *cluster.App
	kind events.TaskKind
	apr  float64 // eq. 7
	n    int
}

// Speculate implements policy.Speculator: classify nodes, find slow tasks,
// launch backups.
func (p *Plugin) Speculate(_ context.Context, v cluster.View) ([]policy.Hint, *policy.Status) {
	now := v.Now()
	running := taskstat.Running(v)
	outstanding := p.proposals.Outstanding(v, now, p.cfg.ReproposeMS)

	ests, groups := p.estimates(running, now)
	out := p.classifyNodes(v, ests, groups)

	// Slow tasks (eq. 6), longest time to end first.
	var slow []*estimate
	for i := range ests {
		e := &ests[i]
		g := groups[e.group]
		t := e.at.Task
		if !(e.pr < (1-p.cfg.STaC)*p.slowTaskAPR(g)) { // eq. 6
			continue
		}
		if e.at.Speculative || taskstat.HasRunningCopy(t) || taskstat.WaitsForMaps(e.at) ||
			g.app.Count[e.kind].Pending > 0 || // new tasks first (Fig. 4)
			p.proposals.Recent(taskstat.Key(t), now, p.cfg.ReproposeMS) {
			continue
		}
		slow = append(slow, e)
	}
	slices.SortStableFunc(slow, func(a, b *estimate) int {
		if c := cmp.Compare(b.tte, a.tte); c != 0 {
			return c
		}
		return cmp.Compare(taskstat.Key(a.at.Task), taskstat.Key(b.at.Task))
	})

	backups := taskstat.RunningSpeculative(running) + outstanding
	taskNum := len(running)
	free := capacity.New(v)
	for _, e := range slow {
		if !(float64(backups) < p.cfg.BP*float64(taskNum)) { // eq. 15
			break
		}
		slowFor := p.slow[e.kind]
		node := free.Pick(capacity.NeedOf(e.at), func(n *cluster.Node) bool { return !slowFor[n.ID] }, e.at.Node)
		if node == nil {
			continue
		}
		t := e.at.Task
		g := groups[e.group]
		p.proposals.Add(taskstat.Key(t), now)
		out = append(out, policy.Hint{
			Kind: policy.KindSpeculate, App: t.App.ID, Task: t.ID, Attempt: e.at.ID, Node: node.ID,
			EstRemainingMS: int64(e.tte),
			EstBackupMS:    taskstat.EstBackupMS(p.durations.Of(t.App.ID, e.kind), g.apr),
			Reason: fmt.Sprintf("samr: PR %.3g/s < (1-STaC)*APR %.3g/s (eq. 6), TTE %.0f ms (eq. 5); backups %d < BP*tasks %.1f (eq. 15); %s not %s-slow",
				e.pr*1000, (1-p.cfg.STaC)*g.apr*1000, e.tte, backups, p.cfg.BP*float64(taskNum), node.ID, e.kind),
		})
		backups++
	}
	return out, nil
}

// slowTaskAPR is eq. 7's average progress rate over the job's tasks of the
// kind, its finished tasks included (rate 1/duration): a job's last tasks,
// alone in their wave, would otherwise be their own reference and never slow
// (see taskstat.Durations.Rates). Node classification keeps eq. 7 over the
// running tasks.
func (p *Plugin) slowTaskAPR(g *jobRate) float64 {
	doneSum, done := p.durations.RateSum(g.app.ID, g.kind)
	if done == 0 {
		return g.apr
	}
	return (g.apr*float64(g.n) + doneSum) / float64(g.n+done)
}

// estimates computes PS (eq. 16–18 with the tuned weights), PR (eq. 4) and
// TTE (eq. 5) of every running attempt old enough to judge, and each job's
// APR per kind over those (eq. 7).
func (p *Plugin) estimates(running []*cluster.Attempt, now int64) ([]estimate, []*jobRate) {
	var (
		ests   = make([]estimate, 0, len(running))
		groups []*jobRate
		index  = map[taskstat.JobKind]int{}
	)
	for _, at := range running {
		// Rates of attempts younger than the lag, or that have not reported
		// yet, are noise: they neither get judged nor set the averages.
		el := taskstat.Elapsed(at, now)
		if el <= 0 || el < p.cfg.MinRuntimeMS || at.ProgressTS == 0 {
			continue
		}
		t := at.Task
		w := p.Weights(t.App, at.Node, t.Kind)
		ps := taskstat.ProgressScore(at, t.Kind, w)
		pr := taskstat.ProgressRate(ps, el)
		k := taskstat.JobKind{App: t.App, Kind: t.Kind}
		gi, ok := index[k]
		if !ok {
			gi = len(groups)
			index[k] = gi
			groups = append(groups, &jobRate{app: t.App, kind: t.Kind})
		}
		g := groups[gi]
		g.apr += pr
		g.n++
		ests = append(ests, estimate{at: at, kind: t.Kind, ps: ps, pr: pr, tte: taskstat.TimeToEnd(ps, pr), elapsed: el, group: gi})
	}
	for _, g := range groups {
		g.apr /= float64(g.n) // eq. 7
	}
	return ests, groups
}

// classifyNodes finds the map-slow and reduce-slow nodes (eq. 8–14) and
// returns node-class hints for slow nodes and for nodes that stopped being
// slow.
func (p *Plugin) classifyNodes(v cluster.View, ests []estimate, groups []*jobRate) []policy.Hint {
	var nodes []string
	for _, n := range v.Nodes() {
		if n.State == cluster.NodeRunning {
			nodes = append(nodes, n.ID)
		}
	}
	for _, kind := range []events.TaskKind{events.Map, events.Reduce} {
		// TrR per node (eq. 8–9). A task's PR is taken relative to its job's
		// APR: rates of different jobs are not comparable, and with one job
		// the test below is exactly eq. 12–13.
		sum := map[string]float64{}
		cnt := map[string]int{}
		for _, e := range ests {
			if e.kind != kind {
				continue
			}
			rel := 1.0
			if apr := groups[e.group].apr; apr > 0 {
				rel = e.pr / apr
			}
			sum[e.at.Node] += rel
			cnt[e.at.Node]++
		}
		// One node alone has nothing to be compared with: everyone keeps
		// their class until two nodes run tasks of the kind.
		if len(cnt) < 2 {
			continue
		}
		rates := make([]NodeRate, 0, len(nodes))
		for _, id := range nodes {
			r := NodeRate{Node: id, Fresh: cnt[id] > 0}
			if r.Fresh {
				r.TrR = sum[id] / float64(cnt[id])
			} else {
				r.Slow, r.Ratio = p.slow[kind][id], p.ratio[kind][id]
			}
			rates = append(rates, r)
		}
		slowSet, ratios := SlowNodes(rates, p.cfg.STrC, p.cfg.STrP)
		p.slow[kind] = slowSet
		for id, r := range ratios { // per-key copy: order does not matter
			p.ratio[kind][id] = r
		}
	}
	var out []policy.Hint
	for _, id := range nodes {
		now := [2]bool{p.slow[events.Map][id], p.slow[events.Reduce][id]}
		before := p.class[id]
		if now == before && !now[0] && !now[1] {
			continue
		}
		p.class[id] = now
		out = append(out, policy.Hint{Kind: policy.KindNodeClass, Node: id, MapSlow: now[0], ReduceSlow: now[1],
			Reason: fmt.Sprintf("samr: task rate vs. the nodes' average: map %.2f, reduce %.2f (eq. 12-13, STrC %.2f; eq. 14, STrP %.2f)",
				p.ratio[events.Map][id], p.ratio[events.Reduce][id], p.cfg.STrC, p.cfg.STrP)})
	}
	return out
}

// NodeRate is one node's rate for one task kind.
type NodeRate struct {
	Node string
	// Fresh: the node runs tasks of the kind now and TrR is its average rate
	// (eq. 8–9). Otherwise Slow and Ratio are its last class and TrR/ATrR.
	Fresh bool
	TrR   float64
	Slow  bool
	Ratio float64
}

// SlowNodes applies eq. 10–14: ATrR is the average TrR of the nodes with
// fresh rates (eq. 10–11); a node is slow when TrR < (1 − STrC)·ATrR
// (eq. 12–13), or, without a fresh rate, when it was slow before. Eq. 14
// keeps SlowTrackerNum < STrP·TrackerNum by keeping only the slowest. It
// returns the slow set and TrR/ATrR of the fresh nodes.
func SlowNodes(rates []NodeRate, strc, strp float64) (map[string]bool, map[string]float64) {
	atrr, n := 0.0, 0
	for _, r := range rates {
		if r.Fresh {
			atrr += r.TrR
			n++
		}
	}
	ratios := map[string]float64{}
	type cand struct {
		node  string
		ratio float64
	}
	var cands []cand
	if n > 0 {
		atrr /= float64(n)
	}
	for _, r := range rates {
		switch {
		case r.Fresh && atrr > 0:
			ratio := r.TrR / atrr
			ratios[r.Node] = ratio
			if r.TrR < (1-strc)*atrr {
				cands = append(cands, cand{r.Node, ratio})
			}
		case !r.Fresh && r.Slow:
			cands = append(cands, cand{r.Node, r.Ratio})
		}
	}
	slices.SortStableFunc(cands, func(a, b cand) int {
		if c := cmp.Compare(a.ratio, b.ratio); c != 0 {
			return c
		}
		return cmp.Compare(a.node, b.node)
	})
	slow := map[string]bool{}
	trackers := float64(len(rates))
	for _, c := range cands {
		if !(float64(len(slow)+1) < strp*trackers) { // eq. 14
			break
		}
		slow[c.node] = true
	}
	return slow, ratios
}

// Config returns the parameters in force.
func (p *Plugin) Config() Config { return p.cfg }
