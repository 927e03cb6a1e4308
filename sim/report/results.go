package report

// Version of results.json.
const Version = 1

// Results is results.json: one Run per policy stack.
type Results struct {
	V        int    `json:"v"`
	Scenario string `json:"scenario"`
	Seed     uint64 `json:"seed"`
	Runs     []Run  `json:"runs"`
	// SeedStats, with `sim --seeds N`, summarizes the runs of N seeds (Runs
	// are the first seed's). An extension of the contract.
	SeedStats *SeedStats `json:"seed_stats,omitempty"`
	// Meta says what produced the file, so a figure can be traced back to
	// its binary, command and input. An extension of the contract.
	Meta *Meta `json:"meta,omitempty"`
}

// Meta is the provenance of a results.json.
type Meta struct {
	Version string   `json:"version"`          // rmsidecar version (a tag or VCS revision)
	Args    []string `json:"args"`             // the command line after the program name
	Input   string   `json:"input"`            // scenario or trace file
	Digest  string   `json:"sha256"`           // of the input file's bytes
	Nodes   int      `json:"nodes"`            // simulated cluster size
	Seeds   []uint64 `json:"seeds"`            // the seeds simulated
	Stacks  []string `json:"stacks,omitempty"` // in run order
	// TraceNodes and TraceScale (--trace swim only): the size of the cluster
	// the trace was recorded on and the factor its bytes were scaled by
	// (nodes / trace nodes).
	TraceNodes int     `json:"trace_nodes,omitempty"`
	TraceScale float64 `json:"trace_scale,omitempty"`
	// Partial: the run was interrupted (SIGINT, SIGTERM) and the file holds
	// what had finished: JobsDone of JobsTotal jobs (summed over the runs
	// and seeds); with --seeds, SeedsDone of SeedsTotal seeds finished and
	// only those are in seed_stats.
	Partial    bool `json:"partial,omitempty"`
	JobsDone   int  `json:"jobs_done,omitempty"`
	JobsTotal  int  `json:"jobs_total,omitempty"`
	SeedsDone  int  `json:"seeds_done,omitempty"`
	SeedsTotal int  `json:"seeds_total,omitempty"`
}

// Locality is the share of map attempts launched at each locality level.
type Locality struct {
	Node float64 `json:"node"`
	Rack float64 `json:"rack"`
	Off  float64 `json:"off"`
}

// Spec counts speculative copies.
type Spec struct {
	Launched int     `json:"launched"`
	Won      int     `json:"won"`
	WastedS  float64 `json:"wasted_s"` // container-seconds of copies that lost or were killed
}

// Job is one job's outcome.
type Job struct {
	Name    string  `json:"name"`
	SubmitS float64 `json:"submit_s"`
	FinishS float64 `json:"finish_s"`
	// Optional detail (extensions of the contract).
	Type    string `json:"type,omitempty"`
	Maps    int    `json:"maps,omitempty"`
	Reduces int    `json:"reduces,omitempty"`
	// RecordedS is the job's run time recorded in its trace (Rumen), for
	// comparing the simulation with the real cluster; 0 when unknown.
	RecordedS float64 `json:"recorded_s,omitempty"`
}

// Sample is one point of the running-tasks time series (for plots).
type Sample struct {
	TS      float64 `json:"t_s"`
	Maps    int     `json:"maps"`
	Reduces int     `json:"reduces"`
}

// Run is the outcome of simulating one policy stack.
type Run struct {
	Policy                string   `json:"policy"`
	MakespanS             float64  `json:"makespan_s"`
	MeanJCTS              float64  `json:"mean_jct_s"`
	P50JCTS               float64  `json:"p50_jct_s,omitempty"` // extension: median job completion time
	P95JCTS               float64  `json:"p95_jct_s"`
	Locality              Locality `json:"locality"`
	Spec                  Spec     `json:"spec"`
	CrossRackShuffleBytes int64    `json:"cross_rack_shuffle_bytes"`
	Utilization           float64  `json:"utilization"`
	Jain                  float64  `json:"jain"`
	EnergyKWh             float64  `json:"energy_kwh"`
	Jobs                  []Job    `json:"jobs"`

	// Extensions of the contract (optional fields).
	Events   int64              `json:"events,omitempty"`   // simulator events processed
	Hints    map[string]int     `json:"hints,omitempty"`    // hints applied, by kind
	Killed   int                `json:"killed,omitempty"`   // attempts killed by kill hints
	Timeline []Sample           `json:"timeline,omitempty"` // running maps/reduces over time
	Extra    map[string]float64 `json:"extra,omitempty"`    // policy-specific measurements
	// Unfinished counts the scenario's jobs this run did not finish: only
	// an interrupted run has any (results.json's meta says partial). Its
	// Jobs and job metrics are the finished jobs'; its time window ends
	// where the run stopped.
	Unfinished int `json:"unfinished_jobs,omitempty"`

	// Detail is the per-node detail the report draws (heatmap, task
	// timeline, tasks.csv); not part of results.json.
	Detail *Detail `json:"-"`
}
