package trace

import (
	"math"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestSeqFilePayload(t *testing.T) {
	// Expected values from SWIM's GenerateReplayScript.maxSeqFile arithmetic.
	tests := []struct {
		block, want int64
	}{
		{64 << 20, 57_303_500},
		{128 << 20, 114_607_000},
		{256 << 20, 229_214_200},
		{1 << 20, 895_200},
		{300, 100}, // header 96 + one 116-byte record fits, two do not
		{200, 0},
	}
	for _, tt := range tests {
		if got := SeqFilePayload(tt.block); got != tt.want {
			t.Errorf("SeqFilePayload(%d) = %d, want %d", tt.block, got, tt.want)
		}
	}
}

func TestSWIMReduces(t *testing.T) {
	const mb = 1 << 20
	tests := []struct {
		name                    string
		shuffle, output, perRed int64
		nodes, want             int
	}{
		{"floor of one", 1024, 1024, 64 * mb, 600, 1},
		{"rounds down", 64*mb + 10*mb, 10 * mb, 64 * mb, 600, 1},
		{"rounds up", 64*mb + 20*mb, 20 * mb, 64 * mb, 600, 2},
		{"at the cluster size", 600 * 64 * mb, 0, 64 * mb, 600, 600},
		{"over the cluster size: a fifth", 601 * 64 * mb, 0, 64 * mb, 600, 120},
		{"tiny cluster keeps one", 100 * 64 * mb, 0, 64 * mb, 3, 1},
		{"no bytes-per-reduce", 1 << 40, 0, 0, 600, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := SWIMReduces(tt.shuffle, tt.output, tt.perRed, tt.nodes); got != tt.want {
				t.Errorf("SWIMReduces = %d, want %d", got, tt.want)
			}
		})
	}
}

func TestScaleBytes(t *testing.T) {
	tests := []struct {
		v                 int64
		nodes, traceNodes int
		want              int64
	}{
		{740773, 600, 600, 740773},
		{740773, 100, 600, 123462}, // 74,077,300 / 600 truncated, as Java's long division
		{740773, 3000, 600, 3703865},
		{math.MaxInt64 / 2, 3000, 600, math.MaxInt64}, // saturates instead of overflowing
		{math.MaxInt64 / 10, 3000, 600, math.MaxInt64 / 10 * 5},
	}
	for _, tt := range tests {
		if got := scaleBytes(tt.v, tt.nodes, tt.traceNodes); got != tt.want {
			t.Errorf("scaleBytes(%d, %d, %d) = %d, want %d", tt.v, tt.nodes, tt.traceNodes, got, tt.want)
		}
	}
}

// The first five lines of SWIM_FB-2009_samples_24_times_1hr_0.tsv.
const swimHead = "job0\t49\t49\t740773\t2339561\t627471\n" +
	"job1\t101\t52\t736346\t1700537\t432269\n" +
	"job2\t122\t21\t267631\t594312\t233549\n" +
	"job3\t197\t75\t233422\t42\t37\n" +
	"job4\t208\t11\t3623279\t0\t9838062\n"

// The first three lines of SWIM's FB-2010_samples_24_times_1hr_withInputPaths_0.tsv
// (workloadSuite/): nine columns, the input path label and two empty ones.
const swimPathsHead = "job0\t1\t1\t2267942\t0\t1937944\tinputPath1\t\t\n" +
	"job1\t2\t1\t20791551476\t12295202125\t1491950225\tinputPath2\t\t\n" +
	"job2\t2\t0\t90015105\t110986156\t2783997\tinputPath3\t\t\n"

func TestParseSWIMInputPaths(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []string // InputPath of each job
	}{
		{"6 columns: no label", swimHead, []string{"", "", "", "", ""}},
		{"7 columns", "j0\t1\t1\t1\t1\t1\tinputPath7\nj1\t2\t1\t1\t1\t1\twarehouse/t1\n", []string{"inputPath7", "warehouse/t1"}},
		{"9 columns, SWIM's withInputPaths form", swimPathsHead, []string{"inputPath1", "inputPath2", "inputPath3"}},
		{"empty label: the job's own data", "j0\t1\t1\t1\t1\t1\t\nj1\t2\t1\t1\t1\t1\t\t\t\n", []string{"", ""}},
		{"rows of 6 and 9 columns mixed, CRLF", "j0\t1\t1\t1\t1\t1\r\nj1\t2\t1\t1\t1\t1\tp\t\t\r\n", []string{"", "p"}},
		{"more empty columns than SWIM writes", "j0\t1\t1\t1\t1\t1\tp\t\t\t\t\n", []string{"p"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			jobs, err := ParseSWIM(strings.NewReader(tt.in), SWIMOptions{Nodes: 3000, TraceNodes: 3000})
			if err != nil {
				t.Fatal(err)
			}
			if len(jobs) != len(tt.want) {
				t.Fatalf("%d jobs, want %d", len(jobs), len(tt.want))
			}
			for i, j := range jobs {
				if j.InputPath != tt.want[i] {
					t.Errorf("job %d input path %q, want %q", i, j.InputPath, tt.want[i])
				}
			}
		})
	}
	// The label changes nothing else: the same rows without it give the
	// same jobs.
	labelled, err := ParseSWIM(strings.NewReader(swimPathsHead), SWIMOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var cut strings.Builder
	for _, l := range strings.SplitAfter(swimPathsHead, "\n") {
		if f := strings.Split(l, "\t"); len(f) > 6 {
			cut.WriteString(strings.Join(f[:6], "\t") + "\n")
		}
	}
	plain, err := ParseSWIM(strings.NewReader(cut.String()), SWIMOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range plain {
		l := labelled[i]
		l.InputPath = ""
		if !reflect.DeepEqual(l, plain[i]) {
			t.Errorf("job %d: %+v with its label, %+v without", i, labelled[i], plain[i])
		}
	}
}

func TestCheckInputPath(t *testing.T) {
	for _, p := range []string{"inputPath21", "warehouse/t1/ds=2010-10-01", "a.b_c-d"} {
		if err := CheckInputPath(p); err != nil {
			t.Errorf("CheckInputPath(%q) = %v, want nil", p, err)
		}
	}
	for _, p := range []string{"", "/abs", "trail/", "a//b", "a/../b", ".", "a b", "x:y", "a\x00b", "bad\xffutf8"} {
		if err := CheckInputPath(p); err == nil {
			t.Errorf("CheckInputPath(%q) = nil, want an error", p)
		}
	}
}

func TestParseSWIM(t *testing.T) {
	const minInput = 57_303_500 // one 64 MiB SWIM SequenceFile
	tests := []struct {
		name  string
		in    string
		opts  SWIMOptions
		check func(t *testing.T, jobs []Job)
	}{
		{
			name: "600 nodes: no scaling, SWIM floors, submit relative to the first job",
			in:   swimHead,
			check: func(t *testing.T, jobs []Job) {
				if len(jobs) != 5 {
					t.Fatalf("%d jobs, want 5", len(jobs))
				}
				j := jobs[0]
				want := Job{Name: "job0", Type: "swim", Queue: "default", SubmitS: 0,
					InputBytes: minInput, ShuffleBytes: 2339561, OutputBytes: 627471,
					Maps: 1, Reduces: 1, MapSPerBlock: 20, ReduceSPerGB: 60}
				if !equalJob(j, want) {
					t.Errorf("job0 = %+v\nwant   %+v", j, want)
				}
				if jobs[3].ShuffleBytes != 1024 || jobs[3].OutputBytes != 1024 {
					t.Errorf("job3 shuffle %d output %d, want the 1 KB floors", jobs[3].ShuffleBytes, jobs[3].OutputBytes)
				}
				if jobs[4].ShuffleBytes != 1024 || jobs[4].Reduces != 1 {
					t.Errorf("job4 (no recorded shuffle) shuffle %d reduces %d, want SWIM's 1 KB and 1 reducer", jobs[4].ShuffleBytes, jobs[4].Reduces)
				}
				if got := []float64{jobs[1].SubmitS, jobs[4].SubmitS}; got[0] != 52 || got[1] != 159 {
					t.Errorf("submit times %v, want [52 159]", got)
				}
			},
		},
		{
			name: "big job on 3000 nodes: bytes scale by 5, maps per block, reduces per 64 MiB",
			in:   "job5891\t86394\t1\t26696479780\t78256050458\t24810560\n",
			opts: SWIMOptions{Nodes: 3000},
			check: func(t *testing.T, jobs []Job) {
				j := jobs[0]
				if j.InputBytes != 133482398900 || j.ShuffleBytes != 391280252290 || j.OutputBytes != 124052800 {
					t.Errorf("bytes %d/%d/%d, want 5x the trace", j.InputBytes, j.ShuffleBytes, j.OutputBytes)
				}
				if want := int(math.Ceil(133482398900 / 114607000.0)); j.Maps != want {
					t.Errorf("maps %d, want %d", j.Maps, want)
				}
				// (391,280,252,290 + 124,052,800) / 64 MiB = 5832.4 -> 5832 > 3000 nodes -> 3000/5.
				if j.Reduces != 600 {
					t.Errorf("reduces %d, want 600", j.Reduces)
				}
			},
		},
		{
			name: "block size, task constants, time scale and limit",
			in:   swimHead,
			opts: SWIMOptions{BlockBytes: 64 << 20, TimeScale: 0.5, LimitJobs: 2, ReduceSPerGB: 90},
			check: func(t *testing.T, jobs []Job) {
				if len(jobs) != 2 {
					t.Fatalf("%d jobs, want 2 (LimitJobs)", len(jobs))
				}
				if jobs[1].SubmitS != 26 {
					t.Errorf("job1 submit %v, want 26 (52 s at time scale 0.5)", jobs[1].SubmitS)
				}
				if jobs[0].MapSPerBlock != 10 || jobs[0].ReduceSPerGB != 90 {
					t.Errorf("map s/block %v reduce s/GB %v, want 10 (20 s per 128 MiB at 64 MiB) and 90", jobs[0].MapSPerBlock, jobs[0].ReduceSPerGB)
				}
			},
		},
		{
			name: "KeepMapOnly leaves zero-shuffle jobs without reducers",
			in:   swimHead,
			opts: SWIMOptions{KeepMapOnly: true},
			check: func(t *testing.T, jobs []Job) {
				if j := jobs[4]; j.ShuffleBytes != 0 || j.Reduces != 0 || j.OutputBytes != 9838062 {
					t.Errorf("job4 = %+v, want map-only with its output", j)
				}
				if jobs[3].Reduces != 1 {
					t.Errorf("job3 (42 shuffle bytes) reduces %d, want 1", jobs[3].Reduces)
				}
			},
		},
		{
			name: "comments, blank lines and CRLF",
			in:   "# SWIM sample\n\njob0\t10\t10\t1\t2\t3\r\n\r\njob1\t12.5\t2.5\t1\t2\t3\r\n",
			check: func(t *testing.T, jobs []Job) {
				if len(jobs) != 2 || jobs[1].SubmitS != 2.5 || jobs[1].OutputBytes != 1024 {
					t.Errorf("jobs = %+v", jobs)
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			jobs, err := ParseSWIM(strings.NewReader(tt.in), tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			tt.check(t, jobs)
		})
	}
}

func equalJob(a, b Job) bool {
	return a.Name == b.Name && a.Type == b.Type && a.Queue == b.Queue && a.SubmitS == b.SubmitS &&
		a.InputBytes == b.InputBytes && a.ShuffleBytes == b.ShuffleBytes && a.OutputBytes == b.OutputBytes &&
		a.Maps == b.Maps && a.Reduces == b.Reduces && a.MapSPerBlock == b.MapSPerBlock && a.ReduceSPerGB == b.ReduceSPerGB
}

func TestParseSWIMErrors(t *testing.T) {
	tests := []struct {
		name      string
		in        string
		line, col int
		field     string
		msg       string
	}{
		{"letters in input bytes", "job0\t49\t49\t74x0773\t1\t1\n", 1, 12, "map input bytes", `"74x0773"`},
		{"negative shuffle", "job0\t1\t1\t5\t1\t1\njob1\t2\t1\t5\t-3\t1\n", 2, 12, "shuffle bytes", "non-negative"},
		{"bad submit time", "job0\tsoon\t1\t1\t1\t1\n", 1, 6, "submit s", "seconds"},
		{"empty job id", "\t1\t1\t1\t1\t1\n", 1, 1, "job id", "empty"},
		{"missing columns", "job0\t1\t1\t100\n", 1, 13, "shuffle bytes", "4 of 6"},
		{"space separated", "job0 1 1 100 1 1\n", 1, 17, "submit s", "1 of 6"},
		{"non-empty 8th column", "job0\t1\t1\t1\t1\t1\tp\textra\n", 1, 18, "column 8", `extra column "extra"`},
		{"non-empty 9th column", "job0\t1\t1\t1\t1\t1\tp\t\t9\n", 1, 19, "column 9", `extra column "9"`},
		{"8th column after an empty label", "job0\t1\t1\t1\t1\t1\t\tx\n", 1, 17, "column 8", "later ones must be empty"},
		{"bad input path", "job0\t1\t1\t1\t1\t1\t/abs\n", 1, 16, "input path", "empty segment"},
		{"input path with a space", "job0\t1\t1\t1\t1\t1\tin put\n", 1, 16, "input path", "not allowed"},
		{"time going back", "job0\t10\t10\t1\t1\t1\njob1\t5\t0\t1\t1\t1\n", 2, 6, "submit s", "goes back"},
		{"no jobs", "# nothing\n\n", 0, 0, "", "no jobs"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseSWIM(strings.NewReader(tt.in), SWIMOptions{File: "w.tsv"})
			wantParseError(t, err, tt.line, tt.col, tt.field, tt.msg)
			if !strings.HasPrefix(err.Error(), "w.tsv:") {
				t.Errorf("error %q does not start with the file name", err)
			}
		})
	}
}

func TestSWIMOptionErrors(t *testing.T) {
	for _, o := range []SWIMOptions{
		{Nodes: -1}, {BlockBytes: 4096}, {TimeScale: -1}, {LimitJobs: -2}, {MapSPerBlock: -1}, {BytesPerReduce: -1},
	} {
		if _, err := ParseSWIM(strings.NewReader(swimHead), o); err == nil {
			t.Errorf("options %+v accepted", o)
		}
	}
}

// TestSWIMRealTraces pins what the shipped SWIM samples give, so a change
// to the derivation model shows up as a reviewed diff in these numbers.
func TestSWIMRealTraces(t *testing.T) {
	dir := sharedTraces(t)
	tests := []struct {
		file                string
		nodes               int
		jobs, maps, reduces int
		lastSubmitS         float64
		mapOnlyWithKeepFlag int
	}{
		{"SWIM_FB-2009_samples_24_times_1hr_0.tsv", 600, 5894, 239987, 116108, 86355, 4448},
		{"SWIM_FB-2009_samples_24_times_1hr_0.tsv", 100, 5894, 44613, 22349, 86355, 4448},
		{"SWIM_FB-2009_samples_24_times_1hr_0_first50jobs.tsv", 600, 50, 189, 1470, 2777, 0},
		{"SWIM_FB-2009_samples_24_times_1hr_1.tsv", 600, 6638, 298868, 123197, 86379, 0},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			jobs, err := LoadFile(FormatSWIM, filepath.Join(dir, tt.file), SWIMOptions{Nodes: tt.nodes})
			if err != nil {
				t.Fatal(err)
			}
			var maps, reduces int
			for i, j := range jobs {
				maps += j.Maps
				reduces += j.Reduces
				if j.Maps < 1 || j.Reduces < 1 || j.InputBytes < 57_303_500 || j.ShuffleBytes < 1024 || j.OutputBytes < 1024 {
					t.Fatalf("job %d %+v breaks SWIM's floors", i, j)
				}
				if i > 0 && j.SubmitS < jobs[i-1].SubmitS {
					t.Fatalf("job %d submitted before job %d", i, i-1)
				}
			}
			t.Logf("%s at %d nodes: %d jobs, %d maps, %d reduces, last submit %.0f s", tt.file, tt.nodes, len(jobs), maps, reduces, jobs[len(jobs)-1].SubmitS)
			if len(jobs) != tt.jobs {
				t.Errorf("%d jobs, want %d", len(jobs), tt.jobs)
			}
			if maps != tt.maps || reduces != tt.reduces || jobs[len(jobs)-1].SubmitS != tt.lastSubmitS {
				t.Errorf("maps %d reduces %d last submit %v, want %d %d %v", maps, reduces, jobs[len(jobs)-1].SubmitS, tt.maps, tt.reduces, tt.lastSubmitS)
			}
			if tt.mapOnlyWithKeepFlag != 0 {
				jobs, err := LoadFile(FormatSWIM, filepath.Join(dir, tt.file), SWIMOptions{Nodes: tt.nodes, KeepMapOnly: true})
				if err != nil {
					t.Fatal(err)
				}
				mapOnly := 0
				for _, j := range jobs {
					if j.Reduces == 0 {
						mapOnly++
					}
				}
				if mapOnly != tt.mapOnlyWithKeepFlag {
					t.Errorf("%d map-only jobs with KeepMapOnly, want %d", mapOnly, tt.mapOnlyWithKeepFlag)
				}
			}
		})
	}
}
