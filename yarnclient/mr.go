package yarnclient

import (
	"context"
	"fmt"
	"net/url"
	"regexp"
	"strconv"
	"strings"
)

// MapReduce AM REST, reached through the RM web proxy:
// /proxy/{appId}/ws/v1/mapreduce/... The proxy forwards to the running AM;
// before the AM registers, or after the app finished, it answers with an
// HTML page or a redirect, reported as ErrAMUnavailable.

// InputDirKey is the job configuration key listing a FileInputFormat job's
// input paths (comma separated, commas inside a path escaped with '\').
const InputDirKey = "mapreduce.input.fileinputformat.inputdir"

// Task types of the AM API.
const (
	TaskTypeMap    = "MAP"
	TaskTypeReduce = "REDUCE"
)

// Task phases as rmsidecar events name them.
const (
	PhaseMap     = "map"
	PhaseSort    = "sort"
	PhaseShuffle = "shuffle"
	PhaseMerge   = "merge"
	PhaseReduce  = "reduce"
)

// MRJob is one job of GET .../ws/v1/mapreduce/jobs. Progress values are
// percentages (0..100).
type MRJob struct {
	ID                       string  `json:"id"`
	Name                     string  `json:"name"`
	User                     string  `json:"user"`
	Queue                    string  `json:"queue"`
	State                    string  `json:"state"`
	StartTime                int64   `json:"startTime"`
	FinishTime               int64   `json:"finishTime"`
	ElapsedTime              int64   `json:"elapsedTime"`
	MapsTotal                int     `json:"mapsTotal"`
	MapsCompleted            int     `json:"mapsCompleted"`
	ReducesTotal             int     `json:"reducesTotal"`
	ReducesCompleted         int     `json:"reducesCompleted"`
	MapProgress              float64 `json:"mapProgress"`
	ReduceProgress           float64 `json:"reduceProgress"`
	MapsPending              int     `json:"mapsPending"`
	MapsRunning              int     `json:"mapsRunning"`
	ReducesPending           int     `json:"reducesPending"`
	ReducesRunning           int     `json:"reducesRunning"`
	Uberized                 Bool    `json:"uberized"`
	Diagnostics              string  `json:"diagnostics"`
	NewMapAttempts           int     `json:"newMapAttempts"`
	RunningMapAttempts       int     `json:"runningMapAttempts"`
	FailedMapAttempts        int     `json:"failedMapAttempts"`
	KilledMapAttempts        int     `json:"killedMapAttempts"`
	SuccessfulMapAttempts    int     `json:"successfulMapAttempts"`
	NewReduceAttempts        int     `json:"newReduceAttempts"`
	RunningReduceAttempts    int     `json:"runningReduceAttempts"`
	FailedReduceAttempts     int     `json:"failedReduceAttempts"`
	KilledReduceAttempts     int     `json:"killedReduceAttempts"`
	SuccessfulReduceAttempts int     `json:"successfulReduceAttempts"`
}

// MRTask is one task of GET .../jobs/{jobId}/tasks.
type MRTask struct {
	ID                string  `json:"id"`
	Type              string  `json:"type"` // MAP or REDUCE
	State             string  `json:"state"`
	Status            string  `json:"status"`
	Progress          float64 `json:"progress"` // percent
	SuccessfulAttempt string  `json:"successfulAttempt"`
	StartTime         int64   `json:"startTime"`
	FinishTime        int64   `json:"finishTime"`
	ElapsedTime       int64   `json:"elapsedTime"`
}

// MRTaskAttempt is one attempt of GET .../tasks/{taskId}/attempts. Reduce
// attempts add the shuffle and merge times.
type MRTaskAttempt struct {
	ID                  string  `json:"id"`
	Type                string  `json:"type"`
	State               string  `json:"state"`
	Status              string  `json:"status"` // e.g. "map > sort", "reduce > copy (3 of 8 at 1.2 MB/s)"
	RawPhase            string  `json:"phase"`  // not sent by stock Hadoop; honoured if present
	Progress            float64 `json:"progress"`
	Rack                string  `json:"rack"`
	NodeHTTPAddress     string  `json:"nodeHttpAddress"`
	AssignedContainerID string  `json:"assignedContainerId"`
	Diagnostics         string  `json:"diagnostics"`
	StartTime           int64   `json:"startTime"`
	FinishTime          int64   `json:"finishTime"`
	ElapsedTime         int64   `json:"elapsedTime"`
	ShuffleFinishTime   int64   `json:"shuffleFinishTime"`
	MergeFinishTime     int64   `json:"mergeFinishTime"`
	ElapsedShuffleTime  int64   `json:"elapsedShuffleTime"`
	ElapsedMergeTime    int64   `json:"elapsedMergeTime"`
	ElapsedReduceTime   int64   `json:"elapsedReduceTime"`
}

// IsReduce reports whether the attempt belongs to a reduce task.
func (a MRTaskAttempt) IsReduce() bool { return strings.EqualFold(a.Type, TaskTypeReduce) }

// Phase returns the attempt's current phase in event vocabulary (map, sort,
// shuffle, merge, reduce). It reads the AM's status string ("map > sort",
// "reduce > copy ...", "reduce > sort", "reduce > reduce") and falls back on
// the shuffle/merge finish times for reduces.
func (a MRTaskAttempt) Phase() string {
	if p := strings.ToLower(strings.TrimSpace(a.RawPhase)); p != "" {
		switch p {
		case "starting":
		case "copy", "shuffle":
			return PhaseShuffle
		default:
			return p
		}
	}
	st := strings.ToLower(a.Status)
	if a.IsReduce() {
		switch {
		case strings.Contains(st, "> copy") || strings.HasPrefix(st, "copy"):
			return PhaseShuffle
		case strings.Contains(st, "> sort") || strings.HasPrefix(st, "sort"):
			return PhaseMerge
		case strings.Contains(st, "> reduce"):
			return PhaseReduce
		case a.ShuffleFinishTime <= 0:
			return PhaseShuffle
		case a.MergeFinishTime <= 0:
			return PhaseMerge
		default:
			return PhaseReduce
		}
	}
	if strings.Contains(st, "> sort") || st == "sort" {
		return PhaseSort
	}
	return PhaseMap
}

var copyRe = regexp.MustCompile(`copy \((\d+) of (\d+)`)

// CopyProgress parses "reduce > copy (3 of 8 at ...)" into maps fetched and
// maps total; ok is false when the status has no copy counts.
func (a MRTaskAttempt) CopyProgress() (fetched, total int, ok bool) {
	m := copyRe.FindStringSubmatch(a.Status)
	if m == nil {
		return 0, 0, false
	}
	f, err1 := strconv.Atoi(m[1])
	t, err2 := strconv.Atoi(m[2])
	if err1 != nil || err2 != nil {
		return 0, 0, false
	}
	return f, t, true
}

// Counter is one job counter.
type Counter struct {
	Name               string `json:"name"`
	TotalCounterValue  int64  `json:"totalCounterValue"`
	MapCounterValue    int64  `json:"mapCounterValue"`
	ReduceCounterValue int64  `json:"reduceCounterValue"`
}

// CounterGroup is a named group of counters.
type CounterGroup struct {
	CounterGroupName string        `json:"counterGroupName"`
	Counters         list[Counter] `json:"counter"`
}

// JobCounters is GET .../jobs/{jobId}/counters.
type JobCounters struct {
	ID     string             `json:"id"`
	Groups list[CounterGroup] `json:"counterGroup"`
}

// Get returns the counter name of group (full class name, e.g.
// "org.apache.hadoop.mapreduce.TaskCounter").
func (jc *JobCounters) Get(group, name string) (Counter, bool) {
	for _, g := range jc.Groups {
		if g.CounterGroupName != group {
			continue
		}
		for _, c := range g.Counters {
			if c.Name == name {
				return c, true
			}
		}
	}
	return Counter{}, false
}

// ConfProperty is one job configuration property.
type ConfProperty struct {
	Name   string  `json:"name"`
	Value  string  `json:"value"`
	Source Strings `json:"source"`
}

// JobConf is GET .../jobs/{jobId}/conf.
type JobConf struct {
	Path       string             `json:"path"`
	Properties list[ConfProperty] `json:"property"`
}

// Get returns the value of property name.
func (jc *JobConf) Get(name string) (string, bool) {
	for _, p := range jc.Properties {
		if p.Name == name {
			return p.Value, true
		}
	}
	return "", false
}

// InputPaths returns the job's input paths from
// mapreduce.input.fileinputformat.inputdir (or the pre-2 key
// mapred.input.dir), split on unescaped commas.
func (jc *JobConf) InputPaths() []string {
	v, ok := jc.Get(InputDirKey)
	if !ok {
		v, _ = jc.Get("mapred.input.dir")
	}
	return SplitInputDirs(v)
}

// SplitInputDirs splits a FileInputFormat input dir list: comma separated,
// with "\," standing for a comma inside a path (StringUtils.escapeString).
func SplitInputDirs(v string) []string {
	var out []string
	var cur strings.Builder
	flush := func() {
		if s := strings.TrimSpace(cur.String()); s != "" {
			out = append(out, s)
		}
		cur.Reset()
	}
	for i := 0; i < len(v); i++ {
		switch ch := v[i]; {
		case ch == '\\' && i+1 < len(v):
			i++
			cur.WriteByte(v[i])
		case ch == ',':
			flush()
		default:
			cur.WriteByte(ch)
		}
	}
	flush()
	return out
}

// JobIDForApp maps application_<cluster>_<seq> to job_<cluster>_<seq>, the
// id of the MapReduce job its AM runs.
func JobIDForApp(appID string) (string, error) {
	rest, ok := strings.CutPrefix(appID, "application_")
	if !ok || !strings.Contains(rest, "_") {
		return "", fmt.Errorf("yarnclient: %q is not an application id", appID)
	}
	return "job_" + rest, nil
}

func mrPath(appID string, parts ...string) string {
	var b strings.Builder
	b.WriteString("/proxy/")
	b.WriteString(seg(appID))
	b.WriteString("/ws/v1/mapreduce")
	for _, p := range parts {
		b.WriteByte('/')
		b.WriteString(seg(p))
	}
	return b.String()
}

func (c *Client) mrGet(ctx context.Context, op, path string, q url.Values, out any) error {
	_, err := c.do(ctx, &call{op: op, method: "GET", path: path, query: q, out: out, proxy: true})
	return err
}

// MRJobs returns the jobs the app's AM runs (one for MapReduce).
func (c *Client) MRJobs(ctx context.Context, appID string) ([]MRJob, error) {
	var w struct {
		Jobs *struct {
			Job list[MRJob] `json:"job"`
		} `json:"jobs"`
	}
	if err := c.mrGet(ctx, "MRJobs", mrPath(appID, "jobs"), nil, &w); err != nil {
		return nil, err
	}
	if w.Jobs == nil {
		return nil, nil
	}
	return w.Jobs.Job, nil
}

// MRJob returns one job.
func (c *Client) MRJob(ctx context.Context, appID, jobID string) (*MRJob, error) {
	var w struct {
		Job *MRJob `json:"job"`
	}
	if err := c.mrGet(ctx, "MRJob", mrPath(appID, "jobs", jobID), nil, &w); err != nil {
		return nil, err
	}
	if w.Job == nil {
		return nil, fmt.Errorf("yarnclient: MRJob %s: answer has no job", jobID)
	}
	return w.Job, nil
}

// MRTasks returns a job's tasks; taskType "" lists all, "m" maps, "r"
// reduces.
func (c *Client) MRTasks(ctx context.Context, appID, jobID, taskType string) ([]MRTask, error) {
	q := url.Values{}
	if taskType != "" {
		q.Set("type", taskType)
	}
	var w struct {
		Tasks *struct {
			Task list[MRTask] `json:"task"`
		} `json:"tasks"`
	}
	if err := c.mrGet(ctx, "MRTasks", mrPath(appID, "jobs", jobID, "tasks"), q, &w); err != nil {
		return nil, err
	}
	if w.Tasks == nil {
		return nil, nil
	}
	return w.Tasks.Task, nil
}

// MRTaskAttempts returns a task's attempts.
func (c *Client) MRTaskAttempts(ctx context.Context, appID, jobID, taskID string) ([]MRTaskAttempt, error) {
	var w struct {
		TaskAttempts *struct {
			TaskAttempt list[MRTaskAttempt] `json:"taskAttempt"`
		} `json:"taskAttempts"`
	}
	if err := c.mrGet(ctx, "MRTaskAttempts", mrPath(appID, "jobs", jobID, "tasks", taskID, "attempts"), nil, &w); err != nil {
		return nil, err
	}
	if w.TaskAttempts == nil {
		return nil, nil
	}
	return w.TaskAttempts.TaskAttempt, nil
}

// MRJobCounters returns a job's counters.
func (c *Client) MRJobCounters(ctx context.Context, appID, jobID string) (*JobCounters, error) {
	var w struct {
		JobCounters *JobCounters `json:"jobCounters"`
	}
	if err := c.mrGet(ctx, "MRJobCounters", mrPath(appID, "jobs", jobID, "counters"), nil, &w); err != nil {
		return nil, err
	}
	if w.JobCounters == nil {
		return &JobCounters{ID: jobID}, nil
	}
	return w.JobCounters, nil
}

// MRJobConf returns a job's configuration (large: every property).
func (c *Client) MRJobConf(ctx context.Context, appID, jobID string) (*JobConf, error) {
	var w struct {
		Conf *JobConf `json:"conf"`
	}
	if err := c.mrGet(ctx, "MRJobConf", mrPath(appID, "jobs", jobID, "conf"), nil, &w); err != nil {
		return nil, err
	}
	if w.Conf == nil {
		return nil, fmt.Errorf("yarnclient: MRJobConf %s: answer has no conf", jobID)
	}
	return w.Conf, nil
}
