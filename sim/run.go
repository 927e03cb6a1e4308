package sim

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"

	"github.com/rs/zerolog"
	"go.yaml.in/yaml/v3"

	"github.com/rmsidecar/rmsidecar/cluster"
	"github.com/rmsidecar/rmsidecar/engine"
	"github.com/rmsidecar/rmsidecar/events"
	"github.com/rmsidecar/rmsidecar/policy"
	"github.com/rmsidecar/rmsidecar/policy/plugins"
	"github.com/rmsidecar/rmsidecar/profiles"
	"github.com/rmsidecar/rmsidecar/sim/report"
)

// Progress is reported while a run goes on: after each finished job and
// every progressEvery simulator events in between, so a run of few, long
// jobs still moves. Calls depend only on the simulation (not on the wall
// clock), so a callback that cancels the run's context at a given
// JobsDone stops it at the same point every time.
type Progress struct {
	Stack    string
	JobsDone int
	Jobs     int
	SimS     float64 // simulated seconds so far
	// TasksDone of Tasks: tasks finished (a task with a speculative copy
	// counts once) of the tasks the scenario's jobs have (reducers spawned
	// by reduce-binding hints are not in Tasks; TasksDone stops there).
	TasksDone int
	Tasks     int
	Running   int // attempts running now
}

// progressEvery is how many simulator events pass between two Progress
// calls that no finished job triggered (a few milliseconds of wall time).
const progressEvery = 1 << 14

// Options configure a run.
type Options struct {
	// Registry builds the stack (nil: plugins.NewRegistry()).
	Registry policy.Registry
	// Events, when set, receives every event the run emitted as events v1
	// JSONL. Simulate writes the first stack's events only.
	Events io.Writer
	// Tasks, when set, receives one CSV row per task attempt as it ends
	// (header: TasksCSVHeader()), streamed so a day of millions of attempts is
	// not held in memory. Simulate writes the first stack's attempts only.
	Tasks io.Writer
	// Progress, when set, is called after each finished job and every few
	// thousand simulator events (see Progress).
	Progress func(Progress)
	// NoDetail skips the per-node detail of the report (Run.Detail: the
	// heatmap, the task timeline and tasks.csv's rows).
	NoDetail bool
	// Log receives policy and engine logs (zero value: discarded).
	Log zerolog.Logger
	// Profiles is the store policies learn into (nil: a fresh in-memory one
	// per run, so runs stay independent and deterministic).
	Profiles policy.ProfileStore
	// Parallel runs the stacks of Simulate concurrently (results do not
	// depend on it).
	Parallel int
	// PolicyArgs holds settings for the policies the scenario's policy_args
	// does not name (the sidecar config's policies.<name>, so a trace run,
	// which has no scenario file, can be configured). nil: defaults.
	PolicyArgs policy.Args

	// keepHistory keeps every finished job's tasks and attempts in the
	// simulator and every finished app in the engine's cluster state, for
	// tests that inspect them after the run. Off, a finished job keeps only
	// what the results need, so memory follows what is running.
	keepHistory bool
	// freshAttempts allocates every attempt's record anew and frees an
	// attempt's slot as soon as it stops, as before records were reused:
	// the reference TestAttemptReuseChangesNothing compares against.
	freshAttempts bool
	// noCompact keeps a reducer's fetch list growing instead of starting
	// it over when every entry was taken (fetchMore), as before: the
	// reference TestFetchListCompactionChangesNothing compares against.
	noCompact bool
	// pollRef polls with poll's general loop (the hash index's) on every
	// cluster, as before pollDense: the reference TestPollDenseSameAsLoop
	// compares against.
	pollRef bool
	// listEmpty lists a reducer's empty fetches even when all of them are
	// (attempt.noBytes), as before: the reference
	// TestEmptyFetchesNotListed compares against.
	listEmpty bool
	// swapRunning takes a stopped attempt off the running list by moving
	// the last one into its place, as before runningRemove: the reference
	// TestRunningInLaunchOrder compares against.
	swapRunning bool
	// copyTickHints queues a tick's hints in s.hints like an event's,
	// as before tickHints: the reference TestTickHintsNotCopied compares
	// against.
	copyTickHints bool
	// onTick, when set, is called at each policy tick before its progress
	// reports, for tests that check the simulator's state as it runs.
	onTick func(s *sim)
	// emitProgressRef, when set, builds and emits progress reports
	// instead of emitProgress: TestProgressCopiesSameAsRecords sets the
	// version that reads the task, job and node records, not the
	// attempt's copies.
	emitProgressRef func(s *sim, a *attempt)
	// rackChunk, when > 0, is the number of map outputs a chunk summary
	// of a rack-fetch job holds (rackChunkLen), for tests.
	rackChunk int
}

// Simulate runs every stack on the scenario and returns results.json.
// When ctx is cancelled it returns the error together with partial results:
// each run holds the jobs it finished (Run.Unfinished counts the others),
// its metrics over the simulated time it reached.
func Simulate(ctx context.Context, sc *Scenario, stacks []string, opts Options) (report.Results, error) {
	res := report.Results{V: report.Version, Scenario: sc.Name, Seed: sc.Seed, Runs: make([]report.Run, len(stacks))}
	if len(stacks) == 0 {
		return res, errors.New("simulate: no policy stacks")
	}
	par := max(1, opts.Parallel)
	type out struct {
		i   int
		run report.Run
		err error
	}
	ch := make(chan out, len(stacks))
	sem := make(chan struct{}, par)
	for i, st := range stacks {
		o := opts
		if i > 0 {
			o.Events, o.Tasks = nil, nil
		}
		sem <- struct{}{}
		go func() {
			defer func() { <-sem }()
			r, err := Run(ctx, sc, st, o)
			ch <- out{i, r, err}
		}()
	}
	var first error
	for range stacks {
		o := <-ch
		if o.err != nil && first == nil {
			first = o.err
		}
		res.Runs[o.i] = o.run
	}
	if first != nil {
		return res, first
	}
	return res, nil
}

// Run simulates the scenario under one policy stack ("a+b+c"). When ctx is
// cancelled it returns the error together with the partial run (see
// Simulate).
func Run(ctx context.Context, sc *Scenario, stack string, opts Options) (report.Run, error) {
	s, err := newSim(ctx, sc, stack, opts)
	if err != nil {
		if ctx.Err() != nil {
			return report.Run{Policy: stack, Jobs: []report.Job{}, Unfinished: len(sc.Jobs)}, err
		}
		return report.Run{}, err
	}
	if err := s.run(ctx); err != nil {
		if s.interrupted {
			return s.results(), err
		}
		return report.Run{}, err
	}
	return s.results(), nil
}

// scenarioArgs is policy.Args over the scenario's policy_args section; a
// policy the section does not name reads fallback (Options.PolicyArgs).
type scenarioArgs struct {
	scenario map[string]*yaml.Node
	fallback policy.Args
}

func (a scenarioArgs) Decode(name string, into any) error {
	n := a.scenario[name]
	if n == nil {
		if a.fallback != nil {
			return a.fallback.Decode(name, into)
		}
		return nil
	}
	if err := n.Decode(into); err != nil {
		return fmt.Errorf("policy_args.%s (line %d): %w", name, n.Line, err)
	}
	return nil
}

// historyReader is a plugin that reads finished apps (the learning
// scheduler's budget utility sums what a user's finished apps used): with
// one in the stack the engine keeps every finished app.
type historyReader interface{ ReadsFinishedApps() bool }

// readsHistory reports whether a plugin of the stack reads finished apps.
func readsHistory(st *policy.Stack) bool {
	for _, p := range st.Plugins {
		if h, ok := p.(historyReader); ok && h.ReadsFinishedApps() {
			return true
		}
	}
	return false
}

// sim is one run: the world, the event queue and the engine.
type sim struct {
	sc    *Scenario
	stack string
	opts  Options
	ctx   context.Context
	rng   *rand.Rand
	q     queue
	now   int64

	nodes  []*node
	racks  []rack
	nodeBy map[string]*node
	net    network
	// nodeNet is each node's rack and NIC links, by node index: what a
	// shuffle fetch reads, compact (the node records are large).
	nodeNet []nodeNet
	// rackRep is each rack's first node, which stands for the rack's nodes
	// in the fetches of a job whose reducers fetch per rack.
	rackRep []int32

	jobs []*job
	// datasets are the input datasets jobs share (trace.Job.InputPath) whose
	// last reader is not built yet (see readDataset).
	datasets map[string]*dataset
	// jobByIdx is jobs by scenario index (the application id's sequence
	// number - 1); nil until submitted. jobs is in submission order, which
	// differs when the scenario does not list jobs by submit time.
	jobByIdx []*job
	queues   []*queueState
	queueBy  map[string]*queueState
	// attempts is the attempt table queued events refer to by index; the
	// slots of attempts that are over are reused (freeSlots).
	attempts  []*attempt
	freeSlots []int32
	retired   []int32    // slots of attempts stopped during the current event (retireSlots)
	running   []*attempt // in launch order, nil where one stopped (see runningRemove)
	nRunning  int        // the non-nil entries of running
	parked    []int32    // FIFO of parked nodes (entries may be stale)
	parkHead  int
	// dirty holds the nodes whose node.dirty is set, loadWatch those with
	// a background load series or a load average (policyTick).
	dirty, loadWatch nodeBits

	totalVCores int
	hbMS        int64
	tickMS      int64
	hbEventMS   int64
	lastHBEvent int64
	tickAt      int64 // scheduled policy tick, -1 when none
	activeJobs  int
	doneJobs    int
	lastFinish  int64
	pendPool    []pendList
	// fetchTable is the fetch index by node every reducer's poll shares,
	// with the emptied lists, on a cluster of at most denseFetchNodes nodes
	// (getPend); nil until the first poll.
	fetchTable  *fetchIndex
	fetchResets int   // fetch lists started over (fetchMore), for tests
	noByteReds  int   // reducers started with attempt.noBytes, for tests
	chunkLen    int   // outputs per rackChunks summary
	horizon     int64 // latest expiry of a hint that can hold work back (reduce-binding)
	holdHorizon int64 // latest expiry of a hint withholding capacity a policy may give back (zero ratio cap, shrunk node)
	lastLaunch  int64 // time of the latest container launch
	assigners   bool  // the stack has Assigners: report every YARN heartbeat
	submitted   int
	tasksTotal  int  // the scenario's tasks (Progress)
	checkCtx    bool // look at the context before the next event
	interrupted bool // the context ended the run: results are partial

	// Hadoop 1 delay scheduling (YARN.Hadoop1Delay): jobs skipped at the
	// current heartbeat, and the heartbeats run so far.
	skipped []*job
	hbSeq   int64
	// hbNode is the node whose heartbeat the Assigners are deciding on
	// (YARN.Preassign), nil otherwise.
	hbNode *node

	eng    *engine.Engine
	w      *events.Writer
	tasks  *tasksWriter // Options.Tasks
	evSeq  uint64
	evBuf  events.Event
	evBusy bool
	evID   []byte // the last event id built: 's' and its number in decimal
	evIDs  evIDChunk
	// evPhaseP and evRunning are what the buffer's PhaseProgress and
	// RunningContainers point to (progress reports and heartbeats, 1.7 M
	// of the FB-2009 day's 3 M events): the engine and the policies copy
	// the values, so they need no allocation each.
	evPhaseP  float64
	evRunning int
	idBuf     []byte
	hints     []policy.Hint
	inHints   bool

	m      metrics
	detail detail
}

func newSim(ctx context.Context, sc *Scenario, stack string, opts Options) (*sim, error) {
	reg := opts.Registry
	if reg == nil {
		reg = plugins.NewRegistry()
	}
	store := opts.Profiles
	if store == nil {
		store = profiles.NewMemory()
	}
	args := scenarioArgs{scenario: sc.PolicyArgs, fallback: opts.PolicyArgs}
	st, err := reg.Build(ctx, stack, policy.Handle{Args: args, Profiles: store, Log: opts.Log, Seed: sc.Seed})
	if err != nil {
		return nil, fmt.Errorf("simulate: %w", err)
	}
	s := &sim{
		sc: sc, stack: stack, opts: opts,
		rng:     rand.New(rand.NewPCG(sc.Seed, 0x5157_1a7e)),
		nodeBy:  map[string]*node{},
		queueBy: map[string]*queueState{},
		hbMS:    max(1, int64(sc.YARN.HeartbeatS*1000)),
		tickMS:  max(1, int64(sc.PolicyTickS*1000)),
		tickAt:  -1,
	}
	s.m.hints = map[policy.HintKind]int{}
	s.chunkLen = rackChunkLen
	if opts.rackChunk > 0 {
		s.chunkLen = opts.rackChunk
	}
	s.hbEventMS = max(1, int64(sc.HeartbeatEventS*1000))
	s.lastHBEvent = math.MinInt64 / 2
	eo := engine.Options{TickMS: s.tickMS, IDPrefix: "sim-", Log: opts.Log, ManualTick: true}
	if !opts.keepHistory && !readsHistory(st) {
		// The engine forgets a finished app within a second of event time:
		// policies look at running apps, and the results are the
		// simulator's own, so the model holds what runs, not the whole day.
		eo.State = cluster.New(cluster.WithRetention(cluster.Retention{AfterMS: 1}))
	}
	s.eng = engine.New(st, eo)
	s.assigners = len(st.Assigners) > 0
	if opts.Events != nil {
		s.w = events.NewWriter(opts.Events)
	}
	if opts.Tasks != nil {
		s.tasks = newTasksWriter(opts.Tasks)
		s.m.writeErr = s.tasks.Write(TasksCSVHeader())
	}
	s.buildCluster()
	s.datasets = countReaders(sc.Jobs)
	s.initDetail()
	if opts.Progress != nil {
		for i := range sc.Jobs {
			nm, nr, _, _, _, _ := s.jobShape(&sc.Jobs[i])
			s.tasksTotal += nm + nr
		}
	}
	return s, nil
}

func (s *sim) buildCluster() {
	c := s.sc.Cluster
	bps := func(gbps float64) float64 { return gbps * 1e9 / 8 / 1000 }
	s.net.latency = c.Network.LatencyMS
	for r := range c.Racks {
		s.racks = append(s.racks, rack{name: fmt.Sprintf("/rack-%02d", r+1)})
		s.racks[r].up = int32(len(s.net.links))
		s.net.links = append(s.net.links, newLink(bps(c.Network.RackUplinkGbps)))
		s.racks[r].down = int32(len(s.net.links))
		s.net.links = append(s.net.links, newLink(bps(c.Network.RackUplinkGbps)))
	}
	for _, g := range c.Nodes {
		for range g.Count {
			i := int32(len(s.nodes))
			n := &node{
				idx: i, id: fmt.Sprintf("node-%04d", i+1), rack: i % int32(c.Racks),
				vcores: g.VCores, memMB: g.MemoryMB, capV: g.VCores, capM: g.MemoryMB,
				mapSpd: g.MapSpeed, redSpd: g.ReduceSpeed, pIdle: g.PowerIdleW, pMax: g.PowerMaxW,
				load: g.Load, hbAt: -1, loaded: g.Load.Mean != 0 || g.Load.Stddev != 0,
				capMaps: noCap, capReds: noCap,
			}
			n.out = int32(len(s.net.links))
			s.net.links = append(s.net.links, newLink(bps(c.Network.NodeGbps)))
			n.in = int32(len(s.net.links))
			s.net.links = append(s.net.links, newLink(bps(c.Network.NodeGbps)))
			n.hbPhase = int64(s.rng.IntN(int(s.hbMS)))
			s.racks[n.rack].nodes = append(s.racks[n.rack].nodes, i)
			n.parked = true // idle until work arrives
			s.parked = append(s.parked, i)
			s.nodes = append(s.nodes, n)
			s.nodeNet = append(s.nodeNet, nodeNet{rack: n.rack, out: n.out, in: n.in})
			s.nodeBy[n.id] = n
			s.totalVCores += n.vcores
		}
	}
	s.dirty, s.loadWatch = newNodeBits(len(s.nodes)), newNodeBits(len(s.nodes))
	for _, n := range s.nodes {
		if n.loaded || n.load.AvgS > 0 {
			s.loadWatch.add(n.idx)
		}
	}
	for _, r := range s.racks {
		rep := int32(-1)
		if len(r.nodes) > 0 {
			rep = r.nodes[0]
		}
		s.rackRep = append(s.rackRep, rep)
	}
	for _, d := range s.sc.Stragglers.NodeDegrade {
		n := s.nodes[d.Node]
		to := int64(math.MaxInt64 / 4)
		if !math.IsInf(d.ToS, 1) {
			to = int64(d.ToS * 1000)
		}
		n.degrade = append(n.degrade, window{from: int64(d.FromS * 1000), to: to, factor: d.Factor})
	}
}

// run is the event loop.
func (s *sim) run(ctx context.Context) error {
	s.ctx = ctx
	for _, n := range s.nodes {
		ev := s.event(events.NodeRegistered)
		ev.Node, ev.Rack, ev.VCores, ev.MemoryMB = n.id, s.racks[n.rack].name, n.vcores, n.memMB
		ev.PowerIdleW, ev.PowerMaxW = n.pIdle, n.pMax
		s.emit(ev)
	}
	for i := range s.sc.Jobs {
		s.q.push(int64(math.Round(s.sc.Jobs[i].SubmitS*1000)), evSubmit, int32(i), 0)
	}
	var steps uint64
	for s.q.len() > 0 {
		it := s.q.pop()
		s.now = it.at
		s.m.simEvents++
		s.m.byKind[it.kind()]++
		if steps&0xfff == 0 || s.checkCtx { // first at step 0, then every 4096 events
			s.checkCtx = false
			if err := ctx.Err(); err != nil {
				return s.interrupt(err)
			}
		}
		if steps%progressEvery == progressEvery-1 && s.opts.Progress != nil {
			s.reportProgress()
		}
		steps++
		s.dispatch(it)
	}
	if s.doneJobs != len(s.jobs) || len(s.jobs) != len(s.sc.Jobs) {
		return fmt.Errorf("simulate %s: %d of %d jobs finished (a task could never be placed: is a container larger than every node?)",
			s.stack, s.doneJobs, len(s.sc.Jobs))
	}
	s.now = s.lastFinish // the accounts close at the makespan's end
	s.closeAccounts()
	if s.m.writeErr != nil {
		return fmt.Errorf("simulate %s: write events or tasks: %w", s.stack, s.m.writeErr)
	}
	if s.tasks != nil {
		s.tasks.Flush()
		if err := s.tasks.Error(); err != nil {
			return fmt.Errorf("simulate %s: write tasks: %w", s.stack, err)
		}
	}
	if s.w != nil {
		if err := s.w.Flush(); err != nil {
			return fmt.Errorf("simulate %s: write events: %w", s.stack, err)
		}
	}
	return nil
}

// interrupt ends a run its context cancelled: the accounts close at the
// simulated time reached, the event and task logs are flushed, and the
// results (see results) are what finished.
func (s *sim) interrupt(err error) error {
	s.interrupted = true
	s.closeAccounts()
	if s.tasks != nil {
		s.tasks.Flush()
	}
	if s.w != nil {
		_ = s.w.Flush() // best effort: the run is being abandoned
	}
	return fmt.Errorf("simulate %s: interrupted at %.0f s simulated, %d of %d jobs done: %w",
		s.stack, float64(s.now)/1000, s.doneJobs, len(s.sc.Jobs), err)
}

func (s *sim) reportProgress() {
	s.opts.Progress(Progress{Stack: s.stack, JobsDone: s.doneJobs, Jobs: len(s.sc.Jobs), SimS: float64(s.now) / 1000,
		TasksDone: min(s.m.tasksDone, s.tasksTotal), Tasks: s.tasksTotal, Running: s.nRunning})
}

// dispatch runs one queued event.
func (s *sim) dispatch(it item) {
	switch it.kind() {
	case evSubmit:
		s.submit(int(it.ref))
	case evHeartbeat:
		n := s.nodes[it.ref]
		if n.hbAt == it.at {
			n.hbAt = -1
			s.heartbeat(n)
		}
	case evAttemptDone:
		a := s.attempts[it.ref]
		if a.ver == it.ver && !a.over {
			s.attemptEnd(a)
		}
	case evLinkDone:
		s.linkDone(it.ref, it.ver)
	case evFetchPoll:
		a := s.attempts[it.ref]
		if a.ver == it.ver && !a.over {
			a.polling = false
			s.poll(a)
		}
	case evPolicyTick:
		s.policyTick()
	}
	if len(s.retired) > 0 {
		s.retireSlots()
	}
}

// event returns the run's one event buffer, reset to type t at the current
// time. Events are emitted one at a time (the engine applies an event
// before it returns, and the cluster state copies what it keeps), so one
// buffer saves an allocation per event; pointer fields are fresh, except
// PhaseProgress and RunningContainers (see evPhaseP), which the cluster
// state copies. Observers must not keep the *events.Event, nor what its
// pointer fields point to, past Observe.
func (s *sim) event(t events.Type) *events.Event {
	if s.evBusy {
		panic("sim: event built while another is unsent")
	}
	s.evBusy = true
	s.evSeq++
	// Cleared in place and then set: a composite literal assigned to the
	// buffer is built on the stack and copied (600 bytes twice per event).
	ev := &s.evBuf
	*ev = events.Event{}
	ev.V, ev.ID, ev.Type, ev.TS = events.Version, s.nextEventID(), t, epochMS+s.now
	return ev
}

// evIDsPerChunk is how many event ids are built in one string.
const evIDsPerChunk = 64

// evIDChunk holds the next event ids, built ahead in one string: a string
// per event was 3 M of the FB-2009 day's 7.1 M allocations. The engine
// keeps some ids (stamps of what it models), each keeping its chunk, at
// most a few hundred bytes, alive; events of one chunk are consecutive.
type evIDChunk struct {
	ids  string
	ends [evIDsPerChunk]uint16 // ids[ends[i-1]:ends[i]] is the i-th id
	next int                   // the next id to hand out; evIDsPerChunk: build a chunk
	buf  []byte
}

// nextEventID returns the next event id, "s<evSeq>".
func (s *sim) nextEventID() string {
	c := &s.evIDs
	if c.ids == "" || c.next == evIDsPerChunk {
		b := c.buf[:0]
		for i := range c.ends {
			s.evID = nextDecimal(s.evID)
			b = append(b, s.evID...)
			c.ends[i] = uint16(len(b))
		}
		c.buf, c.ids, c.next = b, string(b), 0
	}
	from := 0
	if c.next > 0 {
		from = int(c.ends[c.next-1])
	}
	id := c.ids[from:c.ends[c.next]]
	c.next++
	return id
}

// nextDecimal increments the decimal number after the first byte of b (the
// event id "s<evSeq>", from "s0") in place: the ids of a run count up one
// at a time, so this is a digit or two of work instead of formatting the
// sequence number for each of millions of events.
func nextDecimal(b []byte) []byte {
	if len(b) < 2 {
		b = append(b[:0], 's', '0')
	}
	i := len(b) - 1
	for i >= 1 && b[i] == '9' {
		b[i] = '0'
		i--
	}
	if i >= 1 {
		b[i]++
		return b
	}
	// All nines: one more digit, 10...0.
	b = append(b, '0')
	b[1] = '1'
	return b
}

// emit hands an event to the engine (and the event log) and applies the
// hints it produces.
func (s *sim) emit(ev *events.Event) {
	s.evBusy = false
	s.m.engineEvents++
	if s.w != nil && s.m.writeErr == nil {
		s.m.writeErr = s.w.Write(ev)
	}
	s.queueHints(s.eng.Apply(s.ctx, ev))
}

// queueHints applies an event's hints. They are copied into s.hints first:
// the engine's next Apply, run by the events they cause, reuses the slice.
func (s *sim) queueHints(hs []policy.Hint) {
	if len(hs) == 0 {
		// Most events return no hint: nothing to add, and outside a drain
		// s.hints is empty (a drain empties it before it ends).
		return
	}
	s.hints = append(s.hints, hs...)
	if s.inHints {
		return // the outer drain applies them
	}
	s.inHints = true
	s.drainHints()
}

// tickHints applies a tick's hints where the engine returned them: they
// stay valid until its next Tick (engine.Tick), so unlike an event's they
// need no copy while the events they cause are applied (a copy of 400,000
// hold hints, 116 MB, at the FB-2010 day's peak under tmar). The hints
// those events produce queue in s.hints and are applied after the tick's,
// in the order they came, as when the tick's were queued first.
func (s *sim) tickHints(hs []policy.Hint) {
	if len(hs) == 0 {
		return
	}
	if s.inHints || s.opts.copyTickHints {
		// Inside a drain (ticks come from the event queue, never from a
		// hint) or for the reference: queued, as an event's.
		s.queueHints(hs)
		return
	}
	s.inHints = true
	for i := range hs {
		s.applyHint(&hs[i])
	}
	s.drainHints()
}

// drainHints applies the hints queued in s.hints, with those their events
// add, and ends the drain. A queue a burst left far larger than this drain
// needed lets its array go.
func (s *sim) drainHints() {
	for i := 0; i < len(s.hints); i++ {
		s.applyHint(&s.hints[i])
	}
	if c := cap(s.hints); c > hintsKeep && len(s.hints) < c/8 {
		s.hints = nil
	} else {
		clear(s.hints) // no hint keeps its strings and nodes past the drain
		s.hints = s.hints[:0]
	}
	s.inHints = false
}

// hintsKeep is the capacity (hints, about 290 bytes each) of s.hints kept
// however few hints a drain has.
const hintsKeep = 16 << 10

// maxHoldStallMS is how long a run with nothing running goes on ticking
// while a zero ratio cap or a shrunk node holds work back.
const maxHoldStallMS = 3_600_000

// policyTick reports progress and node load, ticks the engine and
// schedules the next tick while there is work.
func (s *sim) policyTick() {
	s.tickAt = -1
	if s.nRunning == 0 && s.q.len() == 0 {
		if s.now >= s.horizon && (s.now > s.holdHorizon || s.now-s.lastLaunch > maxHoldStallMS) {
			// Nothing runs, nothing is scheduled and no hint will lapse: the
			// remaining work can never be placed. Stop; run reports the
			// unfinished jobs. A zero ratio cap or a shrunk node may be
			// given back by the policy at a later tick, so ticks go on while
			// such a hint is in force, up to maxHoldStallMS without a launch
			// (a policy that never gives it back).
			return
		}
		// A reduce-binding holds a reducer for a node that cannot take it
		// yet; offer everything again on every tick until it lapses.
		s.wakeAll()
	}
	if s.opts.onTick != nil {
		s.opts.onTick(s)
	}
	for _, a := range s.running {
		if a != nil {
			s.emitProgress(a)
		}
	}
	if s.now-s.lastHBEvent >= s.hbEventMS {
		s.lastHBEvent = s.now
		// Every node in index order, as far as one can report: a node
		// outside both sets is not dirty and has no load to watch.
		for i := nextIn(s.dirty, s.loadWatch, 0); i >= 0; i = nextIn(s.dirty, s.loadWatch, i+1) {
			n := s.nodes[i]
			if n.loaded && s.loadAt(n, s.now) != n.lastLoad || n.load.AvgS > 0 {
				n.dirty = true // its (average) load moved: load-aware policies want to know
			}
			if n.dirty {
				s.clean(n)
				s.emitHeartbeat(n)
			}
		}
	}
	s.tickHints(s.eng.Tick(s.ctx, epochMS+s.now))
	s.ensureTick()
}

func (s *sim) ensureTick() {
	if s.tickAt >= 0 || s.activeJobs == 0 {
		return
	}
	s.tickAt = s.now - s.now%s.tickMS + s.tickMS
	s.q.push(s.tickAt, evPolicyTick, 0, 0)
}

func (s *sim) emitHeartbeat(n *node) {
	ev := s.event(events.NodeHeartbeat)
	ev.Node, ev.UsedVCores, ev.UsedMemoryMB = n.id, n.usedV, n.usedM
	load := s.loadAt(n, s.now)
	n.lastLoad = load
	ev.CPUUtil = min(1, float64(n.usedV)/float64(n.vcores)+load)
	ev.Load1 = n.taskLoad + load*float64(n.vcores)
	if n.load.AvgS > 0 {
		s.ageLoad1(n)
		ev.Load1 = n.load1
	}
	s.evRunning = n.running
	ev.RunningContainers = &s.evRunning
	s.emit(ev)
}

func (s *sim) submit(i int) {
	j := s.buildJob(i, &s.sc.Jobs[i])
	s.jobs = append(s.jobs, j)
	if s.jobByIdx == nil {
		s.jobByIdx = make([]*job, len(s.sc.Jobs))
	}
	s.jobByIdx[i] = j
	s.submitted++
	s.activeJobs++
	q := s.queueBy[j.spec.Queue]
	if q == nil {
		w := 1.0
		if x, ok := s.sc.YARN.Queues[j.spec.Queue]; ok {
			w = x
		}
		q = &queueState{name: j.spec.Queue, weight: w, capMaps: noCap, capReds: noCap}
		s.queueBy[q.name] = q
		s.queues = append(s.queues, q)
	}
	j.queue = q
	q.insert(j)
	ev := s.event(events.AppSubmitted)
	ev.App, ev.Name, ev.Queue, ev.User, ev.JobType = j.id, j.spec.Name, j.spec.Queue, j.spec.User, j.spec.Type
	ev.Maps, ev.Reduces = len(j.maps), len(j.reduces)
	ev.InputPaths = []string{"/sim/" + j.inputName()}
	if j.priority != 0 {
		p := j.priority
		ev.Priority = &p
	}
	if f := j.spec.Features; f != nil {
		ev.Features = &events.Features{CPU: f.CPU, Memory: f.Memory, Disk: f.Disk, Network: f.Network}
	}
	s.emit(ev)
	for i := range j.maps {
		s.pendingMap(j, int32(i), nil)
	}
	if len(j.maps) == 0 {
		s.reachSlowstart(j)
	}
	s.ensureTick()
	s.wake(len(j.maps))
}

// setPending makes t schedulable and reports it.
func (s *sim) setPending(t *task) {
	j := t.job
	t.state = taskPending
	if t.kind == events.Map {
		s.pendingMap(j, t.idx, t)
		return
	}
	j.pendReds++
	t.qAt = int32(len(j.reduceQ.items))
	j.reduceQ.push(t.idx)
	if b, ok := j.bind[int(t.part)]; ok && b.expires > s.now {
		s.wakeNode(s.nodes[b.node]) // only its node may take it
	}
	for _, r := range t.pref {
		s.wakeNode(s.nodes[r])
	}
	ev := s.event(events.TaskPending)
	ev.App, ev.Task, ev.Kind = j.id, t.id, t.kind
	p := int(t.part)
	ev.Partition = &p
	s.emit(ev)
}

// pendingMap makes map i of j schedulable and reports it; t is its record,
// nil when it has none (not launched yet: its id and split are built for
// the event).
func (s *sim) pendingMap(j *job, i int32, t *task) {
	j.pendMaps++
	j.holdGen++
	reps := j.replicasOf(i)
	for _, r := range reps {
		j.nodeList(r).push(i)
		j.rackList(s.nodes[r].rack).push(i)
		s.wakeNode(s.nodes[r])
	}
	var pref []int32
	var id, path string
	if t != nil {
		pref, id = t.pref, t.id
		path = padID("/sim/"+j.inputName(), "/part-", int(i), 5)
		t.relist()
	} else {
		id, path = s.pendingMapIDs(j, i)
	}
	j.anyMap.push(i)
	for _, r := range pref {
		s.wakeNode(s.nodes[r])
	}
	ev := s.event(events.TaskPending)
	ev.App, ev.Task, ev.Kind = j.id, id, events.Map
	ev.Splits = s.mapSplits(j, i, reps, path)
	s.emit(ev)
}

func (j *job) nodeList(n int32) *plist {
	p := j.byNode[n]
	if p == nil {
		p = &plist{}
		j.byNode[n] = p
	}
	return p
}

func (j *job) rackList(r int32) *plist {
	p := j.byRack[r]
	if p == nil {
		p = &plist{}
		j.byRack[r] = p
	}
	return p
}

// reachSlowstart requests the job's reducers.
func (s *sim) reachSlowstart(j *job) {
	if j.slowstart {
		return
	}
	j.slowstart = true
	for _, t := range j.reduces {
		s.setPending(t)
	}
	s.wake(len(j.reduces))
}

func (q *queueState) insert(j *job) {
	i := len(q.jobs)
	for i > 0 && jobBefore(j, q.jobs[i-1]) {
		i--
	}
	q.jobs = append(q.jobs, nil)
	copy(q.jobs[i+1:], q.jobs[i:])
	q.jobs[i] = j
}

// jobBefore is the FIFO order within a queue: higher priority first, then
// earlier submission, then the trace order.
func jobBefore(a, b *job) bool {
	if a.priority != b.priority {
		return a.priority > b.priority
	}
	if a.submitMS != b.submitMS {
		return a.submitMS < b.submitMS
	}
	return a.idx < b.idx
}

func (q *queueState) remove(j *job) {
	for i, x := range q.jobs {
		if x == j {
			q.jobs = append(q.jobs[:i], q.jobs[i+1:]...)
			return
		}
	}
}
