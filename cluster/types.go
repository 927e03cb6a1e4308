package cluster

import (
	"hash/maphash"

	"github.com/rmsidecar/rmsidecar/events"
)

// stamp orders writes to one field group: (ts, id) compared lexicographically.
type stamp struct {
	ts int64
	id string
}

func (s stamp) before(ts int64, id string) bool {
	return s.ts < ts || (s.ts == ts && s.id < id)
}

// NodeState is the lifecycle state of a node.
type NodeState string

// Node states.
const (
	NodeUnknown NodeState = "" // seen in a heartbeat before registration
	NodeRunning NodeState = "RUNNING"
	NodeLost    NodeState = "LOST"
)

// LoadSample is one heartbeat's load reading.
type LoadSample struct {
	TS      int64   `json:"ts"`
	Load1   float64 `json:"load1"`
	CPUUtil float64 `json:"cpu_util"`
}

// Node is one NodeManager host.
type Node struct {
	ID         string    `json:"id"`
	Rack       string    `json:"rack"`
	State      NodeState `json:"state"`
	LostReason string    `json:"lost_reason,omitempty"`
	VCores     int       `json:"vcores"`
	MemoryMB   int       `json:"memory_mb"`
	CPUMHz     int       `json:"cpu_mhz,omitempty"`
	PowerIdleW float64   `json:"power_idle_w,omitempty"`
	PowerMaxW  float64   `json:"power_max_w,omitempty"`
	Labels     []string  `json:"labels,omitempty"`

	// key is the node's copy of ID, which the node index compares; it and
	// hbStamp sit with what a heartbeat writes.
	key idKey

	// Latest heartbeat.
	HeartbeatTS        int64   `json:"heartbeat_ts"`
	UsedVCores         int     `json:"used_vcores"`
	UsedMemoryMB       int     `json:"used_memory_mb"`
	Load1              float64 `json:"load1"`
	CPUUtil            float64 `json:"cpu_util"`
	DiskReadBps        float64 `json:"disk_read_bps,omitempty"`
	DiskWriteBps       float64 `json:"disk_write_bps,omitempty"`
	NetRxBps           float64 `json:"net_rx_bps,omitempty"`
	NetTxBps           float64 `json:"net_tx_bps,omitempty"`
	ReportedContainers int     `json:"reported_containers"`
	hbStamp            stamp

	// History holds the newest heartbeat samples, oldest first.
	History History `json:"history,omitzero"`

	// Running lists the attempts currently running on this node (order of arrival).
	Running []*Attempt `json:"-"`

	regStamp stamp
}

// FreeVCores is the capacity not used according to the latest heartbeat.
func (n *Node) FreeVCores() int { return max(0, n.VCores-n.UsedVCores) }

// FreeMemoryMB is the memory not used according to the latest heartbeat.
func (n *Node) FreeMemoryMB() int { return max(0, n.MemoryMB-n.UsedMemoryMB) }

// AppState is the lifecycle state of an application.
type AppState string

// App states; finished apps carry the state of their app.finished event.
const (
	AppRunning AppState = "RUNNING"
)

// App is one MapReduce application (job).
type App struct {
	ID         string           `json:"id"`
	Name       string           `json:"name"`
	Queue      string           `json:"queue"`
	User       string           `json:"user"`
	JobType    string           `json:"job_type"`
	Maps       int              `json:"maps"`
	Reduces    int              `json:"reduces"`
	InputPaths []string         `json:"input_paths,omitempty"`
	Priority   int              `json:"priority"`
	Features   *events.Features `json:"features,omitempty"`
	Utility    string           `json:"utility,omitempty"`
	SubmitTS   int64            `json:"submit_ts"`
	State      AppState         `json:"state"`
	FinishTS   int64            `json:"finish_ts,omitempty"`

	// Tasks in order of first sight.
	Tasks []*Task `json:"-"`
	// Counts of tasks by kind and state, kept in step with Tasks.
	Count map[events.TaskKind]*TaskCounts `json:"-"`
	// Repended counts the times one of Tasks became pending again or
	// changed kind while pending: a policy that remembers which tasks are
	// not pending (or of another kind) need look again only when it moves.
	Repended uint64 `json:"-"`

	subStamp, finStamp stamp
	submitted          bool
	taskSlots          []uint32     // Tasks by id (taskindex.go)
	seed               maphash.Seed // the hash seed of taskSlots
	// queued: waiting in State.finished to be forgotten; gone: forgotten.
	queued, gone bool
}

// TaskCounts counts an app's tasks of one kind by state.
type TaskCounts struct {
	Pending, Running, Succeeded int
}

// Finished reports whether the app has ended.
func (a *App) Finished() bool { return a.State != AppRunning && a.State != "" }

// TaskState is the derived state of a task.
type TaskState string

// Task states, derived from the task's attempts.
const (
	TaskPending   TaskState = "PENDING"
	TaskRunning   TaskState = "RUNNING"
	TaskSucceeded TaskState = "SUCCEEDED"
)

// Task is one map or reduce task of an app.
type Task struct {
	ID        string          `json:"id"`
	App       *App            `json:"-"`
	Kind      events.TaskKind `json:"kind"`
	Splits    []events.Split  `json:"splits,omitempty"`
	Partition int             `json:"partition"` // -1 unless a reduce with a known partition
	PendingTS int64           `json:"pending_ts"`
	State     TaskState       `json:"state"`
	FinishTS  int64           `json:"finish_ts,omitempty"`
	// Attempts in order of first sight.
	Attempts []*Attempt `json:"attempts"`

	// The task.pending stamp is (PendingTS, pendID): PendingTS is written
	// only with it, so the task holds the time once.
	pendID string
	// first backs Attempts while the task has one attempt (nearly every
	// task), so a task and its attempt list are one allocation. A Task is
	// 160 bytes; with the stamp's time twice and a separately allocated
	// list it was 176 plus an 8-byte object.
	first   [1]*Attempt
	pending bool  // a task.pending event was seen
	seq     int32 // position in App.Tasks (fits in pending's padding)
}

func (t *Task) pendStamp() stamp { return stamp{t.PendingTS, t.pendID} }

// addAttempt appends at to t.Attempts, the first one into t.first.
func (t *Task) addAttempt(at *Attempt) {
	if t.Attempts == nil {
		t.first[0] = at
		t.Attempts = t.first[:1:1]
		return
	}
	t.Attempts = append(t.Attempts, at)
}

// Seq is the task's position in its app's Tasks (order of first sight), so
// a policy can keep per-task data in a slice parallel to Tasks.
func (t *Task) Seq() int { return int(t.seq) }

// Running returns the attempts of t that are running.
func (t *Task) Running() []*Attempt {
	var out []*Attempt
	for _, a := range t.Attempts {
		if a.Running() {
			out = append(out, a)
		}
	}
	return out
}

// Attempt is one execution of a task in one container.
//
// The fields are laid out for a progress report, most of the stream: the
// unexported ones sit where they are read with it (the exported ones keep
// their order, which is the checkpoint's JSON). An Attempt is 320 bytes, a
// size class whose objects start on a 64-byte line, and a report reads only
// its bytes 64 to 232 (key and Task, then StartTS to MapsTotal and progID):
// three lines, where the 288-byte layout touched five.
type Attempt struct {
	ID          string          `json:"id"`
	Container   string          `json:"container,omitempty"`
	Node        string          `json:"node,omitempty"`
	Speculative bool            `json:"speculative,omitempty"`
	allocated   bool            // in Speculative's padding
	ord         int32           // position in the attempt index's order (also in the padding)
	Locality    events.Locality `json:"locality,omitempty"`
	VCores      int             `json:"vcores,omitempty"`
	MemoryMB    int             `json:"memory_mb,omitempty"`
	Task        *Task           `json:"-"`
	// key is the attempt's own copy of ID, which the index compares (see
	// setKey and hasID).
	key     idKey
	StartTS int64 `json:"start_ts"`

	Progress      float64 `json:"progress"`
	Phase         string  `json:"phase,omitempty"`
	PhaseProgress float64 `json:"phase_progress,omitempty"`
	ProgressTS    int64   `json:"progress_ts,omitempty"`
	RecordsDone   int64   `json:"records_done,omitempty"`
	RecordsTotal  int64   `json:"records_total,omitempty"`
	BytesRead     int64   `json:"bytes_read,omitempty"`
	MapsFetched   int     `json:"maps_fetched,omitempty"`
	MapsTotal     int     `json:"maps_total,omitempty"`
	// The (ts, id) stamps of the allocation and of the progress report are
	// (StartTS, allocID) and (ProgressTS, progID): those times are written
	// only with their stamps, so the attempt holds each once. The finish and
	// map-output stamps, which most running attempts do not have yet, are
	// in late (nil until one is written); four inline stamps and a node id
	// made an Attempt 360 bytes (the 384-byte size class).
	progID string

	// State is empty while running, else SUCCEEDED, FAILED or KILLED.
	State    string                 `json:"state,omitempty"`
	FinishTS int64                  `json:"finish_ts,omitempty"`
	PhaseMS  *events.PhaseDurations `json:"phase_ms,omitempty"`
	// Output is the map output per reduce partition, once reported.
	Output []events.PartitionSize `json:"output,omitempty"`

	allocID string
	late    *lateStamps
	onNode  *Node // node whose Running list holds this attempt
}

// setKey copies ID into key when it fits.
func (a *Attempt) setKey() { a.key.set(a.ID, attemptPrefix) }

// hasID reports whether the attempt's id is id. The index finds an attempt
// by a hash and then compares the id in full; ID's bytes are an allocation
// of their own, so comparing them was a cache miss of its own on every
// look-up (a quarter of the engine's time), where key is read with the
// fields the event then writes.
func (a *Attempt) hasID(id string) bool { return a.key.is(id, a.ID, attemptPrefix) }

// lateStamps are an attempt's stamps of its finish and its map output.
type lateStamps struct {
	fin, out stamp
}

func (a *Attempt) allocStamp() stamp { return stamp{a.StartTS, a.allocID} }
func (a *Attempt) progStamp() stamp  { return stamp{a.ProgressTS, a.progID} }

func (a *Attempt) finStamp() stamp {
	if a.late == nil {
		return stamp{}
	}
	return a.late.fin
}

func (a *Attempt) outStamp() stamp {
	if a.late == nil {
		return stamp{}
	}
	return a.late.out
}

// lateStamps returns a's finish and output stamps, allocating them.
func (a *Attempt) lateStamps() *lateStamps {
	if a.late == nil {
		a.late = new(lateStamps)
	}
	return a.late
}

// Running reports whether the attempt holds a container and has not finished.
func (a *Attempt) Running() bool { return a.allocated && a.State == "" }

// Finished reports whether the attempt has a final state.
func (a *Attempt) Finished() bool { return a.State != "" }
