package yarnclient

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/rs/zerolog"

	"github.com/rmsidecar/rmsidecar/cluster"
	"github.com/rmsidecar/rmsidecar/events"
)

// The bridge turns a stock cluster into an event source: it polls the RM
// and the MapReduce AMs, keeps the previous snapshot, and publishes the
// difference as events v1. Cost per poll: two RM calls for nodes and apps,
// then per running app one RM call for its attempts, one for the containers
// of the current attempt, and for MapReduce apps one AM call for the task
// list plus one per task that was not finished at the previous poll (the AM
// has no "all attempts of a job" call); the job configuration is read once
// per app, for the input paths.

// Publisher receives encoded events: the Kafka producer in production, a
// JSONL writer or a recorder in tests. key is the event's Kafka key.
type Publisher interface {
	Publish(ctx context.Context, key string, value []byte) error
}

// Source is what the bridge reads; *Client implements it.
type Source interface {
	Nodes(ctx context.Context, f NodesFilter) ([]Node, error)
	Apps(ctx context.Context, f AppsFilter) ([]App, error)
	App(ctx context.Context, appID string) (*App, error)
	AppAttempts(ctx context.Context, appID string) ([]AppAttempt, error)
	Containers(ctx context.Context, appID, appAttemptID string) ([]Container, error)
	MRJobs(ctx context.Context, appID string) ([]MRJob, error)
	MRTasks(ctx context.Context, appID, jobID, taskType string) ([]MRTask, error)
	MRTaskAttempts(ctx context.Context, appID, jobID, taskID string) ([]MRTaskAttempt, error)
	MRJobConf(ctx context.Context, appID, jobID string) (*JobConf, error)
}

var _ Source = (*Client)(nil)

// JobTypeKey is an optional job configuration key naming the job type that
// app.submitted carries (e.g. "sort", "wordcount"). Without it the bridge
// uses an application tag "jobtype:<t>", else the lowercased application
// type.
const JobTypeKey = "rmsidecar.job.type"

// BridgeConfig configures a Bridge.
type BridgeConfig struct {
	Source    Source
	Publisher Publisher
	Logger    zerolog.Logger
	// Now is the clock for event timestamps; nil means time.Now.
	Now func() time.Time
	// FinishedSlack widens the finished-apps query window (default 1m) so
	// an app finishing between two polls is never missed.
	FinishedSlack time.Duration
	// MaxPending bounds events kept while the publisher fails (default
	// 100000); beyond it the oldest are dropped and counted.
	MaxPending int
	// Splits, if set, turns a MapReduce job's input paths into its map
	// tasks' input splits (block hosts from the NameNode), which the maps'
	// task.pending events then carry.
	Splits SplitSource
}

// SplitSource resolves a FileInputFormat job's input paths to its splits in
// the order its map tasks are numbered (map i reads split i); stale reports
// an answer older than the cache's TTL.
type SplitSource interface {
	Splits(ctx context.Context, paths []string, minSize, maxSize int64) (splits []events.Split, stale bool, err error)
}

// SplitStats count the bridge's split lookups, one per MapReduce job.
type SplitStats struct {
	OK, Stale, Failed int
}

// Bridge polls the cluster and publishes what changed. Poll is not safe for
// concurrent use; Run calls it on a ticker.
type Bridge struct {
	cfg     BridgeConfig
	log     zerolog.Logger
	prev    *Snapshot
	pending []events.Event
	seq     uint64
	lastTS  int64
	dropped int
	splits  SplitStats
}

// SplitStats returns the split lookups so far.
func (b *Bridge) SplitStats() SplitStats { return b.splits }

// NewBridge checks cfg and returns a Bridge with no previous snapshot: the
// first Poll reports every live node and app as new.
func NewBridge(cfg BridgeConfig) (*Bridge, error) {
	if cfg.Source == nil || cfg.Publisher == nil {
		return nil, errors.New("yarnclient: bridge: Source and Publisher are required")
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.FinishedSlack <= 0 {
		cfg.FinishedSlack = time.Minute
	}
	if cfg.MaxPending <= 0 {
		cfg.MaxPending = 100000
	}
	return &Bridge{cfg: cfg, log: cfg.Logger}, nil
}

// Snapshot is the bridge's view of the cluster at one poll.
type Snapshot struct {
	TS    int64 // epoch ms
	Nodes map[string]Node
	Apps  map[string]*AppSnapshot
}

// AppSnapshot is one app with what the bridge learned about it.
type AppSnapshot struct {
	App App
	// Containers of the current attempt by container id (RM view).
	Containers map[string]Container
	// MapReduce: the job, its tasks and their attempts.
	JobID      string
	Job        *MRJob
	InputPaths []string
	JobType    string
	confRead   bool
	// Splits of the job's maps, by map index (nil when not resolved).
	Splits     []events.Split
	splitSizes [2]int64 // split.minsize, split.maxsize of the job conf
	splitsDone bool
	Tasks      map[string]*TaskSnapshot
	// Announced records that app.submitted was published.
	Announced bool
}

// TaskSnapshot is one MapReduce task and its attempts.
type TaskSnapshot struct {
	Task     MRTask
	Attempts map[string]MRTaskAttempt
}

func activeAppStates() []string {
	return []string{AppNew, AppNewSaving, AppSubmitted, AppAccepted, AppRunning}
}

func allNodeStates() []string {
	return []string{NodeNew, NodeRunning, NodeUnhealthy, NodeDecommissioning, NodeDecommissioned, NodeLost, NodeRebooted, NodeShutdown}
}

// Run polls every interval until ctx ends. Poll errors are logged and the
// next poll tries again; nothing is lost while the RM or the publisher is
// down (the snapshot does not advance without an RM answer, and unpublished
// events wait in order).
func (b *Bridge) Run(ctx context.Context, interval time.Duration) error {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		n, err := b.Poll(ctx)
		switch {
		case err != nil && ctx.Err() == nil:
			b.log.Warn().Err(err).Int("pending", len(b.pending)).Msg("yarnclient: bridge poll failed")
		case err == nil:
			b.log.Debug().Int("events", n).Msg("yarnclient: bridge poll")
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
			// Both can be ready at once and select picks either: a cancelled
			// context must not start another poll.
			if ctx.Err() != nil {
				return ctx.Err()
			}
		}
	}
}

// Pending returns how many events wait for the publisher.
func (b *Bridge) Pending() int { return len(b.pending) }

// Poll takes a snapshot, diffs it against the previous one, and publishes
// the events (plus any left over from a failed publish). It returns how many
// events were published.
func (b *Bridge) Poll(ctx context.Context) (int, error) {
	cur, err := b.snapshot(ctx)
	if err != nil {
		return 0, err
	}
	evs := Diff(b.prev, cur)
	b.prev = cur
	for i := range evs {
		evs[i].ID = b.nextID(cur.TS)
	}
	b.pending = append(b.pending, evs...)
	if over := len(b.pending) - b.cfg.MaxPending; over > 0 {
		b.dropped += over
		b.log.Error().Int("dropped", over).Int("dropped_total", b.dropped).Msg("yarnclient: bridge publisher backlog full, dropping oldest events")
		b.pending = b.pending[over:]
	}
	return b.flush(ctx)
}

func (b *Bridge) nextID(ts int64) string {
	if ts != b.lastTS {
		b.lastTS, b.seq = ts, 0
	}
	b.seq++
	return "yb-" + strconv.FormatInt(ts, 10) + "-" + strconv.FormatUint(b.seq, 10)
}

func (b *Bridge) flush(ctx context.Context) (int, error) {
	n := 0
	for len(b.pending) > 0 {
		e := &b.pending[0]
		val, err := events.Encode(e)
		if err != nil {
			// A bug, not an outage: report and skip the event.
			b.log.Error().Err(err).Str("type", string(e.Type)).Msg("yarnclient: bridge produced an invalid event")
			b.pending = b.pending[1:]
			continue
		}
		if err := b.cfg.Publisher.Publish(ctx, e.Key(), val); err != nil {
			return n, fmt.Errorf("yarnclient: bridge: publish %s %s: %w", e.Type, e.ID, err)
		}
		b.pending = b.pending[1:]
		n++
	}
	b.pending = nil
	return n, nil
}

// snapshot reads the cluster. RM-wide reads (nodes, apps) must succeed;
// a failing per-app read keeps that app's previous state, so a flaky AM
// never produces false events.
func (b *Bridge) snapshot(ctx context.Context) (*Snapshot, error) {
	src := b.cfg.Source
	now := b.cfg.Now()
	cur := &Snapshot{TS: now.UnixMilli(), Nodes: map[string]Node{}, Apps: map[string]*AppSnapshot{}}

	nodes, err := src.Nodes(ctx, NodesFilter{States: allNodeStates()})
	if err != nil {
		return nil, fmt.Errorf("yarnclient: bridge: %w", err)
	}
	for _, n := range nodes {
		cur.Nodes[n.ID] = n
	}
	apps, err := src.Apps(ctx, AppsFilter{States: activeAppStates(), DeSelects: []string{"resourceRequests"}})
	if err != nil {
		return nil, fmt.Errorf("yarnclient: bridge: %w", err)
	}
	if b.prev != nil {
		done, err := src.Apps(ctx, AppsFilter{States: []string{AppFinished, AppFailed, AppKilled},
			FinishedTimeBegin: max(b.prev.TS-b.cfg.FinishedSlack.Milliseconds(), 1), DeSelects: []string{"resourceRequests"}})
		if err != nil {
			return nil, fmt.Errorf("yarnclient: bridge: %w", err)
		}
		apps = append(apps, done...)
	}
	seenApp := map[string]bool{}
	for _, a := range apps {
		if seenApp[a.ID] {
			continue
		}
		seenApp[a.ID] = true
		var prev *AppSnapshot
		if b.prev != nil {
			prev = b.prev.Apps[a.ID]
		}
		if prev == nil && a.Finished() {
			continue // finished before we ever saw it
		}
		cur.Apps[a.ID] = b.appSnapshot(ctx, a, prev)
	}
	// Apps that vanished from both lists while still active: ask for them.
	if b.prev != nil {
		for id, p := range b.prev.Apps {
			if _, ok := cur.Apps[id]; ok || p.App.Finished() {
				continue
			}
			a, err := src.App(ctx, id)
			if err != nil {
				if IsNotFound(err) { // forgotten by the RM: report it killed
					gone := p.App
					gone.State, gone.FinalStatus = AppKilled, "KILLED"
					a = &gone
				} else {
					b.log.Warn().Err(err).Str("app", id).Msg("yarnclient: bridge: app vanished from the lists")
					cur.Apps[id] = p
					continue
				}
			}
			cur.Apps[id] = b.appSnapshot(ctx, *a, p)
		}
	}
	return cur, nil
}

func (b *Bridge) appSnapshot(ctx context.Context, a App, prev *AppSnapshot) *AppSnapshot {
	s := &AppSnapshot{App: a, Containers: map[string]Container{}, Tasks: map[string]*TaskSnapshot{}}
	if prev != nil {
		s.JobID, s.Job, s.InputPaths, s.JobType, s.confRead = prev.JobID, prev.Job, prev.InputPaths, prev.JobType, prev.confRead
		s.Splits, s.splitSizes, s.splitsDone = prev.Splits, prev.splitSizes, prev.splitsDone
		s.Announced = prev.Announced
		for k, v := range prev.Containers {
			s.Containers[k] = v
		}
		for k, v := range prev.Tasks {
			s.Tasks[k] = v
		}
	}
	if s.JobType == "" {
		s.JobType = jobTypeOf(a, nil)
	}
	if a.Finished() || a.State != AppRunning {
		return s
	}
	log := b.log.With().Str("app", a.ID).Logger()
	src := b.cfg.Source

	// RM: containers of the current attempt.
	if atts, err := src.AppAttempts(ctx, a.ID); err != nil {
		log.Warn().Err(err).Msg("yarnclient: bridge: app attempts")
	} else if len(atts) > 0 {
		last := atts[len(atts)-1]
		if last.AppAttemptID != "" {
			if cs, err := src.Containers(ctx, a.ID, last.AppAttemptID); err != nil {
				log.Warn().Err(err).Msg("yarnclient: bridge: containers")
			} else {
				s.Containers = map[string]Container{}
				for _, c := range cs {
					s.Containers[c.ContainerID] = c
				}
			}
		}
	}
	if !a.IsMapReduce() {
		return s
	}
	// AM: job, conf (once), tasks, attempts of unfinished tasks.
	if s.JobID == "" {
		id, err := JobIDForApp(a.ID)
		if err != nil {
			return s
		}
		s.JobID = id
	}
	jobs, err := src.MRJobs(ctx, a.ID)
	if err != nil {
		logAM(log, err, "jobs")
		return s
	}
	for i := range jobs {
		if jobs[i].ID == s.JobID || len(jobs) == 1 {
			j := jobs[i]
			s.Job, s.JobID = &j, j.ID
		}
	}
	if s.Job == nil {
		return s
	}
	if !s.confRead {
		if conf, err := src.MRJobConf(ctx, a.ID, s.JobID); err != nil {
			logAM(log, err, "conf")
		} else {
			s.confRead = true
			s.InputPaths = conf.InputPaths()
			s.JobType = jobTypeOf(a, conf)
			s.splitSizes = [2]int64{confInt(conf, "mapreduce.input.fileinputformat.split.minsize"),
				confInt(conf, "mapreduce.input.fileinputformat.split.maxsize")}
		}
	}
	if s.confRead && !s.splitsDone && b.cfg.Splits != nil && len(s.InputPaths) > 0 {
		// Once per job: a task.pending is published once, so a later answer
		// would reach no event.
		s.splitsDone = true
		splits, stale, err := b.cfg.Splits.Splits(ctx, s.InputPaths, s.splitSizes[0], s.splitSizes[1])
		switch {
		case err != nil:
			b.splits.Failed++
			log.Warn().Err(err).Strs("input", s.InputPaths).Msg("bridge: input splits unknown; task.pending without hosts")
		case stale:
			b.splits.Stale++
			s.Splits = splits
		default:
			b.splits.OK++
			s.Splits = splits
		}
	}
	tasks, err := src.MRTasks(ctx, a.ID, s.JobID, "")
	if err != nil {
		logAM(log, err, "tasks")
		return s
	}
	next := make(map[string]*TaskSnapshot, len(tasks))
	for _, t := range tasks {
		p := s.Tasks[t.ID]
		ts := &TaskSnapshot{Task: t, Attempts: map[string]MRTaskAttempt{}}
		if p != nil {
			for k, v := range p.Attempts {
				ts.Attempts[k] = v
			}
		}
		// A task finished at the last poll with every attempt finished
		// cannot change any more: skip its attempts call.
		if p == nil || !taskDone(p.Task.State) || !allAttemptsDone(p) {
			if t.State != "NEW" && t.State != "SCHEDULED" || t.SuccessfulAttempt != "" {
				atts, err := src.MRTaskAttempts(ctx, a.ID, s.JobID, t.ID)
				if err != nil {
					logAM(log, err, "attempts")
				} else {
					for _, at := range atts {
						ts.Attempts[at.ID] = at
					}
				}
			}
		}
		next[t.ID] = ts
	}
	s.Tasks = next
	return s
}

func logAM(log zerolog.Logger, err error, what string) {
	ev := log.Warn()
	if errors.Is(err, ErrAMUnavailable) {
		ev = log.Debug()
	}
	ev.Err(err).Str("read", what).Msg("yarnclient: bridge: AM read failed; keeping last state")
}

func jobTypeOf(a App, conf *JobConf) string {
	if conf != nil {
		if v, ok := conf.Get(JobTypeKey); ok && strings.TrimSpace(v) != "" {
			return strings.TrimSpace(v)
		}
	}
	for _, t := range a.Tags() {
		if v, ok := strings.CutPrefix(t, "jobtype:"); ok && v != "" {
			return v
		}
	}
	if a.ApplicationType != "" {
		return strings.ToLower(a.ApplicationType)
	}
	return "unknown"
}

func taskDone(state string) bool {
	return state == "SUCCEEDED" || state == "FAILED" || state == "KILLED"
}

func attemptDone(state string) bool { return taskDone(state) }

func allAttemptsDone(t *TaskSnapshot) bool {
	if len(t.Attempts) == 0 {
		return false
	}
	for _, a := range t.Attempts {
		if !attemptDone(a.State) {
			return false
		}
	}
	return true
}

// Diff returns the events that turn prev into cur (prev nil: everything in
// cur is new). Event IDs are left empty for the caller to assign. Diff marks
// the apps of cur whose app.submitted it emitted (AppSnapshot.Announced). The order
// is nodes first, then per app (sorted by id): app.submitted, task.pending,
// container.allocated, task.progress, task.finished, app.finished.
func Diff(prev, cur *Snapshot) []events.Event {
	if prev == nil {
		prev = &Snapshot{Nodes: map[string]Node{}, Apps: map[string]*AppSnapshot{}}
	}
	ts := cur.TS
	var out []events.Event
	emit := func(e events.Event) { e.V, e.TS = events.Version, ts; out = append(out, e) }

	// Nodes.
	for _, id := range sortedKeys(cur.Nodes) {
		n := cur.Nodes[id]
		p, had := prev.Nodes[id]
		live, wasLive := nodeLive(n.State), had && nodeLive(p.State)
		switch {
		case live && !wasLive:
			capa := n.Capacity()
			emit(events.Event{Type: events.NodeRegistered, Node: id, Rack: n.Rack, VCores: int(capa.VCores), MemoryMB: int(capa.MemoryMB), Labels: []string(n.NodeLabels)})
			emit(heartbeat(n))
		case live && heartbeatChanged(p, n):
			emit(heartbeat(n))
		case !live && wasLive:
			reason := n.State
			if n.HealthReport != "" {
				reason += ": " + n.HealthReport
			}
			emit(events.Event{Type: events.NodeLost, Node: id, Reason: reason})
		}
	}
	for _, id := range sortedKeys(prev.Nodes) {
		if _, ok := cur.Nodes[id]; !ok && nodeLive(prev.Nodes[id].State) {
			emit(events.Event{Type: events.NodeLost, Node: id, Reason: "no longer listed by the resourcemanager"})
		}
	}

	// Apps.
	for _, id := range sortedKeys(cur.Apps) {
		a := cur.Apps[id]
		p := prev.Apps[id]
		diffApp(p, a, cur, emit)
	}
	return out
}

func nodeLive(state string) bool {
	return state == NodeRunning || state == NodeNew || state == NodeDecommissioning
}

func heartbeat(n Node) events.Event {
	capa := n.Capacity()
	busy := float64(n.UsedVirtualCores)
	if n.ResourceUtilization != nil {
		busy = n.ResourceUtilization.NodeCPUUsage
	}
	util := 0.0
	if capa.VCores > 0 {
		util = busy / float64(capa.VCores)
	}
	util = math.Max(0, math.Min(1, util))
	rc := int(n.NumContainers)
	return events.Event{Type: events.NodeHeartbeat, Node: n.ID, UsedVCores: int(n.UsedVirtualCores), UsedMemoryMB: int(n.UsedMemoryMB),
		Load1: math.Max(0, busy), CPUUtil: util, RunningContainers: &rc}
}

func heartbeatChanged(p, n Node) bool {
	if p.UsedVirtualCores != n.UsedVirtualCores || p.UsedMemoryMB != n.UsedMemoryMB || p.NumContainers != n.NumContainers {
		return true
	}
	pu, nu := p.ResourceUtilization, n.ResourceUtilization
	if (pu == nil) != (nu == nil) {
		return true
	}
	return pu != nil && math.Abs(pu.NodeCPUUsage-nu.NodeCPUUsage) > 0.05
}

func diffApp(p, a *AppSnapshot, cur *Snapshot, emit func(events.Event)) {
	app := a.App
	mr := app.IsMapReduce()
	// app.submitted: at once for non-MR apps; for MR apps once the AM
	// reported the job (map and reduce counts), or at the latest when the
	// app finishes.
	if p != nil && p.Announced {
		a.Announced = true
	}
	if !a.Announced && (!mr || a.Job != nil || app.Finished()) {
		e := events.Event{Type: events.AppSubmitted, App: app.ID, Name: app.Name, Queue: app.Queue, User: app.User,
			JobType: a.JobType, InputPaths: a.InputPaths}
		if e.Name == "" {
			e.Name = app.ID
		}
		if e.Queue == "" {
			e.Queue = "default"
		}
		if e.User == "" {
			e.User = "unknown"
		}
		if a.Job != nil {
			e.Maps, e.Reduces = a.Job.MapsTotal, a.Job.ReducesTotal
		}
		prio := app.Priority
		if prio == 0 {
			prio = app.ApplicationPriority
		}
		e.Priority = &prio
		emit(e)
		a.Announced = true
	}
	if a.Announced {
		var prevTasks map[string]*TaskSnapshot
		if p != nil {
			prevTasks = p.Tasks
		}
		diffTasks(app.ID, prevTasks, a, cur, emit)
	}
	if app.Finished() && (p == nil || !p.App.Finished()) {
		emit(events.Event{Type: events.AppFinished, App: app.ID, State: finalState(app)})
	}
}

func finalState(a App) string {
	switch a.State {
	case AppFailed:
		return events.StateFailed
	case AppKilled:
		return events.StateKilled
	}
	switch a.FinalStatus {
	case "FAILED":
		return events.StateFailed
	case "KILLED":
		return events.StateKilled
	}
	return events.StateSucceeded
}

func diffTasks(appID string, prev map[string]*TaskSnapshot, a *AppSnapshot, cur *Snapshot, emit func(events.Event)) {
	for _, tid := range sortedKeys(a.Tasks) {
		t := a.Tasks[tid]
		pt := prev[tid]
		kind := events.Map
		if strings.EqualFold(t.Task.Type, TaskTypeReduce) {
			kind = events.Reduce
		}
		if pt == nil {
			e := events.Event{Type: events.TaskPending, App: appID, Task: tid, Kind: kind}
			idx, ok := taskIndex(tid)
			switch {
			case !ok:
			case kind == events.Reduce:
				e.Partition = &idx
			case idx < len(a.Splits):
				e.Splits = []events.Split{a.Splits[idx]}
			}
			emit(e)
		}
		for _, aid := range sortedKeys(t.Attempts) {
			at := t.Attempts[aid]
			var pa *MRTaskAttempt
			if pt != nil {
				if v, ok := pt.Attempts[aid]; ok {
					pa = &v
				}
			}
			// container.allocated when the attempt first shows a container.
			if at.AssignedContainerID != "" && (pa == nil || pa.AssignedContainerID == "") {
				e := events.Event{Type: events.ContainerAllocated, App: appID, Task: tid, Attempt: aid,
					Container: at.AssignedContainerID, Node: attemptNode(at, a, cur), Speculative: speculative(t, aid)}
				if c, ok := a.Containers[at.AssignedContainerID]; ok {
					e.VCores, e.MemoryMB = int(c.AllocatedVCores), int(c.AllocatedMB)
				}
				if e.Node == "" {
					e.Node = "unknown"
				}
				emit(e)
			}
			done, wasDone := attemptDone(at.State), pa != nil && attemptDone(pa.State)
			if !done && at.State != "NEW" && at.State != "UNASSIGNED" &&
				(pa == nil || pa.Progress != at.Progress || pa.Phase() != at.Phase() || pa.Status != at.Status) {
				emit(progressEvent(appID, tid, kind, at))
			}
			if done && !wasDone {
				emit(events.Event{Type: events.TaskFinished, App: appID, Task: tid, Attempt: aid, State: at.State, PhaseMS: phaseDurations(kind, at)})
			}
		}
	}
}

func progressEvent(appID, tid string, kind events.TaskKind, at MRTaskAttempt) events.Event {
	ph := at.Phase()
	switch ph {
	case events.PhaseMap, events.PhaseSort, events.PhaseShuffle, events.PhaseMerge, events.PhaseReduce:
	default:
		ph = events.PhaseMap
		if kind == events.Reduce {
			ph = events.PhaseReduce
		}
	}
	e := events.Event{Type: events.TaskProgress, App: appID, Task: tid, Attempt: at.ID,
		Progress: math.Max(0, math.Min(1, at.Progress/100)), Phase: ph}
	if f, total, ok := at.CopyProgress(); ok && f >= 0 && total >= 0 {
		e.MapsFetched, e.MapsTotal = f, total
	}
	return e
}

func phaseDurations(kind events.TaskKind, at MRTaskAttempt) *events.PhaseDurations {
	if at.StartTime <= 0 || at.FinishTime < at.StartTime {
		return nil
	}
	if kind == events.Map {
		return &events.PhaseDurations{Map: at.FinishTime - at.StartTime}
	}
	if at.ShuffleFinishTime < at.StartTime || at.MergeFinishTime < at.ShuffleFinishTime || at.FinishTime < at.MergeFinishTime || at.ShuffleFinishTime == 0 {
		return nil
	}
	return &events.PhaseDurations{
		Shuffle: at.ShuffleFinishTime - at.StartTime,
		Merge:   at.MergeFinishTime - at.ShuffleFinishTime,
		Reduce:  at.FinishTime - at.MergeFinishTime,
	}
}

// speculative reports whether another attempt of the task is still running
// next to aid (a backup copy), as opposed to a retry after a failure.
func speculative(t *TaskSnapshot, aid string) bool {
	if n, ok := attemptIndex(aid); !ok || n == 0 {
		return false
	}
	for id, o := range t.Attempts {
		if id != aid && !attemptDone(o.State) {
			return true
		}
	}
	return false
}

// attemptNode finds the RM node id of an attempt: from the RM container
// list, else by matching the attempt's node http address with a node.
func attemptNode(at MRTaskAttempt, a *AppSnapshot, cur *Snapshot) string {
	if c, ok := a.Containers[at.AssignedContainerID]; ok && c.Node() != "" {
		return c.Node()
	}
	host := cluster.HostOf(at.NodeHTTPAddress)
	ids := make([]string, 0, len(cur.Nodes))
	for id := range cur.Nodes {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		n := cur.Nodes[id]
		if n.NodeHTTPAddress == at.NodeHTTPAddress || (host != "" && n.NodeHostName == host) {
			return id
		}
	}
	return host
}

// taskIndex parses the task number from task_<cluster>_<app>_<m|r>_<n>.
func taskIndex(taskID string) (int, bool) {
	i := strings.LastIndex(taskID, "_")
	if i < 0 {
		return 0, false
	}
	n, err := strconv.Atoi(taskID[i+1:])
	return n, err == nil && n >= 0
}

// attemptIndex parses the attempt number from attempt_..._<n>.
func attemptIndex(attemptID string) (int, bool) { return taskIndex(attemptID) }

// confInt is a job conf integer; 0 when absent or not a number.
func confInt(conf *JobConf, key string) int64 {
	v, ok := conf.Get(key)
	if !ok {
		return 0
	}
	n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
	if err != nil {
		return 0
	}
	return n
}
