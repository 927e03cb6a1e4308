package trace

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
)

// SLS's synthetic job format (hadoop-tools/hadoop-sls, SLSRunner's
// "sls" input): one JSON object per job with dotted keys. SLS's generators
// write numbers both bare and quoted, so numbers here accept either.
type slsJob struct {
	AMType   string    `json:"am.type"`
	StartMS  *slsInt   `json:"job.start.ms"`
	EndMS    *slsInt   `json:"job.end.ms"`
	Queue    string    `json:"job.queue.name"`
	ID       string    `json:"job.id"`
	User     string    `json:"job.user"`
	Name     string    `json:"job.name"`
	Priority *slsInt   `json:"job.priority"`
	Tasks    []slsTask `json:"job.tasks"`
}

type slsTask struct {
	Host       string  `json:"container.host"`
	StartMS    *slsInt `json:"container.start.ms"`
	EndMS      *slsInt `json:"container.end.ms"`
	DurationMS *slsInt `json:"duration.ms"`
	Priority   *slsInt `json:"container.priority"`
	Type       string  `json:"container.type"`
	Count      *slsInt `json:"count"`
}

// slsInt is an integer written either as a JSON number or as a string.
type slsInt int64

func (n *slsInt) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		return nil
	}
	s := string(bytes.Trim(b, `"`))
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		f, ferr := strconv.ParseFloat(s, 64)
		if ferr != nil {
			return fmt.Errorf("%s is not an integer", b)
		}
		v = int64(f)
	}
	*n = slsInt(v)
	return nil
}

func (n *slsInt) get(def int64) int64 {
	if n == nil {
		return def
	}
	return int64(*n)
}

// SLS container priorities: its Rumen converter gives maps 20 and reduces 10.
const (
	slsMapPriority    = 20
	slsReducePriority = 10
)

// ParseSLS reads SLS job JSON (a sequence of job objects with "job.id",
// "job.start.ms", "job.queue.name", "job.tasks" of containers with
// "container.host", "container.start.ms"/"container.end.ms" or
// "duration.ms", "container.type", optional "count") into jobs sorted by
// start time, relative to the earliest. Task kind comes from
// "container.type", else from SLS's priorities (20 map, 10 reduce).
func ParseSLS(r io.Reader) ([]Job, error) { return parseSLS(r, "") }

func parseSLS(r io.Reader, file string) ([]Job, error) {
	type started struct {
		job     Job
		startMS int64
	}
	var all []started
	extra := int64(maxSLSCountTasks) // tasks "count" may add beyond the listed ones
	err := decodeJSONObjects(r, file, func(raw json.RawMessage) error {
		var sj slsJob
		if err := json.Unmarshal(raw, &sj); err != nil {
			return fixSLSFieldError(err)
		}
		j, err := sj.job(&extra)
		if err != nil {
			return err
		}
		all = append(all, started{j, sj.StartMS.get(0)})
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(all) == 0 {
		return nil, &ParseError{File: file, Err: errors.New("no jobs in the SLS trace")}
	}
	sort.SliceStable(all, func(a, b int) bool { return all[a].startMS < all[b].startMS })
	t0 := all[0].startMS
	jobs := make([]Job, len(all))
	for i, s := range all {
		s.job.SubmitS = float64(s.startMS-t0) / 1000
		jobs[i] = s.job
	}
	return jobs, nil
}

// fixSLSFieldError turns slsInt's plain error into one naming the field.
func fixSLSFieldError(err error) error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return err
	}
	return fmt.Errorf("job object: %w", err)
}

// maxSLSCountTasks bounds the tasks "count" adds to a whole trace beyond one
// per listed container, so a few bytes ("count": 1e9) cannot demand
// gigabytes; explicitly listed containers are bounded by the input size.
const maxSLSCountTasks = 1 << 20

// job converts sj; extra is what is left of maxSLSCountTasks.
func (sj *slsJob) job(extra *int64) (Job, error) {
	if sj.ID == "" {
		return Job{}, &fieldError{"job.id", errors.New("missing")}
	}
	if sj.StartMS == nil || *sj.StartMS < 0 {
		return Job{}, &fieldError{"job.start.ms", errors.New("missing or negative")}
	}
	if len(sj.Tasks) == 0 {
		return Job{}, &fieldError{"job.tasks", errors.New("a job needs at least one task")}
	}
	start := sj.StartMS.get(0)
	j := Job{
		Name:     sj.ID,
		Type:     "sls",
		Queue:    sj.Queue,
		User:     sj.User,
		Priority: int(sj.Priority.get(0)),
	}
	if sj.Name != "" {
		j.Type = jobType(sj.Name)
	}
	if j.Queue == "" {
		j.Queue = "default"
	}
	if end := sj.EndMS.get(0); end > start {
		j.RecordedS = float64(end-start) / 1000
	}
	for i, st := range sj.Tasks {
		field := fmt.Sprintf("job.tasks[%d]", i)
		kind := strings.ToLower(st.Type)
		switch {
		case kind == "map" || kind == "reduce":
		case st.Priority.get(slsMapPriority) == slsReducePriority:
			kind = "reduce"
		default:
			kind = "map"
		}
		dur := st.DurationMS.get(0)
		if st.DurationMS == nil {
			dur = st.EndMS.get(0) - st.StartMS.get(0)
		}
		if dur <= 0 {
			return Job{}, &fieldError{field, fmt.Errorf("task duration %d ms must be positive (duration.ms or container.end.ms - container.start.ms)", dur)}
		}
		count := st.Count.get(1)
		if count < 1 {
			return Job{}, &fieldError{field + ".count", fmt.Errorf("%d must be at least 1", count)}
		}
		if count-1 > *extra {
			return Job{}, &fieldError{field + ".count", fmt.Errorf("%d: counts add more than %d tasks to the trace", count, maxSLSCountTasks)}
		}
		*extra -= count - 1
		rack, host := splitRackHost(st.Host)
		for range count {
			j.Tasks = append(j.Tasks, Task{Kind: kind, DurationMS: dur, Host: host, Rack: rack, StartMS: st.StartMS.get(start) - start})
			if kind == "map" {
				j.Maps++
			} else {
				j.Reduces++
			}
		}
	}
	return j, nil
}
