package trace

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
)

// Rumen's LoggedJob, LoggedTask and LoggedTaskAttempt, reduced to what the
// simulator uses (hadoop-tools/hadoop-rumen). Times are epoch ms; Rumen
// writes -1 for unknown numbers.
type rumenJob struct {
	JobID        *string     `json:"jobID"`
	User         string      `json:"user"`
	JobName      string      `json:"jobName"`
	Queue        string      `json:"queue"`
	Priority     string      `json:"priority"`
	SubmitTime   *int64      `json:"submitTime"`
	FinishTime   int64       `json:"finishTime"`
	TotalMaps    int         `json:"totalMaps"`
	TotalReduces int         `json:"totalReduces"`
	MapTasks     []rumenTask `json:"mapTasks"`
	ReduceTasks  []rumenTask `json:"reduceTasks"`
}

type rumenTask struct {
	TaskID      string         `json:"taskID"`
	TaskType    string         `json:"taskType"`
	StartTime   int64          `json:"startTime"`
	FinishTime  int64          `json:"finishTime"`
	InputBytes  int64          `json:"inputBytes"`
	OutputBytes int64          `json:"outputBytes"`
	Attempts    []rumenAttempt `json:"attempts"`
}

type rumenAttempt struct {
	HostName           string `json:"hostName"`
	StartTime          int64  `json:"startTime"`
	FinishTime         int64  `json:"finishTime"`
	Result             string `json:"result"`
	HDFSBytesWritten   int64  `json:"hdfsBytesWritten"`
	ReduceShuffleBytes int64  `json:"reduceShuffleBytes"`
	Location           *struct {
		Layers []string `json:"layers"`
	} `json:"location"`
}

// rumenPriority maps Hadoop's JobPriority names to YARN-style integers
// (higher runs first); NORMAL is 0.
var rumenPriority = map[string]int{"VERY_HIGH": 2, "HIGH": 1, "NORMAL": 0, "LOW": -1, "VERY_LOW": -2}

// ParseRumen reads a Rumen job trace (the JSON that Rumen's TraceBuilder
// writes: a sequence of job objects, or one array of them) into jobs sorted
// by submit time, submit times relative to the earliest job. Each job keeps
// its recorded tasks (kind, duration and host of the successful attempt), so
// the simulator replays recorded task times instead of deriving them.
// Tasks that never ran (no start or finish time, e.g. killed while pending)
// are left out, and Maps and Reduces count the tasks kept.
func ParseRumen(r io.Reader) ([]Job, error) { return parseRumen(r, "") }

// parseRumen is ParseRumen with file naming the source in errors.
func parseRumen(r io.Reader, file string) ([]Job, error) {
	type submitted struct {
		job      Job
		submitMS int64
	}
	var all []submitted
	err := decodeJSONObjects(r, file, func(raw json.RawMessage) error {
		var rj rumenJob
		if err := json.Unmarshal(raw, &rj); err != nil {
			return err
		}
		j, err := rj.job()
		if err != nil {
			return err
		}
		all = append(all, submitted{j, *rj.SubmitTime})
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(all) == 0 {
		return nil, &ParseError{File: file, Err: errors.New("no jobs in the Rumen trace")}
	}
	// Rumen writes jobs in finish order; the simulator submits in time order.
	sort.SliceStable(all, func(a, b int) bool { return all[a].submitMS < all[b].submitMS })
	t0 := all[0].submitMS
	jobs := make([]Job, len(all))
	for i, s := range all {
		s.job.SubmitS = float64(s.submitMS-t0) / 1000
		jobs[i] = s.job
	}
	return jobs, nil
}

func (rj *rumenJob) job() (Job, error) {
	if rj.JobID == nil || *rj.JobID == "" {
		return Job{}, &fieldError{"jobID", errors.New("missing")}
	}
	if rj.SubmitTime == nil || *rj.SubmitTime < 0 {
		return Job{}, &fieldError{"submitTime", errors.New("missing or negative")}
	}
	prio, ok := rumenPriority[strings.ToUpper(rj.Priority)]
	if !ok && rj.Priority != "" {
		return Job{}, &fieldError{"priority", fmt.Errorf("unknown job priority %q", rj.Priority)}
	}
	j := Job{
		Name:     *rj.JobID,
		Type:     jobType(rj.JobName),
		Queue:    rj.Queue,
		User:     rj.User,
		Priority: prio,
	}
	if j.Queue == "" {
		j.Queue = "default"
	}
	if rj.FinishTime > *rj.SubmitTime {
		j.RecordedS = float64(rj.FinishTime-*rj.SubmitTime) / 1000
	}
	for i := range rj.MapTasks {
		t, a, ran := rj.MapTasks[i].task("map", *rj.SubmitTime)
		if !ran {
			continue
		}
		j.Maps++
		j.Tasks = append(j.Tasks, t)
		j.InputBytes += max(rj.MapTasks[i].InputBytes, 0)
		if a != nil {
			j.OutputBytes += max(a.HDFSBytesWritten, 0) // map-only jobs write their output from maps
			j.ShuffleBytes += max(rj.MapTasks[i].OutputBytes, 0)
		}
	}
	if len(rj.MapTasks) == 0 {
		j.Maps = max(rj.TotalMaps, 0) // counts without task detail
	}
	if len(rj.ReduceTasks) == 0 {
		j.Reduces = max(rj.TotalReduces, 0)
	}
	if len(rj.ReduceTasks) == 0 && j.Reduces == 0 {
		j.ShuffleBytes = 0 // map output went to HDFS, not to a shuffle
	} else {
		j.OutputBytes = 0
		var shuffled int64
		for i := range rj.ReduceTasks {
			t, a, ran := rj.ReduceTasks[i].task("reduce", *rj.SubmitTime)
			if !ran {
				continue
			}
			j.Reduces++
			j.Tasks = append(j.Tasks, t)
			j.OutputBytes += max(rj.ReduceTasks[i].OutputBytes, 0)
			if a != nil {
				shuffled += max(a.ReduceShuffleBytes, 0)
			}
		}
		// Prefer what reducers fetched; map-side output counts when the
		// reducers' counter is missing.
		if shuffled > 0 {
			j.ShuffleBytes = shuffled
		}
	}
	return j, nil
}

// task picks the successful attempt (the last one when none succeeded) and
// records its duration, host and start relative to the job's submit; ran is
// false when the task has no usable start and finish time.
func (rt *rumenTask) task(kind string, submitMS int64) (t Task, chosen *rumenAttempt, ran bool) {
	t = Task{Kind: kind, ID: rt.TaskID, InputBytes: max(rt.InputBytes, 0)}
	for i := range rt.Attempts {
		a := &rt.Attempts[i]
		if strings.EqualFold(a.Result, "SUCCESS") || strings.EqualFold(a.Result, "SUCCEEDED") {
			chosen = a
			break
		}
		chosen = a
	}
	start, finish := rt.StartTime, rt.FinishTime
	if chosen != nil {
		start, finish = chosen.StartTime, chosen.FinishTime
		t.Rack, t.Host = splitRumenHost(chosen)
	}
	if start <= 0 || finish < start {
		return Task{}, nil, false
	}
	t.DurationMS = finish - start
	t.StartMS = start - submitMS
	return t, chosen, true
}

// splitRumenHost reads "/rack/host" (hostName) or the location layers
// [rack, host]; a bare host name has no rack.
func splitRumenHost(a *rumenAttempt) (rack, host string) {
	if a.Location != nil && len(a.Location.Layers) == 2 {
		return a.Location.Layers[0], a.Location.Layers[1]
	}
	return splitRackHost(a.HostName)
}

func splitRackHost(s string) (rack, host string) {
	s = strings.TrimPrefix(s, "/")
	if i := strings.LastIndexByte(s, '/'); i >= 0 {
		return s[:i], s[i+1:]
	}
	return "", s
}

// jobType turns a recorded job name into a profiles key: lower case, with
// the part after a ':' or space dropped ("TeraGen" -> "teragen",
// "PigLatin:q1.pig" -> "piglatin"), "unknown" when empty.
func jobType(name string) string {
	if i := strings.IndexAny(name, ": \t"); i >= 0 {
		name = name[:i]
	}
	name = strings.ToLower(strings.TrimSpace(name))
	if name == "" {
		return "unknown"
	}
	return name
}
