package trace

import (
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Job is one MapReduce job to simulate. Zero fields are derived by the
// simulator from the cluster model (see docs/simulator.md).
type Job struct {
	Name    string
	Type    string // job kind: sort, wordcount, grep, terasort, ... (profiles key)
	Queue   string
	User    string
	SubmitS float64 // seconds from the start of the run

	InputBytes   int64
	ShuffleBytes int64 // total map output; 0 with ShuffleRatio 0 means map-only
	OutputBytes  int64

	Maps    int // 0: ceil(InputBytes / block size)
	Reduces int // 0: derived from ShuffleBytes (or none for a map-only job)

	MapSPerBlock float64 // map compute seconds per full block on a speed-1 node
	ReduceSPerGB float64 // reduce compute seconds per GB of reduce input on a speed-1 node
	ShuffleRatio float64 // map output / map input, when ShuffleBytes is 0
	Skew         float64 // partition skew (0 = uniform); Zipf-like exponent

	Priority int
	Features *Features // learning scheduler features (1..10), optional
	// TaskLoad is the load average one running task of the job adds to its
	// node (node.heartbeat load1); 0 means 1, one runnable thread.
	TaskLoad float64

	// Tasks, when set (Rumen), fixes per-task durations and hosts instead of
	// deriving them.
	Tasks []Task

	// Extensions (optional; zero when the source does not record them).

	// RecordedS is the job's recorded run time (finish - submit) in seconds,
	// for validating a simulation against the trace.
	RecordedS float64

	// InputPath names the dataset the job reads: jobs with the same
	// InputPath read the same dataset (SWIM's withInputPaths label, the
	// scenario's input_path). Empty: the job reads data of its own.
	InputPath string
}

// CheckInputPath reports why p cannot be a job's InputPath, which the
// simulator turns into the HDFS path /sim/<p>: it must be a relative path
// of non-empty segments other than "." and "..", without whitespace,
// control characters or ':' (HDFS rejects ':' in names).
func CheckInputPath(p string) error {
	if p == "" {
		return errors.New("input path is empty")
	}
	for _, seg := range strings.Split(p, "/") {
		switch seg {
		case "":
			return fmt.Errorf("input path %q has an empty segment (a leading, trailing or double '/')", p)
		case ".", "..":
			return fmt.Errorf("input path %q has a %q segment", p, seg)
		}
	}
	for _, r := range p {
		if r == ':' || unicode.IsSpace(r) || unicode.IsControl(r) || r == utf8.RuneError {
			return fmt.Errorf("input path %q has %q, not allowed in an HDFS path name", p, r)
		}
	}
	return nil
}

// Features are a job's demand features on a 1..10 scale.
type Features struct{ CPU, Memory, Disk, Network int }

// Task is one recorded task.
type Task struct {
	Kind       string // "map" or "reduce"
	DurationMS int64  // of the successful attempt on the recorded host
	Host       string // recorded host (may be empty)
	Rack       string
	InputBytes int64

	// Extensions (optional).
	ID      string // recorded task id, e.g. task_1369942127770_1205_m_000000
	StartMS int64  // start of the successful attempt, ms after the job's submit
}
