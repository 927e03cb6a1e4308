package cluster

import (
	"cmp"
	"fmt"
	"hash/maphash"
	"slices"

	"github.com/rmsidecar/rmsidecar/events"
)

// CheckpointVersion is the version of the Checkpoint shape.
const CheckpointVersion = 1

// Checkpoint is a restorable copy of a State. Unlike Snapshot, which is
// canonical for comparison, it keeps the entities' order of first sight and
// the (ts, id) stamps that make Apply idempotent, so a restored State accepts
// and rejects exactly the events the original would: re-applying an event
// already in the checkpoint changes nothing after a restart.
type Checkpoint struct {
	V          int         `json:"v"`
	HistoryLen int         `json:"history_len"`
	Now        int64       `json:"now"`
	Nodes      []NodeCk    `json:"nodes"`
	Apps       []AppCk     `json:"apps"`
	Attempts   []AttemptCk `json:"attempts"`
	// Gone are the apps forgotten after they finished (see Retention), with
	// the event time they were forgotten at, so that events re-consumed
	// after a restart do not bring them back.
	Gone []GoneCk `json:"gone,omitempty"`
	_    struct{} `json:"-"`
}

// Stamp is the exported form of a field group's (ts, id) write stamp.
type Stamp struct {
	TS int64  `json:"ts,omitempty"`
	ID string `json:"id,omitempty"`
}

func exportStamp(s stamp) Stamp { return Stamp{TS: s.ts, ID: s.id} }
func (s Stamp) internal() stamp { return stamp{ts: s.TS, id: s.ID} }

// GoneCk is a forgotten app.
type GoneCk struct {
	ID string `json:"id"`
	TS int64  `json:"ts"`
}

// NodeCk is a node with its stamps.
type NodeCk struct {
	Node
	// History is the node's Node.History as a slice, which it shadows in
	// JSON: the same key in the same place (the last of Node's). A checkpoint
	// is encoded straight from the slice; a History encodes through its
	// MarshalJSON, a new []byte per node (about 45 MB more allocated per
	// save at 10,000 nodes).
	History []LoadSample `json:"history,omitempty"`
	Reg     Stamp        `json:"reg_stamp"`
	HB      Stamp        `json:"hb_stamp"`
	// RunningIDs keeps the order of the node's running attempts.
	RunningIDs []string `json:"running,omitempty"`
}

// AppCk is an app with its stamps and its tasks in order of first sight.
type AppCk struct {
	App
	Sub       Stamp    `json:"sub_stamp"`
	Fin       Stamp    `json:"fin_stamp"`
	Submitted bool     `json:"submitted"`
	Tasks     []TaskCk `json:"tasks"`
}

// TaskCk is a task with its stamp; its attempts are listed in
// Checkpoint.Attempts in their original order.
type TaskCk struct {
	Task
	Pend    Stamp `json:"pend_stamp"`
	Pending bool  `json:"pending"`
}

// AttemptCk is an attempt with its stamps and the app and task it belongs to.
//
// Its first fields are Attempt's exported fields, in Attempt's order with
// its JSON names (TestAttemptCkMirrorsAttempt), so its JSON is what an
// AttemptCk embedding the Attempt wrote; it does not embed one because the
// loop's copy of the state for a checkpoint holds one per attempt, and an
// embedded Attempt carried its index key and unexported stamps, zeroed: 456
// bytes instead of 368, 9.7 MB of a 110,000-attempt copy.
type AttemptCk struct {
	ID            string                 `json:"id"`
	Container     string                 `json:"container,omitempty"`
	Node          string                 `json:"node,omitempty"`
	Speculative   bool                   `json:"speculative,omitempty"`
	Locality      events.Locality        `json:"locality,omitempty"`
	VCores        int                    `json:"vcores,omitempty"`
	MemoryMB      int                    `json:"memory_mb,omitempty"`
	StartTS       int64                  `json:"start_ts"`
	Progress      float64                `json:"progress"`
	Phase         string                 `json:"phase,omitempty"`
	PhaseProgress float64                `json:"phase_progress,omitempty"`
	ProgressTS    int64                  `json:"progress_ts,omitempty"`
	RecordsDone   int64                  `json:"records_done,omitempty"`
	RecordsTotal  int64                  `json:"records_total,omitempty"`
	BytesRead     int64                  `json:"bytes_read,omitempty"`
	MapsFetched   int                    `json:"maps_fetched,omitempty"`
	MapsTotal     int                    `json:"maps_total,omitempty"`
	State         string                 `json:"state,omitempty"`
	FinishTS      int64                  `json:"finish_ts,omitempty"`
	PhaseMS       *events.PhaseDurations `json:"phase_ms,omitempty"`
	Output        []events.PartitionSize `json:"output,omitempty"`

	App       string `json:"app"`
	TaskID    string `json:"task"`
	Alloc     Stamp  `json:"alloc_stamp"`
	Prog      Stamp  `json:"prog_stamp"`
	Fin       Stamp  `json:"fin_stamp"`
	Out       Stamp  `json:"out_stamp"`
	Allocated bool   `json:"allocated"`
}

// exportAttempt is at in a checkpoint.
func exportAttempt(at *Attempt, app, task string) AttemptCk {
	return AttemptCk{ID: at.ID, Container: at.Container, Node: at.Node, Speculative: at.Speculative,
		Locality: at.Locality, VCores: at.VCores, MemoryMB: at.MemoryMB, StartTS: at.StartTS,
		Progress: at.Progress, Phase: at.Phase, PhaseProgress: at.PhaseProgress, ProgressTS: at.ProgressTS,
		RecordsDone: at.RecordsDone, RecordsTotal: at.RecordsTotal, BytesRead: at.BytesRead,
		MapsFetched: at.MapsFetched, MapsTotal: at.MapsTotal, State: at.State, FinishTS: at.FinishTS,
		PhaseMS: at.PhaseMS, Output: at.Output,
		App: app, TaskID: task,
		Alloc: exportStamp(at.allocStamp()), Prog: exportStamp(at.progStamp()),
		Fin: exportStamp(at.finStamp()), Out: exportStamp(at.outStamp()), Allocated: at.allocated}
}

// attempt is the Attempt c holds (its exported fields; Restore sets the rest).
func (c *AttemptCk) attempt() *Attempt {
	return &Attempt{ID: c.ID, Container: c.Container, Node: c.Node, Speculative: c.Speculative,
		Locality: c.Locality, VCores: c.VCores, MemoryMB: c.MemoryMB, StartTS: c.StartTS,
		Progress: c.Progress, Phase: c.Phase, PhaseProgress: c.PhaseProgress, ProgressTS: c.ProgressTS,
		RecordsDone: c.RecordsDone, RecordsTotal: c.RecordsTotal, BytesRead: c.BytesRead,
		MapsFetched: c.MapsFetched, MapsTotal: c.MapsTotal, State: c.State, FinishTS: c.FinishTS,
		PhaseMS: c.PhaseMS, Output: c.Output}
}

// Checkpoint returns a restorable deep copy of the state.
func (s *State) Checkpoint() *Checkpoint { return s.checkpoint(true) }

// CheckpointForSave is Checkpoint with each node's history left in its
// compact form: NodeCk.Node.History holds a copy of the node's ring and
// NodeCk.History is nil. The loop's copy of the state for a save is then
// about 10 MB smaller at 10,000 nodes (a ring of 64 samples is about 500
// bytes, the slice 1.5 KB). Its JSON lacks the histories until
// FillHistories, or NodeCk.WithSamples per node (the chunked save, which
// needs no slice per node); Restore takes either form.
func (s *State) CheckpointForSave() *Checkpoint { return s.checkpoint(false) }

// FillHistories gives every node whose NodeCk.History is nil its history as
// that slice (a CheckpointForSave as Checkpoint would have made it).
func (c *Checkpoint) FillHistories() {
	for i := range c.Nodes {
		nc := &c.Nodes[i]
		if nc.History == nil {
			nc.History, nc.Node.History = nc.Node.History.Samples(), History{}
		}
	}
}

// WithSamples returns nc with its compact history (CheckpointForSave) as
// NodeCk.History in buf's array, for encoding: nc itself when it has no
// compact history. buf is the array to reuse, returned for the next call.
func (nc *NodeCk) WithSamples(tmp *NodeCk, buf []LoadSample) (*NodeCk, []LoadSample) {
	if nc.History != nil || nc.Node.History.Len() == 0 {
		return nc, buf
	}
	*tmp = *nc
	buf = nc.Node.History.appendTo(buf[:0])
	tmp.History, tmp.Node.History = buf, History{}
	return tmp, buf
}

func (s *State) checkpoint(histories bool) *Checkpoint {
	c := &Checkpoint{V: CheckpointVersion, HistoryLen: s.historyLen, Now: s.now,
		Nodes: make([]NodeCk, 0, len(s.nodes.list)), Apps: make([]AppCk, 0, len(s.appList)),
		Attempts: make([]AttemptCk, 0, s.attempts.Len())}
	for _, n := range s.nodes.list {
		nc := NodeCk{Node: *n, Reg: exportStamp(n.regStamp), HB: exportStamp(n.hbStamp)}
		nc.Running = nil
		if len(n.Running) > 0 {
			nc.RunningIDs = make([]string, 0, len(n.Running)) // grown by append: 16 slots for 10
		}
		for _, at := range n.Running {
			nc.RunningIDs = append(nc.RunningIDs, at.ID)
		}
		nc.Labels = append([]string(nil), n.Labels...)
		if histories {
			nc.Node.History, nc.History = History{}, n.History.Samples()
		} else {
			nc.Node.History = n.History.copyRing()
		}
		c.Nodes = append(c.Nodes, nc)
	}
	for _, a := range s.appList {
		ac := AppCk{App: *a, Sub: exportStamp(a.subStamp), Fin: exportStamp(a.finStamp), Submitted: a.submitted,
			Tasks: make([]TaskCk, 0, len(a.Tasks))}
		ac.App.Tasks, ac.App.Count, ac.App.taskSlots, ac.App.seed = nil, nil, nil, maphash.Seed{}
		for _, t := range a.Tasks {
			tc := TaskCk{Task: *t, Pend: exportStamp(t.pendStamp()), Pending: t.pending}
			tc.Task.App, tc.Task.Attempts, tc.Task.first = nil, nil, [1]*Attempt{}
			ac.Tasks = append(ac.Tasks, tc)
			for _, at := range t.Attempts {
				c.Attempts = append(c.Attempts, exportAttempt(at, a.ID, t.ID))
			}
		}
		c.Apps = append(c.Apps, ac)
	}
	for _, g := range s.goneList {
		if s.gone[g.ID] == g.TS {
			c.Gone = append(c.Gone, GoneCk(g))
		}
	}
	return c
}

// Restore rebuilds a State from a checkpoint. Derived facts (node running
// lists, task states and app counters) are recomputed, not trusted.
func Restore(c *Checkpoint, opts ...Option) (*State, error) {
	if c == nil {
		return nil, fmt.Errorf("restore cluster state: nil checkpoint")
	}
	if c.V != CheckpointVersion {
		return nil, fmt.Errorf("restore cluster state: checkpoint version %d, want %d", c.V, CheckpointVersion)
	}
	s := New(append([]Option{WithHistoryLen(c.HistoryLen)}, opts...)...)
	s.now = c.Now
	for i := range c.Nodes {
		nc := &c.Nodes[i]
		if nc.ID == "" {
			return nil, fmt.Errorf("restore cluster state: nodes[%d]: empty id", i)
		}
		n := s.node(nc.ID)
		rack := nc.Rack
		*n = nc.Node
		n.key.set(n.ID, "") // the index's copy of the id, as add made it
		n.Rack, n.Running = "", nil
		n.History = History{}
		samples := nc.History
		if samples == nil { // CheckpointForSave's form
			samples = nc.Node.History.Samples()
		}
		if len(samples) > 0 { // a ring of the node's own, room for the state's length
			n.History = History{buildRing(samples, max(s.historyLen, len(samples)), false)}
		}
		if rack != "" {
			s.setRack(n, rack)
		}
		n.regStamp, n.hbStamp = nc.Reg.internal(), nc.HB.internal()
	}
	for i := range c.Apps {
		ac := &c.Apps[i]
		if ac.ID == "" {
			return nil, fmt.Errorf("restore cluster state: apps[%d]: empty id", i)
		}
		a := s.app(ac.ID)
		slots, seed, count := a.taskSlots, a.seed, a.Count
		*a = ac.App
		a.taskSlots, a.seed, a.Count, a.Tasks = slots, seed, count, nil
		a.subStamp, a.finStamp, a.submitted = ac.Sub.internal(), ac.Fin.internal(), ac.Submitted
		for j := range ac.Tasks {
			tc := &ac.Tasks[j]
			if tc.Kind != events.Map && tc.Kind != events.Reduce {
				return nil, fmt.Errorf("restore cluster state: app %s task %s: kind %q", ac.ID, tc.ID, tc.Kind)
			}
			t := s.task(a, tc.ID, tc.Kind)
			seq := t.seq
			*t = tc.Task
			t.seq = seq
			// Counts start from the pending state s.task recorded; the
			// attempts below re-derive the real state.
			t.App, t.State, t.FinishTS, t.Attempts, t.first = a, TaskPending, 0, nil, [1]*Attempt{}
			// As for attempts below: the pending stamp's time is PendingTS,
			// which a checkpoint holds twice; the stamp decides.
			t.PendingTS, t.pendID, t.pending = tc.Pend.TS, tc.Pend.ID, tc.Pending
		}
	}
	for i := range c.Attempts {
		atc := &c.Attempts[i]
		a := s.apps[atc.App]
		if a == nil || a.Task(atc.TaskID) == nil {
			return nil, fmt.Errorf("restore cluster state: attempt %s: unknown task %s/%s", atc.ID, atc.App, atc.TaskID)
		}
		t := a.Task(atc.TaskID)
		at := atc.attempt()
		at.Task = t
		// The allocation and progress stamps' times are StartTS and
		// ProgressTS, which a checkpoint holds twice (as the attempt's fields
		// and in its stamps): the stamps decide, as they did when written.
		at.StartTS, at.allocID = atc.Alloc.TS, atc.Alloc.ID
		at.ProgressTS, at.progID = atc.Prog.TS, atc.Prog.ID
		if fin, out := atc.Fin.internal(), atc.Out.internal(); fin != (stamp{}) || out != (stamp{}) {
			at.late = &lateStamps{fin: fin, out: out}
		}
		at.allocated = atc.Allocated
		s.attempts.put(at)
		t.addAttempt(at)
		if at.Node != "" && at.Running() {
			s.node(at.Node)
		}
		s.attemptChanged(at)
	}
	for _, g := range c.Gone {
		if g.ID == "" || s.apps[g.ID] != nil {
			return nil, fmt.Errorf("restore cluster state: gone app %q: empty or still present", g.ID)
		}
		if s.gone == nil {
			s.gone = make(map[string]int64)
		}
		s.gone[g.ID] = g.TS
		s.goneList = append(s.goneList, goneApp(g))
	}
	// The retention queue: finished apps in the order they finished.
	var fin []*App
	for _, a := range s.appList {
		if a.Finished() {
			fin = append(fin, a)
		}
	}
	slices.SortStableFunc(fin, func(a, b *App) int { return cmp.Compare(a.FinishTS, b.FinishTS) })
	for _, a := range fin {
		s.noteFinished(a)
	}
	// Running lists were rebuilt in attempt order; put them back in arrival order.
	for i := range c.Nodes {
		n := s.nodes.get(c.Nodes[i].ID)
		if len(n.Running) < 2 {
			continue
		}
		pos := make(map[string]int, len(c.Nodes[i].RunningIDs))
		for j, id := range c.Nodes[i].RunningIDs {
			pos[id] = j
		}
		slices.SortStableFunc(n.Running, func(a, b *Attempt) int { return cmp.Compare(pos[a.ID], pos[b.ID]) })
	}
	return s, nil
}
