package report

// Detail is a run's per-node detail for the report: a node utilization
// heatmap, a bounded task timeline and, for small runs, every task attempt.
// results.json does not hold it (it grows with the cluster and the run);
// Write draws heatmap.svg and gantt.svg from it and writes tasks.csv. The
// simulator fills it with bounded memory: the heatmap has a fixed number of
// time buckets per node, the timeline at most GanttMaxAttempts attempts on
// the first GanttMaxNodes nodes, the task rows at most TasksMaxRows.
type Detail struct {
	Nodes  []string // node ids in index order
	VCores []int    // per node
	Heat   Heatmap
	Gantt  Gantt
	// Tasks holds the run's ended attempts as tasks.csv rows (TasksColumns,
	// the policy first), nil when the run ended more than TasksMaxRows
	// attempts (then tasks.csv is left out of the report; --tasks-out
	// streams them). TasksN counts the attempts ended either way.
	Tasks  []byte
	TasksN int
}

// Heatmap is the vcore-seconds each node's containers held per time bucket:
// VCoreS[node][bucket] over [bucket·BucketS, (bucket+1)·BucketS) of
// simulated time. The simulator starts with narrow buckets and doubles
// their width (merging pairs) whenever the run outlasts them, so a node
// costs at most HeatBuckets numbers however long the run.
type Heatmap struct {
	BucketS float64
	EndS    float64 // the run's end (its last bucket is partly past it)
	VCoreS  [][]float64
}

// HeatBuckets bounds the time buckets of a Heatmap.
const HeatBuckets = 128

// Gantt is a bounded per-node task timeline: the attempts launched on the
// first Nodes nodes, at most Limit of them. When the limit cut the record
// (Cut), the timeline is complete up to UntilS (the launch of the first
// attempt left out), else up to the run's end.
type Gantt struct {
	Nodes  int
	Limit  int
	Cut    bool
	UntilS float64
	Bars   []GanttBar
}

// GanttBar is one attempt: node index, start and end (simulated seconds),
// map or reduce, speculative, and how it ended (SUCCEEDED, KILLED, or
// RUNNING when the run was interrupted).
type GanttBar struct {
	Node         int
	StartS, EndS float64
	Reduce, Spec bool
	State        string
	Job, Attempt string
}

// Bounds of Detail.
const (
	GanttMaxNodes    = 32
	GanttMaxAttempts = 2000
	TasksMaxRows     = 20_000
)

// TasksColumns are the columns of an attempt row (the simulator's
// --tasks-out file): per attempt its job, task and attempt ids, kind, node,
// whether speculative, map locality, start and end (simulated seconds), how
// it ended (SUCCEEDED; KILLED: lost a race or killed by a hint) and, for a
// reducer, the bytes it fetched. report/tasks.csv puts "policy" first.
var TasksColumns = []string{"app", "task", "attempt", "kind", "node", "speculative", "locality", "start_s", "end_s", "state", "fetched_bytes"}
