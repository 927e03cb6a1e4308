package trace

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"math/bits"
	"strconv"
)

// SWIM replay constants (SWIMProjectUCB/SWIM, workloadSuite/GenerateReplayScript.java).
const (
	// SWIMTraceNodes is the size of the Facebook cluster the FB-2009 samples
	// were taken from; SWIM scales bytes by simulated nodes / this.
	SWIMTraceNodes = 600
	// SWIMMinShuffleBytes and SWIMMinOutputBytes are SWIM's per-job floors
	// (1 KB), applied after scaling.
	SWIMMinShuffleBytes = 1024
	SWIMMinOutputBytes  = 1024
	// swimMinInputBlock: SWIM's input floor is what one 64 MiB block of its
	// SequenceFile input holds (SeqFilePayload(64 MiB) = 57,303,500 bytes),
	// so the smallest job reads exactly one full block.
	swimMinInputBlock = 64 << 20
)

// Derivation-model defaults for what SWIM's TSV does not record (see
// docs/traces.md for the reasoning).
const (
	// DefaultBlockBytes is Hadoop 2/3's dfs.blocksize.
	DefaultBlockBytes = 128 << 20
	// DefaultBytesPerReduce is SWIM's "amount of data per reduce task"
	// argument; 64 MiB is one SWIM-era HDFS block per reducer.
	DefaultBytesPerReduce = 64 << 20
	// DefaultMapSPer128MiB is the map compute time of one 128 MiB block on a
	// speed-1 node (≈6.4 MB/s per map container including task start-up,
	// the scenario YAML's sort example); scaled linearly for other block sizes.
	DefaultMapSPer128MiB = 20.0
	// DefaultReduceSPerGB is the reduce compute time per GB of reduce input
	// on a speed-1 node (≈17 MB/s: merge, reduce function, 3-replica write),
	// the scenario YAML's sort example.
	DefaultReduceSPerGB = 60.0
	// SWIMJobType is the profiles key of every SWIM job (the TSV has no job
	// names or kinds).
	SWIMJobType = "swim"
)

// SWIMOptions control how a SWIM TSV becomes jobs. Zero values take the
// defaults in parentheses.
type SWIMOptions struct {
	File string // names the source in errors (optional)

	Nodes      int // simulated cluster size (TraceNodes: no scaling)
	TraceNodes int // machines of the traced cluster (SWIMTraceNodes = 600)

	BlockBytes     int64   // HDFS block size (DefaultBlockBytes)
	BytesPerReduce int64   // shuffle+output bytes per reducer (DefaultBytesPerReduce)
	MapSPerBlock   float64 // map seconds per full block (DefaultMapSPer128MiB scaled to BlockBytes)
	ReduceSPerGB   float64 // reduce seconds per GB of reduce input (DefaultReduceSPerGB)

	LimitJobs int     // keep the first N jobs (all)
	TimeScale float64 // multiply submit times: 0.5 submits twice as fast (1)

	// KeepMapOnly leaves jobs whose recorded shuffle is 0 map-only (no
	// reducers, no shuffle floor). SWIM's replay always runs at least one
	// reducer; 4,448 of the FB-2009 day-0 jobs record no shuffle.
	KeepMapOnly bool
}

func (o SWIMOptions) withDefaults() (SWIMOptions, error) {
	if o.TraceNodes == 0 {
		o.TraceNodes = SWIMTraceNodes
	}
	if o.Nodes == 0 {
		o.Nodes = o.TraceNodes
	}
	if o.BlockBytes == 0 {
		o.BlockBytes = DefaultBlockBytes
	}
	if o.BytesPerReduce == 0 {
		o.BytesPerReduce = DefaultBytesPerReduce
	}
	if o.MapSPerBlock == 0 {
		o.MapSPerBlock = DefaultMapSPer128MiB * float64(o.BlockBytes) / (128 << 20)
	}
	if o.ReduceSPerGB == 0 {
		o.ReduceSPerGB = DefaultReduceSPerGB
	}
	if o.TimeScale == 0 {
		o.TimeScale = 1
	}
	switch {
	case o.Nodes < 0 || o.TraceNodes < 0:
		return o, fmt.Errorf("swim options: nodes %d and trace nodes %d must be positive", o.Nodes, o.TraceNodes)
	case o.BlockBytes < 1<<20:
		return o, fmt.Errorf("swim options: block size %d below HDFS's 1 MiB minimum", o.BlockBytes)
	case o.BytesPerReduce < 0:
		return o, fmt.Errorf("swim options: bytes per reduce %d is negative", o.BytesPerReduce)
	case o.MapSPerBlock < 0 || o.ReduceSPerGB < 0:
		return o, errors.New("swim options: task time constants must not be negative")
	case o.TimeScale < 0 || math.IsNaN(o.TimeScale) || math.IsInf(o.TimeScale, 0):
		return o, fmt.Errorf("swim options: time scale %v must be a positive number", o.TimeScale)
	case o.LimitJobs < 0:
		return o, fmt.Errorf("swim options: limit %d is negative", o.LimitJobs)
	}
	return o, nil
}

// swimColumns names the TSV's columns, for errors: the six every row has,
// then the optional input path label of SWIM's "withInputPaths" samples.
var swimColumns = [...]string{"job id", "submit s", "gap s", "map input bytes", "shuffle bytes", "reduce output bytes", "input path"}

// swimRequired is how many of swimColumns every row has.
const swimRequired = 6

// swimRow is one parsed TSV line.
type swimRow struct {
	id                     string
	submitS                float64
	input, shuffle, output int64
	inputPath              string
}

// ParseSWIM reads a SWIM workload TSV (job id, submit s, gap s, map input
// bytes, shuffle bytes, reduce output bytes, optionally an input path
// label and empty columns after it; one job a line) and derives
// jobs as SWIM's replay would run them on opts.Nodes machines: bytes scaled
// by Nodes/TraceNodes with SWIM's floors, one map per SWIM input partition,
// reducers by SWIM's bytes-per-reduce rule, task times from the model in
// docs/traces.md. Submit times are made relative to the first job. Blank
// lines and lines starting with '#' are skipped; anything else malformed is
// a *ParseError with line and column.
func ParseSWIM(r io.Reader, opts SWIMOptions) ([]Job, error) {
	o, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	payload := SeqFilePayload(o.BlockBytes)
	minInput := SeqFilePayload(swimMinInputBlock)

	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	var (
		jobs      []Job
		line      int
		first     float64
		prev      float64
		haveFirst bool
	)
	for sc.Scan() {
		line++
		if o.LimitJobs > 0 && len(jobs) >= o.LimitJobs {
			break
		}
		raw := bytes.TrimRight(sc.Bytes(), "\r")
		if len(bytes.TrimSpace(raw)) == 0 || raw[0] == '#' {
			continue
		}
		row, perr := parseSWIMLine(raw)
		if perr != nil {
			perr.File, perr.Line = o.File, line
			return nil, perr
		}
		if !haveFirst {
			first, prev, haveFirst = row.submitS, row.submitS, true
		}
		if row.submitS < prev {
			return nil, &ParseError{File: o.File, Line: line, Column: len(row.id) + 2, Field: swimColumns[1],
				Err: fmt.Errorf("submit time %v goes back before the previous job's %v", row.submitS, prev)}
		}
		prev = row.submitS
		jobs = append(jobs, o.swimJob(row, (row.submitS-first)*o.TimeScale, payload, minInput))
	}
	if err := sc.Err(); err != nil {
		return nil, &ParseError{File: o.File, Line: line + 1, Err: fmt.Errorf("read: %w", err)}
	}
	if len(jobs) == 0 {
		return nil, &ParseError{File: o.File, Err: errors.New("no jobs in the SWIM trace")}
	}
	return jobs, nil
}

// parseSWIMLine splits one line on tabs, keeping each field's column for
// errors. Line is filled in by the caller.
func parseSWIMLine(raw []byte) (swimRow, *ParseError) {
	var row swimRow
	col := 1
	for i := 0; ; i++ {
		end := bytes.IndexByte(raw, '\t')
		last := end < 0
		if last {
			end = len(raw)
		}
		field := string(raw[:end])
		if i >= len(swimColumns) {
			// SWIM's withInputPaths samples end every row with two empty
			// columns; a value there is not something we know how to read.
			if field != "" {
				return row, &ParseError{Column: col, Field: fmt.Sprintf("column %d", i+1),
					Err: fmt.Errorf("unexpected extra column %q (SWIM rows have %d columns, or %d with an input path; later ones must be empty)",
						field, swimRequired, len(swimColumns))}
			}
			if last {
				return row, nil
			}
			col += end + 1
			raw = raw[end+1:]
			continue
		}
		fail := func(err error) (swimRow, *ParseError) {
			return row, &ParseError{Column: col, Field: swimColumns[i], Err: err}
		}
		switch i {
		case 0:
			if field == "" {
				return fail(errors.New("empty job id"))
			}
			row.id = field
		case 1, 2:
			v, err := strconv.ParseFloat(field, 64)
			if err != nil || v < 0 || math.IsInf(v, 0) || math.IsNaN(v) {
				return fail(fmt.Errorf("%q is not a non-negative number of seconds", field))
			}
			if i == 1 {
				row.submitS = v
			}
		case 6:
			// Empty: no label, the job reads data of its own.
			if field != "" {
				if err := CheckInputPath(field); err != nil {
					return fail(err)
				}
			}
			row.inputPath = field
		default:
			v, err := strconv.ParseInt(field, 10, 64)
			if err != nil || v < 0 {
				return fail(fmt.Errorf("%q is not a non-negative byte count", field))
			}
			switch i {
			case 3:
				row.input = v
			case 4:
				row.shuffle = v
			case 5:
				row.output = v
			}
		}
		if last {
			if i < swimRequired-1 {
				return row, &ParseError{Column: col + len(field), Field: swimColumns[i+1],
					Err: fmt.Errorf("missing: row has %d of %d tab-separated columns", i+1, swimRequired)}
			}
			return row, nil
		}
		col += end + 1
		raw = raw[end+1:]
	}
}

// swimJob applies SWIM's replay scaling and the derivation model to one row.
func (o SWIMOptions) swimJob(row swimRow, submitS float64, payload, minInput int64) Job {
	input := max(scaleBytes(row.input, o.Nodes, o.TraceNodes), minInput)
	mapOnly := o.KeepMapOnly && row.shuffle == 0
	var shuffle int64
	if !mapOnly {
		shuffle = max(scaleBytes(row.shuffle, o.Nodes, o.TraceNodes), SWIMMinShuffleBytes)
	}
	output := max(scaleBytes(row.output, o.Nodes, o.TraceNodes), SWIMMinOutputBytes)
	j := Job{
		Name:         row.id,
		Type:         SWIMJobType,
		Queue:        "default",
		SubmitS:      submitS,
		InputBytes:   input,
		ShuffleBytes: shuffle,
		OutputBytes:  output,
		Maps:         int(ceilDiv(input, payload)),
		MapSPerBlock: o.MapSPerBlock,
		ReduceSPerGB: o.ReduceSPerGB,
		InputPath:    row.inputPath,
	}
	if !mapOnly {
		j.Reduces = SWIMReduces(shuffle, output, o.BytesPerReduce, o.Nodes)
	}
	return j
}

// SWIMReduces is SWIM's reducer count: round((shuffle+output) / bytes per
// reduce), at least 1; a count above the cluster size is replaced by a fifth
// of the cluster (SWIM's own bound, kept as is so replays match). A
// non-positive bytesPerReduce leaves the choice to the job: 1 here.
func SWIMReduces(shuffle, output, bytesPerReduce int64, nodes int) int {
	if bytesPerReduce <= 0 {
		return 1
	}
	// Summed as floats: two saturated byte counts must not wrap around.
	n := int64(math.Round((float64(shuffle) + float64(output)) / float64(bytesPerReduce)))
	if n < 1 {
		n = 1
	}
	if n > int64(nodes) {
		n = max(int64(nodes)/5, 1)
	}
	return int(n)
}

// scaleBytes is v*nodes/traceNodes truncated, as SWIM's long arithmetic
// does, without overflowing for large traces.
func scaleBytes(v int64, nodes, traceNodes int) int64 {
	if nodes == traceNodes {
		return v
	}
	hi, lo := bits.Mul64(uint64(v), uint64(nodes))
	if hi >= uint64(traceNodes) {
		return math.MaxInt64
	}
	q, _ := bits.Div64(hi, lo, uint64(traceNodes))
	if q > math.MaxInt64 {
		return math.MaxInt64
	}
	return int64(q)
}

// ceilDiv is ⌈a/b⌉ for a >= 0, b > 0, without overflowing near MaxInt64.
func ceilDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 {
		q++
	}
	return q
}

// SWIM writes its replay input as SequenceFiles of 100-byte BytesWritable
// records, one file per HDFS block, and counts a job's input in usable
// record bytes. SeqFilePayload is how many usable bytes one such file holds
// when it may be at most blockBytes long: the file is a 96-byte header plus
// 116 serialized bytes per record (100 usable + four int lengths), plus a
// 20-byte sync marker every 18 records (the writer syncs after ≥2000 bytes,
// and 18·116 = 2088 is the first record boundary past that).
func SeqFilePayload(blockBytes int64) int64 {
	const (
		header     = 96
		serialized = 116
		usable     = 100
		marker     = 20
		spacing    = 18 * serialized
	)
	size := func(n int64) int64 {
		t := header + serialized*n
		return t + marker*(t/spacing)
	}
	if blockBytes < size(1) {
		return 0
	}
	// Solve size(n) ≈ blockBytes ignoring the floor, then correct by steps.
	n := (blockBytes - header) * spacing / ((spacing + marker) * serialized)
	for size(n+1) <= blockBytes {
		n++
	}
	for size(n) > blockBytes {
		n--
	}
	return n * usable
}
