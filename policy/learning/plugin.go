package learning

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"

	"github.com/rs/zerolog"

	"github.com/rmsidecar/rmsidecar/cluster"
	"github.com/rmsidecar/rmsidecar/events"
	"github.com/rmsidecar/rmsidecar/policy"
)

// Registered names.
const (
	NameNB         = "learning-nb"
	NamePerceptron = "learning-perceptron"
)

// ProfileNS is the profiles namespace of the learned models.
const ProfileNS = "learning"

// jobsKey is the profiles key of the remembered job features, shared by
// both classifiers.
const jobsKey = "jobs"

// model is what a plugin stores under its own name.
type model struct {
	Layout     int         `json:"layout"`
	Rules      string      `json:"rules"`
	NB         *NaiveBayes `json:"nb,omitempty"`
	Perceptron *Perceptron `json:"perceptron,omitempty"`
	Judged     int         `json:"judged"`
}

// jobMemory is the "system which can provide" job features of §IV-A: the
// features last submitted for each job type, and how often each value of
// each resource was seen, whose mode stands in for a job without features
// (§V-A).
type jobMemory struct {
	ByType map[string]JobFeatures `json:"by_type"`
	Seen   [4][11]int             `json:"seen"`
}

// decision is one assignment awaiting judgement at the node's next heartbeat.
type decision struct {
	ts       int64
	app      string
	task     string
	jobType  string
	bins     []int
	vec      []float64
	good     bool // the classifier's label
	explored bool
}

// nodeState is what the shaper needs of a node.
type nodeState struct {
	predictedAt int64 // heartbeat time of the last classification
	decided     bool  // a classification was made at predictedAt
	overload    bool  // every candidate was bad then
	shrunk      bool  // a shrinking node-capacity hint is in force
	vcores, mem int   // the largest capacity registered, restored later
}

// Plugin is the learning scheduler with one of the two classifiers.
type Plugin struct {
	name  string
	cfg   Config
	store policy.ProfileStore
	log   zerolog.Logger
	rng   *rand.Rand

	m     model
	jobs  jobMemory
	dirty bool

	pending   map[string][]decision
	nodes     map[string]*nodeState
	placed    map[string]int64 // task -> when it was placed
	prunedAt  int64            // when placed was last pruned
	index     map[string]*taskIndex
	utilities map[string]Utility
	defUtil   Utility
	acc       accuracy
}

var (
	_ policy.Observer = (*Plugin)(nil)
	_ policy.Assigner = (*Plugin)(nil)
	_ policy.Shaper   = (*Plugin)(nil)
	_ policy.Flusher  = (*Plugin)(nil)
)

// NewNBPlugin builds learning-nb (a policy.Factory).
func NewNBPlugin(ctx context.Context, h policy.Handle) (policy.Plugin, error) {
	return New(ctx, NameNB, h)
}

// NewPerceptronPlugin builds learning-perceptron (a policy.Factory).
func NewPerceptronPlugin(ctx context.Context, h policy.Handle) (policy.Plugin, error) {
	return New(ctx, NamePerceptron, h)
}

// New builds the named plugin and loads its model from h.Profiles.
func New(ctx context.Context, name string, h policy.Handle) (*Plugin, error) {
	if name != NameNB && name != NamePerceptron {
		return nil, fmt.Errorf("learning: unknown plugin %q", name)
	}
	cfg := DefaultConfig()
	if err := h.DecodeArgs(name, &cfg); err != nil {
		return nil, err
	}
	if err := cfg.validate(); err != nil {
		return nil, fmt.Errorf("policies.%s.%w", name, err)
	}
	def, _ := ParseUtility(cfg.Utility) // validated above
	p := &Plugin{
		name: name, cfg: cfg, store: h.Profiles, log: h.Log,
		rng:     rand.New(rand.NewPCG(h.Seed, 0x6c6561726e)),
		pending: map[string][]decision{}, nodes: map[string]*nodeState{}, placed: map[string]int64{},
		index:     map[string]*taskIndex{},
		utilities: map[string]Utility{}, defUtil: def,
		acc: accuracy{size: cfg.AccuracyWindow, byType: map[string][]Window{}},
	}
	p.jobs.ByType = map[string]JobFeatures{}
	if err := p.load(ctx); err != nil {
		return nil, err
	}
	return p, nil
}

// fresh returns an untrained model.
func (p *Plugin) fresh() model {
	m := model{Layout: layoutVersion, Rules: p.cfg.rulesKey()}
	if p.name == NameNB {
		m.NB = NewNaiveBayes(featureBins(), p.cfg.Laplace)
	} else {
		m.Perceptron = NewPerceptron(NumFeatures, p.cfg.Alpha, p.cfg.InitialBias)
	}
	return m
}

// load reads the model and job features; a model of another feature layout
// or other overload rules is set aside (and overwritten at the next Flush).
func (p *Plugin) load(ctx context.Context) error {
	p.m = p.fresh()
	if p.store == nil {
		return nil
	}
	var m model
	found, err := p.store.Get(ctx, ProfileNS, p.name, &m)
	if err != nil {
		return fmt.Errorf("%s: load model: %w", p.name, err)
	}
	if found {
		switch {
		case m.Layout != layoutVersion:
			p.log.Warn().Int("layout", m.Layout).Msg("stored model has another feature layout; learning afresh")
		case m.Rules != p.m.Rules:
			p.log.Warn().Str("stored_rules", m.Rules).Str("rules", p.m.Rules).
				Msg("stored model was learned under other overload rules; learning afresh")
		case p.name == NameNB && (m.NB == nil || m.NB.check(make([]int, NumFeatures)) != nil || len(m.NB.Count[1]) != NumFeatures):
			p.log.Warn().Msg("stored Naive Bayes model is malformed; learning afresh")
		case p.name == NamePerceptron && (m.Perceptron == nil || len(m.Perceptron.W) != NumFeatures):
			p.log.Warn().Msg("stored perceptron is malformed; learning afresh")
		default:
			if m.NB != nil {
				m.NB.Laplace = p.cfg.Laplace
			}
			if m.Perceptron != nil {
				m.Perceptron.Alpha = p.cfg.Alpha
			}
			p.m = m
		}
	}
	var jm jobMemory
	if _, err := p.store.Get(ctx, ProfileNS, jobsKey, &jm); err != nil {
		return fmt.Errorf("%s: load job features: %w", p.name, err)
	}
	if jm.ByType != nil {
		p.jobs = jm
	}
	return nil
}

// Flush implements policy.Flusher: it writes the model and job features.
func (p *Plugin) Flush(ctx context.Context) error {
	if p.store == nil || !p.dirty {
		return nil
	}
	if err := p.store.Put(ctx, ProfileNS, p.name, &p.m); err != nil {
		return fmt.Errorf("%s: store model: %w", p.name, err)
	}
	if err := p.store.Put(ctx, ProfileNS, jobsKey, &p.jobs); err != nil {
		return fmt.Errorf("%s: store job features: %w", p.name, err)
	}
	p.dirty = false
	return nil
}

// Name implements policy.Plugin.
func (p *Plugin) Name() string { return p.name }

// Config returns the plugin's configuration (with defaults filled).
func (p *Plugin) Config() Config { return p.cfg }

// NaiveBayes returns the Naive Bayes model (nil for learning-perceptron).
func (p *Plugin) NaiveBayes() *NaiveBayes { return p.m.NB }

// Perceptron returns the perceptron (nil for learning-nb).
func (p *Plugin) Perceptron() *Perceptron { return p.m.Perceptron }

// Judged is the number of decisions judged and learned from, over the
// model's whole life (including before a restart).
func (p *Plugin) Judged() int { return p.m.Judged }

// Observe implements policy.Observer: it remembers job features and
// utilities, and judges the node's pending decisions on its heartbeat.
func (p *Plugin) Observe(_ context.Context, ev *events.Event, v cluster.View) {
	switch ev.Type {
	case events.AppSubmitted:
		if ev.Features != nil {
			f := fromEvents(ev.Features)
			p.jobs.ByType[jobType(ev.JobType)] = f
			for i, x := range f.values() {
				p.jobs.Seen[i][clampInt(x, 1, 10)]++
			}
			p.dirty = true
		}
		if ev.Utility != "" {
			u, err := ParseUtility(ev.Utility)
			if err != nil {
				p.log.Warn().Str("app", ev.App).Err(err).Msg("app utility; using the default")
				u = p.defUtil
			}
			p.utilities[ev.App] = u
		}
	case events.AppFinished:
		delete(p.utilities, ev.App)
		delete(p.index, ev.App)
	case events.NodeLost:
		delete(p.pending, ev.Node)
		delete(p.nodes, ev.Node)
	case events.NodeHeartbeat:
		p.judge(ev, v)
	}
}

// judge labels the decisions made at an earlier heartbeat of the node by
// the overload rules applied to its state now (§IV, §V-A: "A decision made
// for the current heartbeat is evaluated in the next heartbeat"), and
// trains the classifier on them.
func (p *Plugin) judge(ev *events.Event, v cluster.View) {
	ds := p.pending[ev.Node]
	if len(ds) == 0 {
		return
	}
	n := v.Node(ev.Node)
	if n == nil {
		return
	}
	good := !Overloaded(p.cfg.Overload, n)
	kept := ds[:0]
	for _, d := range ds {
		if d.ts >= ev.TS {
			kept = append(kept, d)
			continue
		}
		if p.m.NB != nil {
			p.m.NB.Learn(d.bins, good)
		} else {
			p.m.Perceptron.Learn(d.vec, good)
		}
		p.m.Judged++
		p.dirty = true
		p.acc.add(d.jobType, d.good == good)
	}
	if len(kept) == 0 {
		delete(p.pending, ev.Node)
	} else {
		p.pending[ev.Node] = kept
	}
}

func jobType(t string) string {
	if t == "" {
		return "default"
	}
	return t
}

// jobFeatures are the app's submitted features, else those remembered for
// its job type, else the mode of every value seen per resource (§V-A), else
// the configured default.
func (p *Plugin) jobFeatures(a *cluster.App) JobFeatures {
	if a.Features != nil {
		return fromEvents(a.Features)
	}
	if f, ok := p.jobs.ByType[jobType(a.JobType)]; ok {
		return f
	}
	var m [4]int
	for i := range m {
		best, bestN := p.cfg.DefaultJobFeature, 0
		for x := 1; x <= 10; x++ {
			if c := p.jobs.Seen[i][x]; c > bestN {
				best, bestN = x, c
			}
		}
		m[i] = best
	}
	return JobFeatures{CPU: m[0], Memory: m[1], Disk: m[2], Network: m[3]}
}

func (p *Plugin) utility(a *cluster.App) Utility {
	if u, ok := p.utilities[a.ID]; ok {
		return u
	}
	if a.Utility != "" { // submitted before this instance started
		u, err := ParseUtility(a.Utility)
		if err != nil {
			u = p.defUtil
		}
		p.utilities[a.ID] = u
		return u
	}
	return p.defUtil
}

// scored is one candidate as the classifier saw it.
type scored struct {
	c      Candidate
	task   *cluster.Task
	loc    events.Locality
	u      float64
	good   bool
	weight float64 // P(good)·∏P(F_i|good) (NB) or 1 (perceptron)
	pGood  float64
	margin float64 // W·F + b (perceptron)
	bins   []int
	vec    []float64
}

// eu is the expected utility of eq. 1 (E.U.* for Naive Bayes).
func (s *scored) eu() float64 { return s.u * s.weight }

// better orders candidates: higher expected utility, then (perceptron)
// higher margin; earlier candidates win ties, so the order is the apps'.
func better(a, b *scored) bool {
	if a.eu() != b.eu() {
		return a.eu() > b.eu()
	}
	return a.margin > b.margin
}

// Assign implements policy.Assigner: classify every candidate for the node
// and place a task of the good one with the highest expected utility.
func (p *Plugin) Assign(_ context.Context, v cluster.View, n *cluster.Node) ([]policy.Hint, *policy.Status) {
	if n.State == cluster.NodeLost {
		return nil, policy.NewStatus(policy.Skip, "node lost")
	}
	now := v.Now()
	p.prunePlaced(now)
	st := p.nodes[n.ID]
	if st == nil {
		st = &nodeState{}
		p.nodes[n.ID] = st
	}
	if st.decided && st.predictedAt == n.HeartbeatTS {
		// An older heartbeat arriving late changes the node's history, not
		// its latest reading: this heartbeat was decided already.
		return nil, policy.NewStatus(policy.Skip, "heartbeat already decided")
	}
	st.vcores, st.mem = max(st.vcores, n.VCores), max(st.mem, n.MemoryMB)
	st.predictedAt, st.overload, st.decided = n.HeartbeatTS, false, true

	nf := nodeFeatures(n)
	env := p.env(v)
	var (
		hints []policy.Hint
		taken []*cluster.Task
	)
	for range p.cfg.TasksPerHeartbeat {
		var best, bestAny *scored
		considered := 0
		for _, a := range v.Apps() {
			if a.Finished() {
				continue
			}
			for _, kind := range []events.TaskKind{events.Map, events.Reduce} {
				if c := a.Count[kind]; c == nil || c.Pending == 0 {
					continue
				}
				cand := Candidate{App: a, Kind: kind}
				u := p.utility(a).Value(cand, env)
				if u <= 0 {
					continue
				}
				t, loc := p.pickTask(v, a, kind, n, now, taken)
				if t == nil {
					continue
				}
				considered++
				s := p.classify(cand, t, loc, u, nf)
				if s.good && (best == nil || better(s, best)) {
					best = s
				}
				if bestAny == nil || p.moreLikely(s, bestAny) {
					bestAny = s
				}
			}
		}
		explored := false
		if best == nil && considered > 0 {
			st.overload = true
			// All bad: no assignment (§IV), unless exploring on a node
			// that is not overloaded (see Config.Explore).
			if p.cfg.Explore > 0 && !Overloaded(p.cfg.Overload, n) && p.rng.Float64() < p.cfg.Explore {
				best, explored = bestAny, true
			}
		}
		if best == nil {
			break
		}
		taken = append(taken, best.task)
		p.placed[best.task.ID] = now
		p.pending[n.ID] = append(p.pending[n.ID], decision{ts: n.HeartbeatTS, app: best.c.App.ID, task: best.task.ID,
			jobType: jobType(best.c.App.JobType), bins: best.bins, vec: best.vec, good: best.good, explored: explored})
		reason := fmt.Sprintf("%s: E.U.=%.4g U=%.4g P(good)=%.3f", p.name, best.eu(), best.u, best.pGood)
		if p.m.Perceptron != nil {
			reason = fmt.Sprintf("%s: U=%.4g W·F+b=%.3f", p.name, best.u, best.margin)
		}
		if explored {
			reason += " (exploring: every candidate was bad)"
		}
		hints = append(hints, policy.Hint{Kind: policy.KindPlace, App: best.c.App.ID, Task: best.task.ID,
			Nodes: []policy.NodeScore{{Node: n.ID, Score: best.eu(), Locality: best.loc}}, Reason: reason})
	}
	if len(hints) == 0 {
		if st.overload {
			return nil, policy.NewStatus(policy.Skip, "every candidate classified bad")
		}
		return nil, policy.NewStatus(policy.Skip, "no candidate")
	}
	return hints, nil
}

// moreLikely orders candidates for exploration: the one most likely good.
func (p *Plugin) moreLikely(a, b *scored) bool {
	if p.m.NB != nil {
		return a.u*a.pGood > b.u*b.pGood
	}
	return a.margin > b.margin
}

func (p *Plugin) classify(c Candidate, t *cluster.Task, loc events.Locality, u float64, nf Features) *scored {
	f := nf
	f.Job = p.jobFeatures(c.App)
	f.Reduce = c.Kind == events.Reduce
	s := &scored{c: c, task: t, loc: loc, u: u}
	if p.m.NB != nil {
		s.bins = f.Bins(p.cfg.Target)
		s.good, s.weight, s.pGood = p.m.NB.Classify(s.bins)
		return s
	}
	s.vec = f.Vector(p.cfg.Target)
	s.margin = p.m.Perceptron.Margin(s.vec)
	s.good = s.margin > 0
	s.weight = 1
	if s.good {
		s.pGood = 1
	}
	return s
}

// pickTask returns a pending task of the app's part for node n: a data-local
// map first, then a rack-local one, then any (§IV: "the same as used by the
// default Hadoop scheduler"). Tasks placed within PlaceHold are skipped.
func (p *Plugin) pickTask(v cluster.View, a *cluster.App, kind events.TaskKind, n *cluster.Node, now int64, taken []*cluster.Task) (*cluster.Task, events.Locality) {
	free := func(t *cluster.Task) bool {
		if t.Kind != kind || t.State != cluster.TaskPending || slices.Contains(taken, t) {
			return false
		}
		_, held := p.placeHeld(t, now)
		return !held
	}
	ix := p.indexOf(v, a)
	if kind == events.Map {
		if n.ID != n.Host() {
			if t := ix.first(ix.byHost, n.ID, free); t != nil {
				return t, events.NodeLocal
			}
		}
		if t := ix.first(ix.byHost, n.Host(), free); t != nil {
			return t, events.NodeLocal
		}
		if n.Rack != "" {
			if t := ix.first(ix.byRack, n.Rack, free); t != nil {
				return t, events.RackLocal
			}
		}
	}
	// Succeeded tasks never run again: skip them for good.
	for ix.from < len(a.Tasks) && a.Tasks[ix.from].State == cluster.TaskSucceeded {
		ix.from++
	}
	mk := &ix.scan[kindSlot(kind)]
	if mk.repended != a.Repended || now >= mk.until {
		*mk = scanMark{repended: a.Repended, until: math.MaxInt64}
	}
	mk.at = max(mk.at, ix.from)
	marking := true
	for i := mk.at; i < len(a.Tasks); i++ {
		t := a.Tasks[i]
		// free, with the placement read once: a task not free is so for
		// good while no task re-pends, or until its placement's hold ends;
		// else (taken within this call, with no hold) the mark stops here.
		if t.Kind != kind || t.State != cluster.TaskPending {
			if marking {
				mk.at = i + 1
			}
			continue
		}
		end, held := p.placeHeld(t, now)
		if !held && !slices.Contains(taken, t) {
			if kind == events.Map {
				return t, localityOf(v, t, n)
			}
			return t, ""
		}
		if marking && held {
			mk.until = min(mk.until, end)
			mk.at = i + 1
		} else {
			marking = false
		}
	}
	return nil, ""
}

// placeHeld returns when t's latest placement stops holding it
// (PlaceHold after it), and whether that is still ahead of now.
func (p *Plugin) placeHeld(t *cluster.Task, now int64) (end int64, held bool) {
	at, ok := p.placed[t.ID]
	if !ok {
		return 0, false
	}
	end = at + p.cfg.PlaceHold.Milliseconds()
	return end, now < end
}

// scanMark is how far pickTask's walk over a job's tasks for one kind may
// start: a.Tasks[from:at] were none free when walked, as they stay while
// a.Repended does not move and until the earliest placement among them
// expires. On a 3,000-node day the walk from the first unfinished task,
// over maps running or placed within PlaceHold, was a third of the
// plugin's time.
type scanMark struct {
	at       int
	until    int64
	repended uint64
}

func kindSlot(k events.TaskKind) int {
	if k == events.Map {
		return 0
	}
	return 1
}

// taskIndex is a job's pending maps by the hosts (cluster.HostOf, or the
// node id when a split host names one) and racks
// holding their input, Hadoop's per-node task cache, so a heartbeat does not
// scan the job.
type taskIndex struct {
	byHost, byRack map[string][]*cluster.Task
	seen           int         // a.Tasks[:seen] are indexed
	from           int         // a.Tasks[:from] have all succeeded
	scan           [2]scanMark // by kindSlot
}

// indexOf returns the app's index, adding the tasks that appeared since.
func (p *Plugin) indexOf(v cluster.View, a *cluster.App) *taskIndex {
	ix := p.index[a.ID]
	if ix == nil {
		ix = &taskIndex{byHost: map[string][]*cluster.Task{}, byRack: map[string][]*cluster.Task{}}
		p.index[a.ID] = ix
	}
	for ; ix.seen < len(a.Tasks); ix.seen++ {
		t := a.Tasks[ix.seen]
		if t.Kind != events.Map {
			continue
		}
		var racks []string
		for _, s := range t.Splits {
			for _, h := range s.Hosts {
				host := cluster.HostOf(h)
				if cluster.PortOf(h) != "" {
					host = h // a node id: local to that NodeManager only (cluster.Node.OnHost)
				}
				if l := ix.byHost[host]; len(l) == 0 || l[len(l)-1] != t {
					ix.byHost[host] = append(l, t)
				}
				if rack := cluster.HostRack(v, h); rack != "" && !slices.Contains(racks, rack) {
					racks = append(racks, rack)
					ix.byRack[rack] = append(ix.byRack[rack], t)
				}
			}
		}
	}
	return ix
}

// first returns the first free task listed under key, dropping the tasks
// that are no longer pending from the front of the list.
func (ix *taskIndex) first(m map[string][]*cluster.Task, key string, free func(*cluster.Task) bool) *cluster.Task {
	l := m[key]
	for len(l) > 0 && l[0].State != cluster.TaskPending {
		l = l[1:]
	}
	if len(l) == 0 {
		delete(m, key)
		return nil
	}
	m[key] = l
	for _, t := range l {
		if free(t) {
			return t
		}
	}
	return nil
}

// prunePlaced forgets placements older than PlaceHold. pickTask compares
// the time itself, so pruning is only for memory: it runs once per PlaceHold
// (a pass over the map at every heartbeat was a third of a simulated day).
func (p *Plugin) prunePlaced(now int64) {
	hold := p.cfg.PlaceHold.Milliseconds()
	if now-p.prunedAt < hold && now >= p.prunedAt {
		return
	}
	p.prunedAt = now
	for id, at := range p.placed {
		if now-at >= hold {
			delete(p.placed, id) // deleting in any order leaves the same map
		}
	}
}

// env builds what utilities read.
func (p *Plugin) env(v cluster.View) *Env {
	return &Env{View: v, Budgets: p.cfg.Budgets}
}

// Shape implements policy.Shaper: a node whose candidates were all
// classified bad at its latest heartbeat is predicted to overload with any
// further task, so its advertised capacity shrinks to what it uses; once a
// candidate is good again (or there is nothing left to classify) the
// registered capacity is restored, as it is when the prediction is older
// than ShrinkHold.
func (p *Plugin) Shape(_ context.Context, v cluster.View) ([]policy.Hint, *policy.Status) {
	if !p.cfg.Shape {
		return nil, policy.NewStatus(policy.Skip, "shaping off")
	}
	var out []policy.Hint
	for _, n := range v.Nodes() {
		st := p.nodes[n.ID]
		if st == nil {
			continue
		}
		predicted := st.overload && st.predictedAt == n.HeartbeatTS && n.State != cluster.NodeLost &&
			v.Now()-st.predictedAt < p.cfg.ShrinkHold.Milliseconds()
		switch {
		case predicted:
			// Advertise what the node uses, so the RM adds nothing; if it is
			// overloaded already, one container less, so the next container
			// to finish is not replaced (YARN cannot take one back). At least
			// 1 vcore and 1 MB: a 0/0 capacity reads as "restore" to the
			// simulator, and 1 MB fits no container anyway.
			vc, mem := n.UsedVCores, n.UsedMemoryMB
			reason := ": every candidate classified bad; predicted to overload with another task"
			if Overloaded(p.cfg.Overload, n) && vc > 1 {
				mem -= mem / vc
				vc--
				reason = ": overloaded and every candidate classified bad; one container less"
			}
			out = append(out, policy.Hint{Kind: policy.KindNodeCapacity, Node: n.ID,
				VCores: max(1, vc), MemoryMB: max(1, mem), Reason: p.name + reason})
			st.shrunk = true
		case p.cfg.Pace && n.State != cluster.NodeLost && st.vcores > 0:
			vc, mem := p.paced(n, st)
			if vc >= st.vcores && mem >= st.mem {
				if st.shrunk {
					out = append(out, policy.Hint{Kind: policy.KindNodeCapacity, Node: n.ID, VCores: st.vcores, MemoryMB: st.mem,
						Reason: p.name + ": paced capacity reaches the registered one; restored"})
					st.shrunk = false
				}
				continue
			}
			out = append(out, policy.Hint{Kind: policy.KindNodeCapacity, Node: n.ID, VCores: vc, MemoryMB: mem,
				Reason: fmt.Sprintf("%s: paced: uses %d vcores, may take %d more task(s) until the next heartbeat", p.name, n.UsedVCores, p.cfg.TasksPerHeartbeat)})
			st.shrunk = true
		case st.shrunk:
			out = append(out, policy.Hint{Kind: policy.KindNodeCapacity, Node: n.ID, VCores: st.vcores, MemoryMB: st.mem,
				Reason: p.name + ": a candidate is classified good again; registered capacity restored"})
			st.shrunk = false
		}
	}
	return out, nil
}

// paced is the capacity a paced node advertises: what it uses plus
// tasks_per_heartbeat containers, a container being the node's mean running
// one (else one vcore and the registered memory per vcore), at most the
// registered capacity.
func (p *Plugin) paced(n *cluster.Node, st *nodeState) (vcores, memMB int) {
	cv, cm := 1, st.mem/st.vcores
	if k := len(n.Running); k > 0 && n.UsedVCores > 0 {
		cv, cm = max(1, n.UsedVCores/k), max(1, n.UsedMemoryMB/k)
	}
	k := p.cfg.TasksPerHeartbeat
	return min(st.vcores, n.UsedVCores+k*cv), min(st.mem, n.UsedMemoryMB+k*cm)
}

// Window is the accuracy of one run of consecutive judged decisions (Fig. 10
// reports "percentage accuracy per 250 decisions").
type Window struct {
	Decisions int     `json:"decisions"`
	Correct   int     `json:"correct"`
	Accuracy  float64 `json:"accuracy"`
}

type accuracy struct {
	size   int
	all    []Window
	byType map[string][]Window
}

func (a *accuracy) add(jobType string, correct bool) {
	a.all = addTo(a.all, a.size, correct)
	a.byType[jobType] = addTo(a.byType[jobType], a.size, correct)
}

func addTo(ws []Window, size int, correct bool) []Window {
	if len(ws) == 0 || ws[len(ws)-1].Decisions == size {
		ws = append(ws, Window{})
	}
	w := &ws[len(ws)-1]
	w.Decisions++
	if correct {
		w.Correct++
	}
	w.Accuracy = float64(w.Correct) / float64(w.Decisions)
	return ws
}

// Accuracy returns the accuracy per window of judged decisions since this
// instance started, oldest first; the last window may be partial. A decision
// is accurate when the overload rule confirms the classifier's label (§V-C).
func (p *Plugin) Accuracy() []Window { return slices.Clone(p.acc.all) }

// AccuracyOf is Accuracy for the decisions about one job type.
func (p *Plugin) AccuracyOf(jobType string) []Window { return slices.Clone(p.acc.byType[jobType]) }

// JobTypes lists the job types decided about, sorted.
func (p *Plugin) JobTypes() []string {
	out := make([]string, 0, len(p.acc.byType))
	for t := range p.acc.byType {
		out = append(out, t)
	}
	sort.Strings(out)
	return out
}

// ReadsFinishedApps tells the simulator to keep finished apps in the
// cluster model: the budget utility sums what every app of a user used,
// finished ones included (spentVCoreS). Without a configured budget or a
// budget default utility nothing reads them (an app's own utility naming a
// budget arrives with its events, after the model was set up).
func (p *Plugin) ReadsFinishedApps() bool {
	return len(p.cfg.Budgets) > 0 || strings.Contains(p.cfg.Utility, UtilityBudget)
}

// Extra returns the plugin's measurements for results.json's run "extra"
// (keys prefixed by the plugin name): judged decisions, overall accuracy,
// and the accuracy of every complete window in order.
func (p *Plugin) Extra() map[string]float64 {
	out := map[string]float64{}
	total, correct := 0, 0
	for i, w := range p.acc.all {
		total += w.Decisions
		correct += w.Correct
		if w.Decisions == p.acc.size {
			out[fmt.Sprintf("%s_accuracy_w%03d", p.name, i+1)] = w.Accuracy
		}
	}
	out[p.name+"_decisions"] = float64(total)
	if total > 0 {
		out[p.name+"_accuracy"] = float64(correct) / float64(total)
	}
	return out
}

// localityOf is the locality of map t on node n by its splits' hosts
// (off-rack when they name none).
func localityOf(v cluster.View, t *cluster.Task, n *cluster.Node) events.Locality {
	if loc := cluster.TaskLocality(v, n, t); loc != "" {
		return loc
	}
	return events.OffRack
}
