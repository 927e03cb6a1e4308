package cluster

import (
	"hash/maphash"
	"slices"

	"github.com/rmsidecar/rmsidecar/events"
)

// DefaultHistoryLen is how many heartbeat samples a node keeps.
const DefaultHistoryLen = 64

// View is the read-only face of the cluster state that policies see.
// Pointers it returns are shared with the State: never mutate them.
type View interface {
	// Now is the newest event time applied (epoch ms).
	Now() int64
	Node(id string) *Node
	// Nodes returns every known node in order of first sight.
	Nodes() []*Node
	// RackNodes returns the nodes of a rack in order of first sight.
	RackNodes(rack string) []*Node
	// HostNodes returns the nodes running on a host (HostOf their ids), in
	// order of first sight: usually one, several NodeManagers on one host
	// in test clusters.
	HostNodes(host string) []*Node
	// Racks returns the rack names, sorted.
	Racks() []string
	App(id string) *App
	// Apps returns every known app in order of first sight.
	Apps() []*App
	Attempt(id string) *Attempt
}

// State is the mutable cluster model. It is not safe for concurrent use:
// the engine serializes Apply and policy calls.
type State struct {
	historyLen int
	now        int64

	nodes    nodeIndex // and the nodes in order of first sight
	racks    map[string][]*Node
	rackList []string
	hosts    map[string][]*Node // by HostOf(id)

	apps     map[string]*App
	appList  []*App
	seed     maphash.Seed // of every app's task index
	attempts attemptIndex
	// lastAttempt is the attempt the newest event named (written only by
	// Apply, so concurrent readers holding the engine still may read it).
	lastAttempt *Attempt

	// Retention (see retention.go): finished apps in the order they
	// finished, the event time of the next batch of forgetting, and the
	// ids of forgotten apps whose events are ignored.
	retention  Retention
	finished   []*App
	nextForget int64
	gone       map[string]int64
	goneList   []goneApp
	// notGone is an app id found not gone, so the events of one app in a
	// row look gone up once (a map look-up per event in the simulator,
	// which forgets finished apps); drop clears it.
	notGone string
}

var _ View = (*State)(nil)

// Option configures a State.
type Option func(*State)

// WithHistoryLen sets how many heartbeat samples each node keeps.
func WithHistoryLen(n int) Option {
	return func(s *State) {
		if n > 0 {
			s.historyLen = n
		}
	}
}

// New returns an empty State.
func New(opts ...Option) *State {
	s := &State{
		historyLen: DefaultHistoryLen,
		racks:      make(map[string][]*Node),
		hosts:      make(map[string][]*Node),
		apps:       make(map[string]*App),
		seed:       maphash.MakeSeed(),
	}
	for _, o := range opts {
		o(s)
	}
	return s
}

// Now implements View.
func (s *State) Now() int64 { return s.now }

// Node implements View.
func (s *State) Node(id string) *Node { return s.nodes.get(id) }

// Nodes implements View.
func (s *State) Nodes() []*Node { return s.nodes.list }

// RackNodes implements View.
func (s *State) RackNodes(rack string) []*Node { return s.racks[rack] }

// HostNodes implements View.
func (s *State) HostNodes(host string) []*Node { return s.hosts[host] }

// Racks implements View.
func (s *State) Racks() []string { return s.rackList }

// App implements View.
func (s *State) App(id string) *App { return s.apps[id] }

// Apps implements View.
func (s *State) Apps() []*App { return s.appList }

// Attempt implements View. The attempt the last event applied named is
// answered without a map lookup: observers look it up again right after.
func (s *State) Attempt(id string) *Attempt {
	if at := s.lastAttempt; at != nil && at.hasID(id) {
		return at
	}
	return s.attempts.get(id)
}

// Apply folds one event into the state and reports whether anything changed.
// It is idempotent: applying an event again, or an event older than what an
// entity already holds, changes nothing.
func (s *State) Apply(ev *events.Event) bool {
	if ev.TS > s.now {
		s.now = ev.TS
	}
	changed := s.apply(ev)
	s.forget()
	return changed
}

func (s *State) apply(ev *events.Event) bool {
	if ev.App != "" && s.gone != nil && ev.App != s.notGone {
		if _, ok := s.gone[ev.App]; ok {
			return false // finished and forgotten: a late event must not bring it back
		}
		s.notGone = ev.App
	}
	switch ev.Type {
	case events.NodeRegistered:
		return s.nodeRegistered(ev)
	case events.NodeHeartbeat:
		return s.nodeHeartbeat(ev)
	case events.NodeLost:
		return s.nodeLost(ev)
	case events.AppSubmitted:
		return s.appSubmitted(ev)
	case events.AppFinished:
		return s.appFinished(ev)
	case events.TaskPending:
		return s.taskPending(ev)
	case events.ContainerAllocated:
		return s.containerAllocated(ev)
	case events.TaskProgress:
		return s.taskProgress(ev)
	case events.TaskFinished:
		return s.taskFinished(ev)
	case events.MapOutput:
		return s.mapOutput(ev)
	}
	return false
}

func (s *State) node(id string) *Node {
	n := s.nodes.get(id)
	if n == nil {
		n = &Node{ID: id}
		s.nodes.add(n)
		h := HostOf(id)
		s.hosts[h] = append(s.hosts[h], n)
	}
	return n
}

func (s *State) setRack(n *Node, rack string) {
	if n.Rack == rack {
		return
	}
	// rackList stays sorted by inserting and deleting the one rack that
	// appears or empties: rebuilding and sorting it on every registration
	// was 40 % of building a 10,000-node cluster (250 racks).
	if n.Rack != "" {
		s.racks[n.Rack] = slices.DeleteFunc(s.racks[n.Rack], func(x *Node) bool { return x == n })
		if len(s.racks[n.Rack]) == 0 {
			delete(s.racks, n.Rack)
			if i, ok := slices.BinarySearch(s.rackList, n.Rack); ok {
				s.rackList = slices.Delete(s.rackList, i, i+1)
			}
		}
	}
	n.Rack = rack
	if _, ok := s.racks[rack]; !ok {
		i, _ := slices.BinarySearch(s.rackList, rack)
		s.rackList = slices.Insert(s.rackList, i, rack)
	}
	s.racks[rack] = append(s.racks[rack], n)
}

// nodeRegistered and nodeLost share the lifecycle stamp: the newer decides.
func (s *State) nodeRegistered(ev *events.Event) bool {
	n := s.node(ev.Node)
	if !n.regStamp.before(ev.TS, ev.ID) {
		return false
	}
	n.regStamp = stamp{ev.TS, ev.ID}
	s.setRack(n, ev.Rack)
	n.State = NodeRunning
	n.LostReason = ""
	n.VCores, n.MemoryMB, n.CPUMHz = ev.VCores, ev.MemoryMB, ev.CPUMHz
	n.PowerIdleW, n.PowerMaxW = ev.PowerIdleW, ev.PowerMaxW
	n.Labels = ev.Labels
	return true
}

func (s *State) nodeLost(ev *events.Event) bool {
	n := s.node(ev.Node)
	if !n.regStamp.before(ev.TS, ev.ID) {
		return false
	}
	n.regStamp = stamp{ev.TS, ev.ID}
	n.State = NodeLost
	n.LostReason = ev.Reason
	return true
}

func (s *State) nodeHeartbeat(ev *events.Event) bool {
	n := s.nodes.next(ev.Node, &s.nodes.heartbeat)
	if n == nil {
		n = s.node(ev.Node)
	}
	changed := s.addSample(n, LoadSample{TS: ev.TS, Load1: ev.Load1, CPUUtil: ev.CPUUtil})
	if !n.hbStamp.before(ev.TS, ev.ID) {
		return changed
	}
	n.hbStamp = stamp{ev.TS, ev.ID}
	n.HeartbeatTS = ev.TS
	n.UsedVCores, n.UsedMemoryMB = ev.UsedVCores, ev.UsedMemoryMB
	n.Load1, n.CPUUtil = ev.Load1, ev.CPUUtil
	n.DiskReadBps, n.DiskWriteBps = ev.DiskReadBps, ev.DiskWriteBps
	n.NetRxBps, n.NetTxBps = ev.NetRxBps, ev.NetTxBps
	if ev.RunningContainers != nil {
		n.ReportedContainers = *ev.RunningContainers
	}
	return true
}

// addSample keeps the newest historyLen samples sorted by time, one per ts.
func (s *State) addSample(n *Node, smp LoadSample) bool {
	return n.History.add(smp, s.historyLen)
}

func (s *State) app(id string) *App {
	a := s.apps[id]
	if a == nil {
		a = &App{ID: id, seed: s.seed, Count: map[events.TaskKind]*TaskCounts{
			events.Map: {}, events.Reduce: {},
		}}
		s.apps[id] = a
		s.appList = append(s.appList, a)
	}
	return a
}

func (s *State) appSubmitted(ev *events.Event) bool {
	a := s.app(ev.App)
	if !a.subStamp.before(ev.TS, ev.ID) {
		return false
	}
	a.subStamp = stamp{ev.TS, ev.ID}
	a.submitted = true
	a.Name, a.Queue, a.User, a.JobType = ev.Name, ev.Queue, ev.User, ev.JobType
	a.Maps, a.Reduces, a.InputPaths = ev.Maps, ev.Reduces, ev.InputPaths
	a.Priority = 0
	if ev.Priority != nil {
		a.Priority = *ev.Priority
	}
	a.Features, a.Utility = ev.Features, ev.Utility
	a.SubmitTS = ev.TS
	if a.finStamp == (stamp{}) {
		a.State = AppRunning
	}
	return true
}

func (s *State) appFinished(ev *events.Event) bool {
	a := s.app(ev.App)
	if !a.finStamp.before(ev.TS, ev.ID) {
		return false
	}
	a.finStamp = stamp{ev.TS, ev.ID}
	a.State = AppState(ev.State)
	a.FinishTS = ev.TS
	if a.Finished() {
		s.endWithApp(a)
		s.noteFinished(a)
	}
	return true
}

// endWithApp closes the attempts of a finished app that still run in the
// model. YARN releases an application's containers when it ends; an attempt
// whose task.finished never arrived (the bridge misses a task that ends
// between its last poll and its app's end; a lost event) would otherwise
// hold its node's capacity until the app is forgotten. The outcome follows
// the app: in a SUCCEEDED app a task without a succeeded attempt succeeded
// with its earliest-started running attempt (the job could not have
// succeeded otherwise); every other such attempt is KILLED, as MapReduce
// kills leftover attempts when a job ends. The finish stamp is left alone,
// so the real task.finished, if it arrives late, still applies.
func (s *State) endWithApp(a *App) {
	for _, t := range a.Tasks {
		var winner *Attempt
		if a.State == events.StateSucceeded && t.State != TaskSucceeded {
			for _, at := range t.Attempts {
				if at.Running() && (winner == nil || at.StartTS < winner.StartTS) {
					winner = at
				}
			}
		}
		for _, at := range t.Attempts {
			if !at.Running() {
				continue
			}
			at.State, at.FinishTS = events.StateKilled, a.FinishTS
			if at == winner {
				at.State = events.StateSucceeded
			}
			s.attemptChanged(at)
		}
	}
}

func (s *State) task(a *App, id string, kind events.TaskKind) *Task {
	t := a.Task(id)
	if t == nil {
		t = &Task{ID: id, App: a, Kind: kind, Partition: -1, State: TaskPending, seq: int32(len(a.Tasks))}
		if t.Kind == "" {
			t.Kind = kindFromID(id)
		}
		a.Tasks = append(a.Tasks, t)
		a.indexLast()
		a.Count[t.Kind].Pending++
	}
	return t
}

// kindFromID infers the kind of a task first seen without a task.pending
// event from the Hadoop naming scheme (task_..._m_000001 / _r_).
func kindFromID(id string) events.TaskKind {
	for i := len(id) - 1; i >= 2; i-- {
		if id[i] == '_' && id[i-2] == '_' {
			if id[i-1] == 'r' {
				return events.Reduce
			}
			return events.Map
		}
	}
	return events.Map
}

func (s *State) taskPending(ev *events.Event) bool {
	a := s.app(ev.App)
	t := s.task(a, ev.Task, ev.Kind)
	if !t.pendStamp().before(ev.TS, ev.ID) {
		return false
	}
	t.PendingTS, t.pendID = ev.TS, ev.ID // the pending stamp
	t.pending = true
	if t.Kind != ev.Kind {
		s.setTaskState(t, t.State, ev.Kind)
	}
	t.Splits = ev.Splits
	t.Partition = -1
	if ev.Partition != nil {
		t.Partition = *ev.Partition
	}
	return true
}

func (s *State) attempt(ev *events.Event) *Attempt {
	return s.attemptVia(ev, nil)
}

// attemptVia is attempt, finding an existing attempt through c when c is
// not nil (attemptIndex.next).
func (s *State) attemptVia(ev *events.Event, c *cursor) *Attempt {
	var at *Attempt
	if c != nil {
		at = s.attempts.next(ev.Attempt, c)
	} else {
		at = s.attempts.get(ev.Attempt)
	}
	if at == nil {
		a := s.app(ev.App)
		t := s.task(a, ev.Task, "")
		at = &Attempt{ID: ev.Attempt, Task: t}
		s.attempts.put(at)
		t.addAttempt(at)
	}
	s.lastAttempt = at
	return at
}

func (s *State) containerAllocated(ev *events.Event) bool {
	at := s.attempt(ev)
	if !at.allocStamp().before(ev.TS, ev.ID) {
		return false
	}
	at.StartTS, at.allocID = ev.TS, ev.ID // the allocation stamp
	at.allocated = true
	// The node's own id string, so the attempts on a node share one.
	at.Container, at.Node = ev.Container, s.node(ev.Node).ID
	at.Speculative, at.Locality = ev.Speculative, ev.Locality
	at.VCores, at.MemoryMB = ev.VCores, ev.MemoryMB
	s.attemptChanged(at)
	if a := at.Task.App; a.Finished() && at.Running() {
		s.endWithApp(a) // an allocation reported after its app ended
	}
	return true
}

func (s *State) taskProgress(ev *events.Event) bool {
	at := s.attemptVia(ev, &s.attempts.progress)
	if !at.progStamp().before(ev.TS, ev.ID) {
		return false
	}
	at.progID = ev.ID // with ProgressTS below, the progress stamp
	at.Progress, at.Phase, at.ProgressTS = ev.Progress, ev.Phase, ev.TS
	at.PhaseProgress = 0
	if ev.PhaseProgress != nil {
		at.PhaseProgress = *ev.PhaseProgress
	}
	at.RecordsDone, at.RecordsTotal, at.BytesRead = ev.RecordsDone, ev.RecordsTotal, ev.BytesRead
	at.MapsFetched, at.MapsTotal = ev.MapsFetched, ev.MapsTotal
	return true
}

func (s *State) taskFinished(ev *events.Event) bool {
	at := s.attempt(ev)
	if !at.finStamp().before(ev.TS, ev.ID) {
		return false
	}
	at.lateStamps().fin = stamp{ev.TS, ev.ID}
	at.State, at.FinishTS, at.PhaseMS = ev.State, ev.TS, ev.PhaseMS
	s.attemptChanged(at)
	return true
}

func (s *State) mapOutput(ev *events.Event) bool {
	at := s.attempt(ev)
	if !at.outStamp().before(ev.TS, ev.ID) {
		return false
	}
	at.lateStamps().out = stamp{ev.TS, ev.ID}
	at.Output = ev.Partitions
	if at.Node == "" {
		at.Node = ev.Node
	}
	return true
}

// attemptChanged re-derives what depends on an attempt: the node's running
// list and the task's state.
func (s *State) attemptChanged(at *Attempt) {
	on := at.Running() && at.Node != ""
	if old := at.onNode; old != nil && (!on || old.ID != at.Node) {
		old.Running = slices.DeleteFunc(old.Running, func(x *Attempt) bool { return x == at })
		at.onNode = nil
	}
	if on && at.onNode == nil {
		n := s.node(at.Node)
		n.Running = append(n.Running, at)
		at.onNode = n
	}
	t := at.Task
	state, finish := TaskPending, int64(0)
	for _, a := range t.Attempts {
		switch {
		case a.State == events.StateSucceeded:
			if state != TaskSucceeded || a.FinishTS < finish {
				finish = a.FinishTS
			}
			state = TaskSucceeded
		case a.Running() && state == TaskPending:
			state = TaskRunning
		}
	}
	t.FinishTS = finish
	s.setTaskState(t, state, t.Kind)
}

func (s *State) setTaskState(t *Task, state TaskState, kind events.TaskKind) {
	if t.State == state && t.Kind == kind {
		return
	}
	if state == TaskPending {
		t.App.Repended++
	}
	counts := t.App.Count
	counts[t.Kind].add(t.State, -1)
	counts[kind].add(state, 1)
	t.State, t.Kind = state, kind
}

func (c *TaskCounts) add(st TaskState, d int) {
	switch st {
	case TaskPending:
		c.Pending += d
	case TaskRunning:
		c.Running += d
	case TaskSucceeded:
		c.Succeeded += d
	}
}
