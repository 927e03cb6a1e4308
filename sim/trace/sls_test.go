package trace

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// slsJobs is in the shape of hadoop-sls's sample input: dotted keys, numbers
// both bare and quoted, the legacy duration.ms and a count.
const slsJobs = `{
  "am.type" : "mapreduce", "job.start.ms" : 5000, "job.end.ms" : 95375,
  "job.queue.name" : "sls_queue_1", "job.id" : "job_2", "job.user" : "default",
  "job.tasks" : [ {
    "container.host" : "/default-rack/node1", "container.start.ms" : "6664", "container.end.ms" : "23707",
    "container.priority" : 20, "container.type" : "map"
  }, {
    "container.host" : "/default-rack/node3", "duration.ms" : 1000, "container.priority" : 10, "container.type" : "reduce", "count" : 2
  } ]
}
{ "job.id" : "job_1", "job.start.ms" : 0, "job.tasks" : [ { "container.host" : "node9", "container.start.ms" : 0, "container.end.ms" : 10 } ] }`

func TestParseSLS(t *testing.T) {
	jobs, err := ParseSLS(strings.NewReader(slsJobs), SLSOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(jobs) != 2 || jobs[0].Name != "job_1" || jobs[1].Name != "job_2" {
		t.Fatalf("jobs %+v, want job_1 then job_2", jobs)
	}
	j := jobs[1]
	if j.SubmitS != 5 || j.Queue != "sls_queue_1" || j.Type != "sls" || j.Maps != 1 || j.Reduces != 2 || j.RecordedS != 90.375 {
		t.Errorf("job_2 = %+v", j)
	}
	want := []Task{
		{Kind: "map", DurationMS: 17043, Host: "node1", Rack: "default-rack", StartMS: 1664},
		{Kind: "reduce", DurationMS: 1000, Host: "node3", Rack: "default-rack"},
		{Kind: "reduce", DurationMS: 1000, Host: "node3", Rack: "default-rack"},
	}
	if !reflect.DeepEqual(j.Tasks, want) {
		t.Errorf("job_2 tasks %+v, want %+v", j.Tasks, want)
	}
	// No container.type is a map (SLS's default), no job.user "default".
	if got := jobs[0].Tasks[0]; got.Kind != "map" || got.Host != "node9" || got.Rack != "" || jobs[0].Queue != "default" || jobs[0].User != "default" {
		t.Errorf("job_1 task %+v queue %q user %q, want a map on node9 with no rack, queue and user default", got, jobs[0].Queue, jobs[0].User)
	}
}

// TestSLSSample pins sim/trace/testdata/sls-4jobs.json, the sample the
// simulator tests and docs/traces.md use.
func TestSLSSample(t *testing.T) {
	path := filepath.Join("testdata", "sls-4jobs.json")
	jobs, err := LoadFile(FormatSLS, path, SWIMOptions{})
	if err != nil {
		t.Fatal(err)
	}
	copyJob := Job{Name: "", Type: "sls", Queue: "etl", User: "default", Maps: 1,
		Tasks: []Task{{Kind: "map", DurationMS: 15000, Host: "host2", Rack: "rack-a"}}}
	c2, c3 := copyJob, copyJob
	c2.Name, c3.Name = "2", "3" // job.count 2 without job.id: SLS's running AM numbers
	want := []Job{c2, c3, {
		Name: "job_etl_1", Type: "sls", Queue: "etl", User: "alice", SubmitS: 4, RecordedS: 67.5, Maps: 3, Reduces: 1,
		Tasks: []Task{
			{Kind: "map", DurationMS: 18500, Host: "host1", Rack: "rack-a", StartMS: 2000},
			{Kind: "map", DurationMS: 15000, Host: "host2", Rack: "rack-a", StartMS: 2010},
			{Kind: "map", DurationMS: 23000, Host: "host3", Rack: "rack-b", StartMS: 2020},
			{Kind: "reduce", DurationMS: 39000, Host: "host4", Rack: "rack-b", StartMS: 26000},
		},
	}, {
		Name: "job_adhoc_7", Type: "sls", Queue: "adhoc", User: "bob", SubmitS: 40, RecordedS: 26, Maps: 3, Reduces: 1,
		Tasks: []Task{
			{Kind: "map", DurationMS: 9000, Host: "host3", Rack: "rack-b"},
			{Kind: "map", DurationMS: 9000, Host: "host3", Rack: "rack-b"},
			{Kind: "map", DurationMS: 9000, Host: "host3", Rack: "rack-b"},
			{Kind: "reduce", DurationMS: 12000, Host: "host1", Rack: "rack-a"},
		},
	}}
	if !reflect.DeepEqual(jobs, want) {
		t.Errorf("sample parsed to\n%+v\nwant\n%+v", jobs, want)
	}
	// The copies must not share a task slice.
	jobs[0].Tasks[0].DurationMS = 1
	if jobs[1].Tasks[0].DurationMS != 15000 {
		t.Error("job.count copies share their tasks")
	}
}

func TestSLSDurationOrder(t *testing.T) {
	// SLS's order: container.duration.ms, then duration.ms, then end - start.
	in := `{"job.tasks":[{"container.duration.ms":7,"duration.ms":8,"container.start.ms":0,"container.end.ms":9},` +
		`{"duration.ms":8,"container.start.ms":0,"container.end.ms":9},{"container.start.ms":0,"container.end.ms":9}]}`
	jobs, err := ParseSLS(strings.NewReader(in), SLSOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var got []int64
	for _, k := range jobs[0].Tasks {
		got = append(got, k.DurationMS)
	}
	if !reflect.DeepEqual(got, []int64{7, 8, 9}) {
		t.Errorf("durations %v, want 7 8 9", got)
	}
	// SLS takes count and job.count below 1 as 1, and a job without job.id
	// is named by its number.
	jobs, err = ParseSLS(strings.NewReader(`{"job.count":0,"job.tasks":[{"duration.ms":1,"count":-2}]}`), SLSOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(jobs) != 1 || len(jobs[0].Tasks) != 1 || jobs[0].Name != "0" {
		t.Errorf("jobs %+v, want one job 0 of one task", jobs)
	}
	jobs, err = ParseSLS(strings.NewReader(`{"job.id":"j","job.count":"2","job.tasks":[{"duration.ms":1}]}`), SLSOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(jobs) != 2 || jobs[0].Name != "j-1" || jobs[1].Name != "j-2" {
		t.Errorf("jobs %+v, want j-1 and j-2", jobs)
	}
}

func TestReadSLSNumNodes(t *testing.T) {
	in := `{"num.nodes": 3, "num.racks": 2}
{"job.id":"j","job.tasks":[{"container.host":"/default-rack/a","duration.ms":5},{"container.host":"/rack1/node1","duration.ms":5}]}`
	tr, err := ReadSLS(strings.NewReader(in), SLSOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if tr.NumNodes != 3 || tr.NumRacks != 2 || len(tr.Jobs) != 1 {
		t.Fatalf("trace %+v, want 3 nodes on 2 racks and one job", tr)
	}
	// Generated rack0/node0, rack1/node1, rack0/node2 plus default-rack/a;
	// rack1/node1 is recorded and generated both.
	if n := tr.NodeCount(); n != 4 {
		t.Errorf("NodeCount %d, want 4", n)
	}
}

func TestParseSLSErrors(t *testing.T) {
	tests := []struct {
		name, in, field, msg string
		line, col            int
	}{
		{"no tasks key", `{"job.id":"j","job.start.ms":0}`, "job.tasks", "missing", 1, 1},
		{"empty tasks", `{"job.id":"j","job.start.ms":0,"job.tasks":[]}`, "job.tasks", "no containers", 1, 44},
		{"tasks not an array", `{"job.id":"j","job.tasks":{}}`, "job.tasks", "not an array", 1, 27},
		{"container not an object", `{"job.id":"j","job.tasks":[1]}`, "job.tasks[0]", "not a container object", 1, 28},
		{"no duration", "{\"job.id\":\"j\",\"job.tasks\":[\n  {\"container.host\":\"h\"}]}", "job.tasks[0]", "no duration", 2, 3},
		{"only a start", `{"job.tasks":[{"container.start.ms":5}]}`, "job.tasks[0]", "no duration", 1, 15},
		{"zero duration", `{"job.id":"j","job.start.ms":0,"job.tasks":[{"container.start.ms":5,"container.end.ms":5}]}`, "job.tasks[0].container.end.ms", "must be positive", 1, 0},
		{"negative duration", `{"job.tasks":[{"duration.ms":-4}]}`, "job.tasks[0].duration.ms", "must be positive", 1, 30},
		{"end before start", "{\"job.tasks\":[\n{\"duration.ms\":5,\n\"container.start.ms\":9,\n\"container.end.ms\":3}]}", "job.tasks[0].container.end.ms", "end 3 ms before container.start.ms 9", 4, 20},
		{"job end before start", `{"job.start.ms":9,"job.end.ms":3,"job.tasks":[{"duration.ms":5}]}`, "job.end.ms", "before job.start.ms 9", 1, 32},
		{"not a number", `{"job.id":"j","job.start.ms":"abc","job.tasks":[{"duration.ms":5}]}`, "job.start.ms", `"abc" is not an integer`, 1, 30},
		{"fraction", `{"job.tasks":[{"duration.ms":5.5}]}`, "job.tasks[0].duration.ms", "5.5 is not an integer", 1, 30},
		{"bad count", "\n" + `{"job.tasks":[{"duration.ms":5,"count":"x"}]}`, "job.tasks[0].count", "not an integer", 2, 0},
		{"negative start", `{"job.start.ms":-1,"job.tasks":[{"duration.ms":5}]}`, "job.start.ms", "negative", 1, 17},
		{"id not a string", `{"job.id":[1],"job.tasks":[{"duration.ms":5}]}`, "job.id", "not a string", 1, 11},
		{"other container type", `{"job.tasks":[{"duration.ms":5,"container.type":"am"}]}`, "job.tasks[0].container.type", `"am": want map or reduce`, 1, 49},
		{"stream AM", `{"am.type":"stream","job.tasks":[{"duration.ms":5}]}`, "am.type", "only mapreduce", 1, 12},
		{"dag AM by its conf key", `{"yarn.sls.am.type":"dag","job.tasks":[{"duration.ms":5}]}`, "yarn.sls.am.type", "only mapreduce", 1, 0},
		{"num.nodes range", `{"num.nodes":-1}`, "num.nodes", "out of range", 1, 14},
		{"not an object", `{"job.tasks":[{"duration.ms":5}]} 7`, "", "expected a JSON object", 1, 35},
		{"syntax", "{\"job.tasks\":[{\"duration.ms\":5}]}\n{\"job.id\" 1}", "", "invalid JSON", 2, 0},
		{"no jobs", `{"num.nodes":3}`, "", "no jobs", 0, 0},
		// A few bytes must not expand into gigabytes of tasks (found by FuzzParseSLS).
		{"huge count", `{"job.id":"j","job.start.ms":0,"job.tasks":[{"duration.ms":5,"count":"2000000000"}]}`, "job.tasks[0].count", "more than 1048576 tasks", 1, 0},
		{"counts over the trace", `{"job.id":"a","job.start.ms":0,"job.tasks":[{"duration.ms":5,"count":1000000}]}` + "\n" +
			`{"job.id":"b","job.start.ms":0,"job.tasks":[{"duration.ms":5},{"duration.ms":5,"count":50000}]}`, "job.tasks[1].count", "more than 1048576 tasks", 2, 0},
		{"huge job.count", `{"job.count":600000,"job.tasks":[{"duration.ms":5,"count":2}]}`, "job.count", "600000 copies of 2 tasks", 1, 14},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseSLS(strings.NewReader(tt.in), SLSOptions{File: "t.json"})
			wantParseError(t, err, tt.line, tt.col, tt.field, tt.msg)
			if err != nil && !strings.HasPrefix(err.Error(), "t.json:") {
				t.Errorf("error %q does not name the file", err)
			}
		})
	}
}
