package events

import "strings"

// Version is the only schema version this package reads and writes.
const Version = 1

// Type names an event kind.
type Type string

// Event types of events v1.
const (
	NodeRegistered     Type = "node.registered"
	NodeHeartbeat      Type = "node.heartbeat"
	NodeLost           Type = "node.lost"
	AppSubmitted       Type = "app.submitted"
	AppFinished        Type = "app.finished"
	TaskPending        Type = "task.pending"
	ContainerAllocated Type = "container.allocated"
	TaskProgress       Type = "task.progress"
	TaskFinished       Type = "task.finished"
	MapOutput          Type = "map.output"
)

// IsNode reports whether t is a node event (node.registered, node.heartbeat,
// node.lost): about a node, not an app.
func (t Type) IsNode() bool { return strings.HasPrefix(string(t), "node.") }

// Types lists every known event type in schema order.
var Types = []Type{
	NodeRegistered, NodeHeartbeat, NodeLost, AppSubmitted, AppFinished,
	TaskPending, ContainerAllocated, TaskProgress, TaskFinished, MapOutput,
}

// TaskKind is the MapReduce task kind.
type TaskKind string

// Task kinds.
const (
	Map    TaskKind = "map"
	Reduce TaskKind = "reduce"
)

// Locality is the data locality level of a map attempt.
type Locality string

// Locality levels.
const (
	NodeLocal Locality = "node"
	RackLocal Locality = "rack"
	OffRack   Locality = "off"
)

// Final states of apps and attempts.
const (
	StateSucceeded = "SUCCEEDED"
	StateFailed    = "FAILED"
	StateKilled    = "KILLED"
)

// Phases of a task attempt.
const (
	PhaseMap     = "map"
	PhaseSort    = "sort"
	PhaseShuffle = "shuffle"
	PhaseMerge   = "merge"
	PhaseReduce  = "reduce"
)

// Features are a job's resource-demand features on a 1..10 scale (learning scheduler).
type Features struct {
	CPU     int `json:"cpu"`
	Memory  int `json:"memory"`
	Disk    int `json:"disk"`
	Network int `json:"network"`
}

// Split is one input split of a map task.
type Split struct {
	Path   string   `json:"path"`
	Offset int64    `json:"offset"`
	Length int64    `json:"length"`
	Hosts  []string `json:"hosts,omitempty"`
}

// PartitionSize is the size of one reduce partition in a map's output.
type PartitionSize struct {
	ID    int   `json:"id"`
	Bytes int64 `json:"bytes"`
}

// PhaseDurations are the per-phase durations of a finished attempt, in ms.
type PhaseDurations struct {
	Map     int64 `json:"map,omitempty"`
	Sort    int64 `json:"sort,omitempty"`
	Shuffle int64 `json:"shuffle,omitempty"`
	Merge   int64 `json:"merge,omitempty"`
	Reduce  int64 `json:"reduce,omitempty"`
}

// Event is one decoded event of any type. Fields that do not belong to Type
// are zero. Optional numeric fields that may legitimately be zero are
// pointers, so "absent" and "0" stay distinct.
type Event struct {
	V    int
	ID   string
	Type Type
	TS   int64 // epoch milliseconds

	// node.*
	Node         string
	Rack         string
	VCores       int
	MemoryMB     int
	CPUMHz       int
	PowerIdleW   float64
	PowerMaxW    float64
	Labels       []string
	UsedVCores   int
	UsedMemoryMB int
	Load1        float64
	CPUUtil      float64
	DiskReadBps  float64
	DiskWriteBps float64
	NetRxBps     float64
	NetTxBps     float64
	// RunningContainers is reported by heartbeats; nil when absent.
	RunningContainers *int
	Reason            string

	// app.*
	App        string
	Name       string
	Queue      string
	User       string
	JobType    string
	Maps       int
	Reduces    int
	InputPaths []string
	Priority   *int
	Features   *Features
	Utility    string
	State      string // app.finished and task.finished

	// task.* and container.*
	Task          string
	Kind          TaskKind
	Splits        []Split
	Partition     *int
	Attempt       string
	Container     string
	Speculative   bool
	Locality      Locality
	Progress      float64
	Phase         string
	PhaseProgress *float64
	RecordsDone   int64
	RecordsTotal  int64
	BytesRead     int64
	MapsFetched   int
	MapsTotal     int
	PhaseMS       *PhaseDurations
	Partitions    []PartitionSize
}

// Key returns the Kafka key of the event: the app id if present, else the node id.
func (e *Event) Key() string {
	if e.App != "" {
		return e.App
	}
	return e.Node
}
