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

// SLS is the job format of Hadoop's Scheduler Load Simulator
// (hadoop-tools/hadoop-sls: its "SLS JSON input file format", keys in
// SLSConfiguration, read by AMRunner, AMDefinitionSLS and
// TaskContainerDefinition): a stream of JSON objects, one per job, with
// dotted keys. SLS reads every value through toString and
// Integer/Long.parseLong, so numbers here are integers written bare or
// quoted, and where SLS takes a default (job.start.ms 0, job.user
// "default", count and job.count at least 1, container.type "map") so do
// we. Unlike SLS, which logs and skips a job it cannot build, every such
// problem is a *ParseError.

// SLS keys (SLSConfiguration).
const (
	slsJobID      = "job.id"
	slsJobStart   = "job.start.ms"
	slsJobEnd     = "job.end.ms"
	slsJobQueue   = "job.queue.name"
	slsJobUser    = "job.user"
	slsJobCount   = "job.count"
	slsJobTasks   = "job.tasks"
	slsAMType     = "am.type"          // the docs' key
	slsAMTypeConf = "yarn.sls.am.type" // SLSConfiguration.AM_TYPE, in its sls_dag.json
	slsNumNodes   = "num.nodes"
	slsNumRacks   = "num.racks"
	slsCount      = "count"
	slsHost       = "container.host"
	slsStart      = "container.start.ms"
	slsEnd        = "container.end.ms"
	slsDuration   = "container.duration.ms"
	slsDurLegacy  = "duration.ms"
	slsPriority   = "container.priority"
	slsType       = "container.type"
)

// SLSOptions shape ParseSLS.
type SLSOptions struct {
	// File names the source in errors (empty for a bare reader).
	File string
}

// SLSTrace is a parsed SLS job file.
type SLSTrace struct {
	// Jobs in start order, SubmitS relative to the earliest.
	Jobs []Job
	// NumNodes and NumRacks are a {"num.nodes": N, "num.racks": R} object's
	// generated cluster (0 when the file has none; the last one counts).
	NumNodes, NumRacks int
}

// NodeCount is the number of nodes SLS would start for the trace without
// a nodes file: the distinct container.host paths plus the NumNodes it
// generates as /rackI/nodeJ (SLSUtils.generateNodes), counted once each.
func (t *SLSTrace) NodeCount() int {
	seen := map[string]bool{}
	racks := max(1, min(t.NumRacks, t.NumNodes))
	for i := range t.NumNodes {
		seen[fmt.Sprintf("rack%d/node%d", i%racks, i)] = true
	}
	for _, j := range t.Jobs {
		for _, k := range j.Tasks {
			if k.Host != "" {
				seen[k.Rack+"/"+k.Host] = true
			}
		}
	}
	return len(seen)
}

// ParseSLS reads an SLS job file (a sequence of job objects, or one JSON
// array of them) into jobs sorted by job.start.ms, relative to the
// earliest; each container becomes count recorded tasks of the job, so
// the simulator replays their durations as it does Rumen's.
func ParseSLS(r io.Reader, opts SLSOptions) ([]Job, error) {
	t, err := ReadSLS(r, opts)
	if err != nil {
		return nil, err
	}
	return t.Jobs, nil
}

// ReadSLS is ParseSLS that also returns the num.nodes object's cluster.
func ReadSLS(r io.Reader, opts SLSOptions) (*SLSTrace, error) {
	type started struct {
		job     Job
		startMS int64
	}
	var all []started
	t := &SLSTrace{}
	budget := int64(maxSLSCountTasks) // tasks count and job.count may add beyond the listed ones
	err := decodeJSONObjects(r, opts.File, func(raw json.RawMessage) error {
		obj, err := slsMembers(raw, 0)
		if err != nil {
			return err
		}
		if obj.get(slsJobTasks) == nil && (obj.get(slsNumNodes) != nil || obj.get(slsNumRacks) != nil) {
			return obj.cluster(t)
		}
		j, startMS, copies, err := obj.job(len(all), &budget)
		if err != nil {
			return err
		}
		if copies == 1 {
			all = append(all, started{j, startMS})
			return nil
		}
		// job.count > 1: SLS starts that many AMs and, like a job without
		// job.id, numbers them; a job.id is kept readable as ID-1..ID-N.
		for k := range copies {
			c := j
			c.Tasks = append([]Task(nil), j.Tasks...)
			switch id := obj.str(slsJobID); id {
			case "":
				c.Name = strconv.Itoa(len(all))
			default:
				c.Name = fmt.Sprintf("%s-%d", id, k+1)
			}
			all = append(all, started{c, startMS})
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(all) == 0 {
		return nil, &ParseError{File: opts.File, Err: errors.New("no jobs in the SLS trace")}
	}
	// SLS starts each job at its job.start.ms whatever the file order.
	sort.SliceStable(all, func(a, b int) bool { return all[a].startMS < all[b].startMS })
	t0 := all[0].startMS
	t.Jobs = make([]Job, len(all))
	for i, s := range all {
		s.job.SubmitS = float64(s.startMS-t0) / 1000
		t.Jobs[i] = s.job
	}
	return t, nil
}

// maxSLSCountTasks bounds the tasks that count and job.count add to a
// whole trace beyond one per listed container, so a few bytes
// ("count": 2000000000) cannot demand gigabytes; listed containers are
// bounded by the input size.
const maxSLSCountTasks = 1 << 20

// slsMember is one member of a JSON object, off the byte offset of its
// value within the outermost object (for error positions).
type slsMember struct {
	key string
	val json.RawMessage
	off int64
}

type slsObject []slsMember

// slsMembers splits the JSON object raw, which starts at byte base of the
// outermost object, into its members; a repeated key keeps the last value.
func slsMembers(raw []byte, base int64) (slsObject, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if _, err := dec.Token(); err != nil { // '{', checked by the caller
		return nil, &offsetError{base, "", err}
	}
	var obj slsObject
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, &offsetError{base + dec.InputOffset(), "", err}
		}
		key, _ := tok.(string)
		var val json.RawMessage
		if err := dec.Decode(&val); err != nil {
			return nil, &offsetError{base + dec.InputOffset(), key, err}
		}
		off := base + dec.InputOffset() - int64(len(val))
		if string(val) == "null" {
			continue // as if absent
		}
		obj = append(obj, slsMember{key, val, off})
	}
	return obj, nil
}

func (o slsObject) get(key string) *slsMember {
	for i := len(o) - 1; i >= 0; i-- {
		if o[i].key == key {
			return &o[i]
		}
	}
	return nil
}

// str is key's string value, "" when absent or not a string (checked by
// strField where it matters).
func (o slsObject) str(key string) string {
	s, _, _ := o.strField(key, "")
	return s
}

// strField reads key as a string (a bare number is taken as its text, as
// SLS's toString does); ok is false when absent.
func (o slsObject) strField(key, prefix string) (s string, ok bool, err error) {
	m := o.get(key)
	if m == nil {
		return "", false, nil
	}
	if m.val[0] == '"' {
		if err := json.Unmarshal(m.val, &s); err != nil {
			return "", false, &offsetError{m.off, prefix + key, err}
		}
		return s, true, nil
	}
	if _, err := strconv.ParseFloat(string(m.val), 64); err == nil {
		return string(m.val), true, nil
	}
	return "", false, &offsetError{m.off, prefix + key, fmt.Errorf("%.20s is not a string", m.val)}
}

// intField reads key as an integer, bare or quoted; ok is false when absent.
func (o slsObject) intField(key, prefix string) (n int64, ok bool, err error) {
	m := o.get(key)
	if m == nil {
		return 0, false, nil
	}
	s := string(m.val)
	if m.val[0] == '"' {
		if err := json.Unmarshal(m.val, &s); err != nil {
			return 0, false, &offsetError{m.off, prefix + key, err}
		}
	}
	n, err = strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	if err != nil {
		return 0, false, &offsetError{m.off, prefix + key, fmt.Errorf("%.24s is not an integer", m.val)}
	}
	return n, true, nil
}

// cluster reads a {"num.nodes": N, "num.racks": R} object.
func (o slsObject) cluster(t *SLSTrace) error {
	nodes, _, err := o.intField(slsNumNodes, "")
	if err != nil {
		return err
	}
	racks, _, err := o.intField(slsNumRacks, "")
	if err != nil {
		return err
	}
	if nodes < 0 || nodes > 1<<20 || racks < 0 {
		m := o.get(slsNumNodes)
		if racks < 0 {
			m = o.get(slsNumRacks)
		}
		return &offsetError{m.off, m.key, fmt.Errorf("%d is out of range (0 to 1048576)", max(nodes, racks))}
	}
	t.NumNodes, t.NumRacks = int(nodes), int(racks)
	return nil
}

// job converts one job object; idx is the number of jobs before it (the
// name of a job without job.id, as SLS numbers them), budget what is left
// of maxSLSCountTasks. copies is job.count, at least 1.
func (o slsObject) job(idx int, budget *int64) (j Job, startMS int64, copies int64, err error) {
	for _, key := range []string{slsAMType, slsAMTypeConf} {
		amType, _, err := o.strField(key, "")
		if err != nil {
			return Job{}, 0, 0, err
		}
		if amType != "" && amType != "mapreduce" {
			return Job{}, 0, 0, &offsetError{o.get(key).off, key,
				fmt.Errorf("%q: only mapreduce jobs can be simulated (SLS's stream and dag AMs are not MapReduce)", amType)}
		}
	}
	id, _, err := o.strField(slsJobID, "")
	if err != nil {
		return Job{}, 0, 0, err
	}
	startMS, _, err = o.intField(slsJobStart, "")
	if err != nil {
		return Job{}, 0, 0, err
	}
	if startMS < 0 {
		return Job{}, 0, 0, &offsetError{o.get(slsJobStart).off, slsJobStart, fmt.Errorf("%d is negative", startMS)}
	}
	endMS, hasEnd, err := o.intField(slsJobEnd, "")
	if err != nil {
		return Job{}, 0, 0, err
	}
	// job.end.ms 0 is SLS's default, "not recorded".
	if hasEnd && endMS != 0 && endMS < startMS {
		return Job{}, 0, 0, &offsetError{o.get(slsJobEnd).off, slsJobEnd, fmt.Errorf("end %d ms before job.start.ms %d", endMS, startMS)}
	}
	copies, _, err = o.intField(slsJobCount, "")
	if err != nil {
		return Job{}, 0, 0, err
	}
	copies = max(copies, 1) // SLS: at least one
	queue, _, err := o.strField(slsJobQueue, "")
	if err != nil {
		return Job{}, 0, 0, err
	}
	user, hasUser, err := o.strField(slsJobUser, "")
	if err != nil {
		return Job{}, 0, 0, err
	}
	if !hasUser {
		user = "default" // SLS's default user
	}
	if queue == "" {
		queue = "default"
	}
	if id == "" {
		id = strconv.Itoa(idx)
	}
	j = Job{Name: id, Type: "sls", Queue: queue, User: user}
	if endMS > startMS {
		j.RecordedS = float64(endMS-startMS) / 1000
	}

	tasks := o.get(slsJobTasks)
	if tasks == nil {
		return Job{}, 0, 0, &fieldError{slsJobTasks, errors.New("missing (a job needs at least one container)")}
	}
	if tasks.val[0] != '[' {
		return Job{}, 0, 0, &offsetError{tasks.off, slsJobTasks, fmt.Errorf("%.20s is not an array of containers", tasks.val)}
	}
	dec := json.NewDecoder(bytes.NewReader(tasks.val))
	if _, err := dec.Token(); err != nil {
		return Job{}, 0, 0, &offsetError{tasks.off, slsJobTasks, err}
	}
	for i := 0; dec.More(); i++ {
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return Job{}, 0, 0, &offsetError{tasks.off + dec.InputOffset(), slsJobTasks, err}
		}
		off := tasks.off + dec.InputOffset() - int64(len(raw))
		prefix := fmt.Sprintf("%s[%d].", slsJobTasks, i)
		if raw[0] != '{' {
			return Job{}, 0, 0, &offsetError{off, prefix[:len(prefix)-1], fmt.Errorf("%.20s is not a container object", raw)}
		}
		c, err := slsMembers(raw, off)
		if err != nil {
			return Job{}, 0, 0, err
		}
		if err := c.tasks(&j, off, prefix, startMS, budget); err != nil {
			return Job{}, 0, 0, err
		}
	}
	if len(j.Tasks) == 0 {
		return Job{}, 0, 0, &offsetError{tasks.off, slsJobTasks, errors.New("no containers (a job needs at least one)")}
	}
	if extra := copies - 1; extra > 0 {
		if n := int64(len(j.Tasks)); extra > *budget/n {
			m := o.get(slsJobCount)
			return Job{}, 0, 0, &offsetError{m.off, slsJobCount, fmt.Errorf("%d copies of %d tasks: counts add more than %d tasks to the trace", copies, n, maxSLSCountTasks)}
		}
		*budget -= extra * int64(len(j.Tasks))
	}
	return j, startMS, copies, nil
}

// tasks appends container c's count tasks to j; c starts at byte at and
// prefix names it in errors.
func (c slsObject) tasks(j *Job, at int64, prefix string, jobStartMS int64, budget *int64) error {
	kind, hasKind, err := c.strField(slsType, prefix)
	if err != nil {
		return err
	}
	switch {
	case !hasKind:
		kind = "map" // SLS's default
	case kind == "map", kind == "reduce":
	default:
		// SLS's MapReduce AM runs only map and reduce containers and
		// silently drops the rest; a job missing some of its containers
		// would be a different job, so say so instead.
		return &offsetError{c.get(slsType).off, prefix + slsType, fmt.Errorf("%q: want map or reduce", kind)}
	}
	host, _, err := c.strField(slsHost, prefix)
	if err != nil {
		return err
	}
	if _, _, err := c.intField(slsPriority, prefix); err != nil {
		return err // SLS parses it; its MapReduce AM then sets 20 or 10 by type
	}
	start, hasStart, err := c.intField(slsStart, prefix)
	if err != nil {
		return err
	}
	end, hasEnd, err := c.intField(slsEnd, prefix)
	if err != nil {
		return err
	}
	if hasStart && hasEnd && end < start {
		return &offsetError{c.get(slsEnd).off, prefix + slsEnd, fmt.Errorf("end %d ms before %s %d", end, slsStart, start)}
	}
	// SLS's order: container.duration.ms, duration.ms, end - start.
	var dur int64
	var durKey string
	for _, k := range []string{slsDuration, slsDurLegacy} {
		d, ok, err := c.intField(k, prefix)
		if err != nil {
			return err
		}
		if ok && durKey == "" {
			dur, durKey = d, k
		}
	}
	switch {
	case durKey != "":
	case hasStart && hasEnd:
		dur, durKey = end-start, slsEnd
	default:
		return &offsetError{at, strings.TrimSuffix(prefix, "."), fmt.Errorf("no duration: want %s, %s, or %s and %s", slsDuration, slsDurLegacy, slsStart, slsEnd)}
	}
	if dur <= 0 {
		return &offsetError{c.get(durKey).off, prefix + durKey, fmt.Errorf("task duration %d ms must be positive", dur)}
	}
	count, _, err := c.intField(slsCount, prefix)
	if err != nil {
		return err
	}
	count = max(count, 1) // SLS: at least one
	if count-1 > *budget {
		return &offsetError{c.get(slsCount).off, prefix + slsCount, fmt.Errorf("%d: counts add more than %d tasks to the trace", count, maxSLSCountTasks)}
	}
	*budget -= count - 1
	rack, h := splitRackHost(host)
	var startRel int64
	if hasStart {
		startRel = start - jobStartMS
	}
	for range count {
		j.Tasks = append(j.Tasks, Task{Kind: kind, DurationMS: dur, Host: h, Rack: rack, StartMS: startRel})
		if kind == "map" {
			j.Maps++
		} else {
			j.Reduces++
		}
	}
	return nil
}
