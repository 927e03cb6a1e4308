package erul

import (
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/rs/zerolog"

	"github.com/rmsidecar/rmsidecar/cluster"
	"github.com/rmsidecar/rmsidecar/events"
	"github.com/rmsidecar/rmsidecar/policy"
)

// Registered names.
const (
	NameERUL  = "erul"
	NameMCP   = "mcp"
	NameExMCP = "exmcp"
)

// benefitTest names the test that decides whether a backup is worth a slot.
type benefitTest int

const (
	testMCP   benefitTest = iota // eq. 16
	testExMCP                    // eq. 19
)

// Plugin is one of erul, mcp or exmcp: an Observer that follows attempts and
// learns node capabilities, a Speculator that proposes backups, and a
// Flusher that saves the capabilities.
type Plugin struct {
	name  string
	test  benefitTest
	cfg   Config
	store store
	log   zerolog.Logger

	caps   *capabilities
	tracks map[string]*attemptTrack // by attempt id
	phases map[string]*jobPhases    // by app id: phase times of finished attempts
	holds  map[string]hold          // by app/task: speculated, backup not yet running
}

// attemptTrack is what the plugin follows of one running attempt.
type attemptTrack struct {
	load *loadSeries // node load since the attempt started (Algorithm 1)
	// EWMA of the progress rate (per ms), the MCP estimate.
	rate         float64
	rateTS       int64
	rateProgress float64
	hasRate      bool
	// EWMA of the current phase's progress rate (per ms), for eq. 4.
	phase                 string
	phaseStartTS, phaseTS int64
	phaseProgress         float64
	phaseRate             float64
	phaseSamples          int
	hasPhaseRate          bool
}

// hold remembers a speculate hint so the task is not proposed again and the
// target's slot counts as taken until the backup runs or the hold expires.
type hold struct {
	app, task string
	until     int64
	node      string
	vcores    int
	memoryMB  int
}

var (
	_ policy.Observer   = (*Plugin)(nil)
	_ policy.Speculator = (*Plugin)(nil)
	_ policy.Flusher    = (*Plugin)(nil)
)

// NewERUL is the factory of erul.
func NewERUL(ctx context.Context, h policy.Handle) (policy.Plugin, error) {
	return newPlugin(ctx, h, NameERUL, EstimatorERUL, testMCP)
}

// NewMCP is the factory of mcp.
func NewMCP(ctx context.Context, h policy.Handle) (policy.Plugin, error) {
	return newPlugin(ctx, h, NameMCP, EstimatorEWMA, testMCP)
}

// NewExMCP is the factory of exmcp.
func NewExMCP(ctx context.Context, h policy.Handle) (policy.Plugin, error) {
	return newPlugin(ctx, h, NameExMCP, EstimatorEWMA, testExMCP)
}

func newPlugin(ctx context.Context, h policy.Handle, name string, est Estimator, test benefitTest) (*Plugin, error) {
	cfg := DefaultConfig(est)
	if err := h.DecodeArgs(name, &cfg); err != nil {
		return nil, err
	}
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("policies.%s.%w", name, err)
	}
	p := &Plugin{
		name: name, test: test, cfg: cfg, log: h.Log,
		caps:   newCapabilities(cfg.Alpha),
		tracks: map[string]*attemptTrack{},
		phases: map[string]*jobPhases{},
		holds:  map[string]hold{},
	}
	if h.Profiles != nil {
		p.store = h.Profiles
		var d capabilityDoc
		found, err := h.Profiles.Get(ctx, ProfileNamespace, profileKey(name), &d)
		if err != nil {
			return nil, fmt.Errorf("%s: load capabilities: %w", name, err)
		}
		if found {
			if err := p.caps.load(d); err != nil {
				return nil, fmt.Errorf("%s: load capabilities %s/%s: %w", name, ProfileNamespace, profileKey(name), err)
			}
		}
	}
	return p, nil
}

// Name implements policy.Plugin.
func (p *Plugin) Name() string { return p.name }

// Config returns the parameters in force.
func (p *Plugin) Config() Config { return p.cfg }

// Flush implements policy.Flusher: it saves the capabilities if they changed.
func (p *Plugin) Flush(ctx context.Context) error {
	if p.store == nil || !p.caps.dirty {
		return nil
	}
	if err := p.store.Put(ctx, ProfileNamespace, profileKey(p.name), p.caps.doc()); err != nil {
		return fmt.Errorf("%s: save capabilities: %w", p.name, err)
	}
	p.caps.dirty = false
	return nil
}

// Capability returns the capability the plugin has learned for a node and
// class from finished tasks (eq. 14).
func (p *Plugin) Capability(node string, cls TaskClass) (float64, bool) {
	return p.caps.get(node, cls)
}

// z is the system load z(t) of one reading.
func (p *Plugin) z(load1, cpu float64, vcores int) float64 {
	switch p.cfg.LoadSignal {
	case LoadPerVCore:
		return load1 / float64(max(1, vcores))
	case LoadCPU:
		return cpu
	}
	return load1
}

// Observe implements policy.Observer.
func (p *Plugin) Observe(_ context.Context, ev *events.Event, v cluster.View) {
	switch ev.Type {
	case events.ContainerAllocated:
		if at := v.Attempt(ev.Attempt); at != nil && at.Running() {
			p.track(v, at)
		}
	case events.NodeHeartbeat:
		n := v.Node(ev.Node)
		if n == nil {
			return
		}
		z := p.z(ev.Load1, ev.CPUUtil, n.VCores)
		for _, at := range n.Running {
			p.track(v, at).load.observe(ev.TS, z, p.cfg.Delta.Milliseconds())
		}
	case events.TaskProgress:
		if at := v.Attempt(ev.Attempt); at != nil && at.Running() {
			tr := p.track(v, at)
			prevTS := tr.rateTS
			if !tr.hasRate {
				prevTS = at.StartTS
			}
			tr.progress(ev.TS, ev.Progress, at.StartTS, p.cfg.Alpha)
			if ev.PhaseProgress != nil && ev.Phase != "" {
				tr.phaseProgressed(ev.TS, ev.Phase, *ev.PhaseProgress, prevTS, p.cfg.Alpha)
			}
		}
	case events.TaskFinished:
		at := v.Attempt(ev.Attempt)
		delete(p.tracks, ev.Attempt)
		if at != nil && ev.State == events.StateSucceeded {
			p.learn(v, at)
			p.learnPhases(at)
		}
	case events.AppFinished:
		delete(p.phases, ev.App)
	}
}

// learn updates the capability of the attempt's node for its class (eq. 14).
func (p *Plugin) learn(v cluster.View, at *cluster.Attempt) {
	if at.Node == "" || at.StartTS <= 0 || at.FinishTS <= at.StartTS {
		return
	}
	cls := attemptClass(v, at)
	exe := float64(at.FinishTS-at.StartTS) / 1000
	p.caps.learn(at.Node, cls, capabilitySample(cls.isMap(), exe, dataMB(at.Task, p.cfg.DefaultSplitMB)))
}

// track returns the attempt's track, building it from the node's load
// history when the plugin did not see the attempt start (a restart).
func (p *Plugin) track(v cluster.View, at *cluster.Attempt) *attemptTrack {
	if tr := p.tracks[at.ID]; tr != nil {
		return tr
	}
	var (
		hist   cluster.History
		vcores int
	)
	if n := v.Node(at.Node); n != nil {
		hist, vcores = n.History, n.VCores
	}
	// Algorithm 1 line 4: the load when the attempt started seeds the series.
	i := hist.Search(at.StartTS + 1)
	z0 := 0.0
	switch {
	case i > 0:
		s := hist.At(i - 1)
		z0 = p.z(s.Load1, s.CPUUtil, vcores)
	case hist.Len() > 0:
		s := hist.At(0)
		z0 = p.z(s.Load1, s.CPUUtil, vcores)
	}
	tr := &attemptTrack{load: newLoadSeries(at.StartTS, z0, p.cfg.K)}
	for j := i; j < hist.Len(); j++ {
		s := hist.At(j)
		tr.load.observe(s.TS, p.z(s.Load1, s.CPUUtil, vcores), p.cfg.Delta.Milliseconds())
	}
	p.tracks[at.ID] = tr
	return tr
}

// progress folds one progress report into the EWMA of the progress rate,
// smoothed like eq. 14: rate = α·rate + (1 − α)·sample.
func (tr *attemptTrack) progress(ts int64, progress float64, startTS int64, alpha float64) {
	if !tr.hasRate {
		if dt := ts - startTS; dt > 0 && progress > 0 {
			tr.rate, tr.hasRate = progress/float64(dt), true
		}
	} else if dt := ts - tr.rateTS; dt > 0 {
		sample := max(0, (progress-tr.rateProgress)/float64(dt))
		tr.rate = alpha*tr.rate + (1-alpha)*sample
	} else {
		return
	}
	tr.rateTS, tr.rateProgress = ts, progress
}

// remaining estimates the remaining seconds of a running attempt with the
// plugin's estimator; ok is false while it has no progress to go on.
func (p *Plugin) remaining(v cluster.View, at *cluster.Attempt, now int64) (float64, bool) {
	prog := at.Progress
	elapsed := float64(now-at.StartTS) / 1000
	if prog <= 0 || elapsed <= 0 {
		return 0, false
	}
	if prog >= 1 {
		return 0, true
	}
	tr := p.track(v, at)
	if p.cfg.Base == BasePhases {
		if rem, ok := p.phaseRemaining(at, tr); ok { // eq. 4
			if p.cfg.Estimator == EstimatorERUL {
				return erulRemaining(rem, tr.load.mean(), tr.load.estimate()), true // eq. 11
			}
			return rem, true
		}
	}
	if p.cfg.Estimator == EstimatorEWMA {
		if tr.hasRate && tr.rate > 0 {
			return (1 - prog) / tr.rate / 1000, true
		}
		return remainingNow(prog, elapsed), true
	}
	return erulRemaining(remainingNow(prog, elapsed), tr.load.mean(), tr.load.estimate()), true // eq. 9, 11
}

// candidate is one running task that may be backed up.
type candidate struct {
	at       *cluster.Attempt
	class    TaskClass
	rem      float64 // seconds
	data     float64 // MB (maps)
	priority float64
}

// Speculate implements policy.Speculator.
func (p *Plugin) Speculate(_ context.Context, v cluster.View) ([]policy.Hint, *policy.Status) {
	now := v.Now()
	p.sweep(v, now)
	// Backups need a free container: without one there is nothing to decide.
	order, totalFree := p.freeSlots(v)
	if totalFree == 0 {
		return nil, policy.NewStatus(policy.Skip, "no free container")
	}

	var byClass [numClasses][]candidate
	pending := 0
	lagMS := p.cfg.SpeculativeLag.Milliseconds()
	for _, app := range v.Apps() {
		if app.Finished() {
			continue
		}
		pending += app.Count[events.Map].Pending + app.Count[events.Reduce].Pending
		for _, t := range app.Tasks {
			if t.State != cluster.TaskRunning {
				continue
			}
			if _, held := p.holds[app.ID+"/"+t.ID]; held {
				continue
			}
			running := t.Running()
			if len(running) != 1 { // a copy already runs: never a third
				continue
			}
			at := running[0]
			if at.Node == "" || now-at.StartTS < lagMS || p.waitsForMaps(at, now) {
				continue
			}
			rem, ok := p.remaining(v, at, now)
			if !ok || rem <= 0 {
				continue
			}
			c := candidate{at: at, class: attemptClass(v, at), rem: rem}
			if c.class.isMap() {
				c.data = dataMB(t, p.cfg.DefaultSplitMB)
				c.priority = mapPriority(rem, c.data*(1-at.Progress)) // eq. 12
			} else {
				total, fetched := mapsFetched(at, app)
				c.priority = reducePriority(rem, total, fetched, p.cfg.ReduceAlpha, p.cfg.ReduceBeta) // eq. 13
			}
			byClass[c.class] = append(byClass[c.class], c)
		}
	}

	if len(byClass[OffRack])+len(byClass[RackLocal])+len(byClass[DataLocal])+len(byClass[Reduce]) == 0 {
		return nil, nil
	}
	eta := loadFactor(pending, totalFree) // eq. 17
	tg := p.newTargets(order, p.capabilityTable(v, now))

	var out []policy.Hint
	// §3.5: Off-Rack maps, Rack-Local maps, Data-Local maps, then reduces;
	// within a class the highest priority first.
	for cls := TaskClass(0); cls < numClasses; cls++ {
		cands := byClass[cls]
		slices.SortStableFunc(cands, func(a, b candidate) int {
			switch {
			case a.priority > b.priority:
				return -1
			case a.priority < b.priority:
				return 1
			}
			return 0
		})
		for _, c := range cands {
			if h, ok := p.consider(v, c, tg, eta, now); ok {
				out = append(out, h)
			}
		}
	}
	return out, nil
}

// mapsFetched returns Map_total and Map_fetched of eq. 13 for a reducer.
// Past the copy phase every map counts as fetched (§3.2.3).
func mapsFetched(at *cluster.Attempt, app *cluster.App) (total, fetched int) {
	total = at.MapsTotal
	if total <= 0 {
		total = app.Maps
	}
	if at.Phase != events.PhaseShuffle && at.Phase != "" {
		return total, total
	}
	if at.MapsTotal > 0 {
		return total, min(at.MapsFetched, total)
	}
	if at.Phase == events.PhaseShuffle {
		return total, int(at.PhaseProgress * float64(total))
	}
	return total, 0
}

// slot is the free capacity of one node.
type slot struct {
	node             *cluster.Node
	idx              int // order of the node in the view: ties go to the lower
	vcores, memoryMB int
}

// freeSlots returns each running node's free capacity (after the slots held
// for backups not yet running), the nodes in order, and the number of free
// map containers in the cluster (numfree_slots of eq. 17).
func (p *Plugin) freeSlots(v cluster.View) ([]*slot, int) {
	reserved := map[string]hold{}
	for _, h := range p.holds {
		if t := taskOf(v, h.app, h.task); t == nil || len(t.Running()) != 1 {
			continue // the backup runs (the heartbeat counts it) or the task ended
		}
		r := reserved[h.node]
		r.vcores += h.vcores
		r.memoryMB += h.memoryMB
		reserved[h.node] = r
	}
	var order []*slot
	total := 0
	for _, n := range v.Nodes() {
		if n.State != cluster.NodeRunning {
			continue
		}
		r := reserved[n.ID]
		s := &slot{node: n, idx: len(order), vcores: n.FreeVCores() - r.vcores, memoryMB: n.FreeMemoryMB() - r.memoryMB}
		order = append(order, s)
		total += s.fits(p.cfg.MapVCores, p.cfg.MapMemoryMB)
	}
	return order, total
}

// fits counts the containers of a size that fit in the slot.
func (s *slot) fits(vcores, memoryMB int) int {
	if s.vcores < vcores || s.memoryMB < memoryMB {
		return 0
	}
	return min(s.vcores/vcores, s.memoryMB/memoryMB)
}

// capTable is the capability of every running node per class at one tick,
// and the average per class, the dynamic threshold between fast and slow
// nodes (§2.3, §3.3).
type capTable struct {
	caps      map[string]*[numClasses]float64 // 0: unknown
	threshold [numClasses]float64
}

// capabilityTable combines the learned capabilities (eq. 14) with first
// estimates from running tasks (eq. 15). A node that knows some map class
// but not another gets the known one scaled by the cluster's ratio between
// the two classes in learned capabilities, never making a more remote read
// faster: the paper leaves unknown classes open, and without this a node
// would never qualify for Off-Rack backups before it ran one.
func (p *Plugin) capabilityTable(v cluster.View, now int64) capTable {
	t := capTable{caps: map[string]*[numClasses]float64{}}
	var sum, lsum [numClasses]float64
	var cnt, lcnt [numClasses]int
	var nodes []*cluster.Node
	for _, n := range v.Nodes() {
		if n.State != cluster.NodeRunning {
			continue
		}
		nodes = append(nodes, n)
		e := new([numClasses]float64)
		for cls := TaskClass(0); cls < numClasses; cls++ {
			if c, ok := p.caps.get(n.ID, cls); ok && c > 0 {
				e[cls] = c
				lsum[cls] += c
				lcnt[cls]++
			}
		}
		// eq. 15: the first running task of a class not yet learned.
		for _, at := range n.Running {
			cls := attemptClass(v, at)
			if e[cls] > 0 {
				continue
			}
			if rem, ok := p.remaining(v, at, now); ok {
				cost := float64(now-at.StartTS) / 1000
				if c := firstCapability(cls.isMap(), cost, rem, dataMB(at.Task, p.cfg.DefaultSplitMB)); c > 0 {
					e[cls] = c
				}
			}
		}
		for cls, c := range e {
			if c > 0 {
				sum[cls] += c
				cnt[cls]++
			}
		}
		t.caps[n.ID] = e
	}
	var learned [numClasses]float64
	for cls := range learned {
		if lcnt[cls] > 0 {
			learned[cls] = lsum[cls] / float64(lcnt[cls])
		}
	}
	sum, cnt = [numClasses]float64{}, [numClasses]int{}
	for _, n := range nodes {
		e := t.caps[n.ID]
		for cls := OffRack; cls < Reduce; cls++ {
			if e[cls] > 0 {
				continue
			}
			for _, from := range []TaskClass{DataLocal, RackLocal, OffRack} {
				if from == cls || e[from] <= 0 {
					continue
				}
				scale := 1.0
				if learned[cls] > 0 && learned[from] > 0 {
					scale = learned[cls] / learned[from]
				}
				// Class constants run from the most remote read (OffRack) to
				// the local one (DataLocal).
				if cls < from {
					scale = max(1, scale)
				} else {
					scale = min(1, scale)
				}
				e[cls] = e[from] * scale
				break
			}
		}
		for cls, c := range e {
			if c > 0 {
				sum[cls] += c
				cnt[cls]++
			}
		}
	}
	for cls := range t.threshold {
		if cnt[cls] > 0 {
			t.threshold[cls] = sum[cls] / float64(cnt[cls])
		}
	}
	return t
}

// fast reports whether a capability is at or below the class average
// (capabilities are times: lower is faster).
func (t capTable) fast(cls TaskClass, c float64) bool {
	return c > 0 && c <= t.threshold[cls]*(1+1e-9)
}

// targets indexes the free slots of one tick for the target search.
type targets struct {
	table  capTable
	byID   map[string]*slot
	byHost map[string]*slot // by cluster.HostOf(node id)
	// fast lists, per class, the nodes fast for it (§3.3), fastest first.
	fast [numClasses][]*slot
	head [numClasses]int // leading entries of fast already full
	minV int             // the smallest container: a slot below it is full
	minM int
}

func (p *Plugin) newTargets(order []*slot, table capTable) *targets {
	tg := &targets{table: table, byID: make(map[string]*slot, len(order)), byHost: make(map[string]*slot, len(order)),
		minV: min(p.cfg.MapVCores, p.cfg.ReduceVCores), minM: min(p.cfg.MapMemoryMB, p.cfg.ReduceMemoryMB)}
	for _, s := range order {
		tg.byID[s.node.ID] = s
		tg.byHost[s.node.Host()] = s
		caps := table.caps[s.node.ID]
		for cls := TaskClass(0); cls < numClasses; cls++ {
			if caps != nil && table.fast(cls, caps[cls]) {
				tg.fast[cls] = append(tg.fast[cls], s)
			}
		}
	}
	for cls := range tg.fast {
		slices.SortStableFunc(tg.fast[cls], func(a, b *slot) int {
			ca, cb := table.caps[a.node.ID][cls], table.caps[b.node.ID][cls]
			switch {
			case ca < cb:
				return -1
			case ca > cb:
				return 1
			}
			return a.idx - b.idx
		})
	}
	return tg
}

// host is the slot of the node on host h (a split host or a node id).
func (tg *targets) host(h string) *slot { return tg.byHost[cluster.HostOf(h)] }

// consider picks the target of a backup for one candidate and applies the
// benefit test; on success it holds the slot and returns the hint.
func (p *Plugin) consider(v cluster.View, c candidate, tg *targets, eta float64, now int64) (policy.Hint, bool) {
	at, t := c.at, c.at.Task
	vc, mem := at.VCores, at.MemoryMB
	if vc <= 0 || mem <= 0 {
		vc, mem = p.cfg.MapVCores, p.cfg.MapMemoryMB
		if !c.class.isMap() {
			vc, mem = p.cfg.ReduceVCores, p.cfg.ReduceMemoryMB
		}
	}
	table := tg.table
	var (
		best      *slot
		bestTime  = math.Inf(1)
		bestClass TaskClass
	)
	usable := func(s *slot) bool {
		return s != nil && s.node.ID != at.Node && s.fits(vc, mem) > 0 && !runsOn(t, s.node.ID)
	}
	// offer weighs one node on which the task would be of class cls; only
	// nodes fast for cls qualify (§3.3) and the shortest eq. 18 time wins.
	offer := func(s *slot, cls TaskClass) {
		if !usable(s) {
			return
		}
		capN := table.caps[s.node.ID][cls]
		if !table.fast(cls, capN) {
			return
		}
		tb := backupTime(cls.isMap(), capN, c.data) // eq. 18
		// best is nil at a tie only when tb is +Inf: such a slot may be
		// taken (the benefit test refuses it), it must not panic.
		if tb < bestTime || (tb == bestTime && (best == nil || s.idx < best.idx)) {
			best, bestTime, bestClass = s, tb, cls
		}
	}
	// first offers the fastest usable node of a class list that accept takes.
	first := func(cls TaskClass, accept func(*slot) bool) {
		list := tg.fast[cls]
		for tg.head[cls] < len(list) && list[tg.head[cls]].fits(tg.minV, tg.minM) == 0 {
			tg.head[cls]++
		}
		for _, s := range list[tg.head[cls]:] {
			if usable(s) && (accept == nil || accept(s)) {
				offer(s, cls)
				return
			}
		}
	}
	replicas := replicaSet{}
	if c.class.isMap() {
		replicas = replicasOf(v, t)
	}
	if replicas.known {
		// The class of a map depends on the node (§3.1): Data-Local on a
		// replica host, Rack-Local beside one, Off-Rack elsewhere.
		for h := range replicas.hosts {
			offer(tg.host(h), DataLocal)
		}
		for rack := range replicas.racks {
			for _, n := range v.RackNodes(rack) {
				if on, _ := replicas.classOn(n); on == RackLocal {
					offer(tg.byID[n.ID], RackLocal)
				}
			}
		}
		first(OffRack, func(s *slot) bool { on, _ := replicas.classOn(s.node); return on == OffRack })
	} else {
		first(c.class, nil) // without replica hosts, compare like with like
	}
	if best == nil {
		return policy.Hint{}, false
	}
	var (
		ok     bool
		reason string
	)
	switch p.test {
	case testExMCP:
		tA := backupTime(c.class.isMap(), table.caps[at.Node][c.class], c.data)
		if tA <= 0 { // eq. 15 for the task itself: what it is taking here
			tA = float64(now-at.StartTS)/1000 + c.rem
		}
		ok = exmcpWorthIt(c.rem, bestTime, tA, eta)
		reason = fmt.Sprintf("%s %s: rem %.1fs > t_B %.1fs + η/(1+η)·t_A %.1fs, η=%.2f (eq. 19)",
			p.name, c.class, c.rem, bestTime, tA, eta)
	default:
		ok = mcpWorthIt(c.rem, bestTime, eta)
		reason = fmt.Sprintf("%s %s: rem %.1fs / backup %.1fs > (1+2η)/(1+η) = %.2f, η=%.2f (eq. 16)",
			p.name, c.class, c.rem, bestTime, mcpBound(eta), eta)
	}
	if !ok {
		return policy.Hint{}, false
	}
	best.vcores -= vc
	best.memoryMB -= mem
	p.holds[t.App.ID+"/"+t.ID] = hold{app: t.App.ID, task: t.ID, until: now + p.cfg.HintHold.Milliseconds(), node: best.node.ID, vcores: vc, memoryMB: mem}
	p.log.Debug().Str("task", t.ID).Str("target", best.node.ID).Str("target_class", bestClass.String()).
		Float64("rem_s", c.rem).Float64("backup_s", bestTime).Float64("eta", eta).Float64("priority", c.priority).Msg("speculate")
	return policy.Hint{
		Kind: policy.KindSpeculate, App: t.App.ID, Task: t.ID, Attempt: at.ID, Node: best.node.ID,
		EstRemainingMS: int64(math.Round(c.rem * 1000)), EstBackupMS: int64(math.Round(bestTime * 1000)),
		Reason: reason,
	}, true
}

// runsOn reports whether some attempt of t runs on node.
func runsOn(t *cluster.Task, node string) bool {
	for _, a := range t.Attempts {
		if a.Running() && a.Node == node {
			return true
		}
	}
	return false
}

// sweep forgets attempts that stopped running and holds that expired or
// whose backup now runs.
func (p *Plugin) sweep(v cluster.View, now int64) {
	for id := range p.tracks {
		if at := v.Attempt(id); at == nil || !at.Running() {
			delete(p.tracks, id)
		}
	}
	for key, h := range p.holds {
		if t := taskOf(v, h.app, h.task); h.until <= now || t == nil || t.State != cluster.TaskRunning {
			delete(p.holds, key)
		}
	}
}

func taskOf(v cluster.View, app, task string) *cluster.Task {
	if a := v.App(app); a != nil {
		return a.Task(task)
	}
	return nil
}
