package trace

import (
	"strings"
	"testing"
)

// slsJobs is in the shape of hadoop-sls's sample input: dotted keys, numbers
// both bare and quoted (its Python generators write strings).
const slsJobs = `{
  "am.type" : "mapreduce", "job.start.ms" : 5000, "job.end.ms" : 95375,
  "job.queue.name" : "sls_queue_1", "job.id" : "job_2", "job.user" : "default",
  "job.tasks" : [ {
    "container.host" : "/default-rack/node1", "container.start.ms" : "6664", "container.end.ms" : "23707",
    "container.priority" : 20, "container.type" : "map"
  }, {
    "container.host" : "/default-rack/node3", "duration.ms" : 1000, "container.priority" : 10, "count" : 2
  } ]
}
{ "job.id" : "job_1", "job.start.ms" : 0, "job.tasks" : [ { "container.host" : "node9", "container.start.ms" : 0, "container.end.ms" : 10 } ] }`

func TestParseSLS(t *testing.T) {
	jobs, err := ParseSLS(strings.NewReader(slsJobs))
	if err != nil {
		t.Fatal(err)
	}
	if len(jobs) != 2 || jobs[0].Name != "job_1" || jobs[1].Name != "job_2" {
		t.Fatalf("jobs %+v, want job_1 then job_2", jobs)
	}
	j := jobs[1]
	if j.SubmitS != 5 || j.Queue != "sls_queue_1" || j.Maps != 1 || j.Reduces != 2 || j.RecordedS != 90.375 {
		t.Errorf("job_2 = %+v", j)
	}
	want := []Task{
		{Kind: "map", DurationMS: 17043, Host: "node1", Rack: "default-rack", StartMS: 1664},
		{Kind: "reduce", DurationMS: 1000, Host: "node3", Rack: "default-rack"},
		{Kind: "reduce", DurationMS: 1000, Host: "node3", Rack: "default-rack"},
	}
	for i, w := range want {
		if j.Tasks[i] != w {
			t.Errorf("task %d = %+v, want %+v", i, j.Tasks[i], w)
		}
	}
	if got := jobs[0].Tasks[0]; got.Kind != "map" || got.Host != "node9" || got.Rack != "" || jobs[0].Queue != "default" {
		t.Errorf("job_1 task %+v queue %q, want a map on node9 with no rack in queue default", got, jobs[0].Queue)
	}
}

func TestParseSLSErrors(t *testing.T) {
	tests := []struct {
		name, in, field, msg string
		line                 int
	}{
		{"no tasks", `{"job.id":"j","job.start.ms":0,"job.tasks":[]}`, "job.tasks", "at least one task", 1},
		{"zero duration", `{"job.id":"j","job.start.ms":0,"job.tasks":[{"container.start.ms":5,"container.end.ms":5}]}`, "job.tasks[0]", "positive", 1},
		{"bad count", "\n" + `{"job.id":"j","job.start.ms":0,"job.tasks":[{"duration.ms":5,"count":0}]}`, "job.tasks[0].count", "at least 1", 2},
		{"missing id", `{"job.start.ms":0}`, "job.id", "missing", 1},
		// A few bytes must not expand into gigabytes of tasks (found by FuzzParseSLS).
		{"huge count", `{"job.id":"j","job.start.ms":0,"job.tasks":[{"duration.ms":5,"count":"1e9"}]}`, "job.tasks[0].count", "more than 1048576 tasks", 1},
		{"counts over the trace", `{"job.id":"a","job.start.ms":0,"job.tasks":[{"duration.ms":5,"count":1000000}]}` + "\n" +
			`{"job.id":"b","job.start.ms":0,"job.tasks":[{"duration.ms":5},{"duration.ms":5,"count":50000}]}`, "job.tasks[1].count", "more than 1048576 tasks", 2},
		{"not a number", `{"job.id":"j","job.start.ms":"abc"}`, "", `"abc" is not an integer`, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseSLS(strings.NewReader(tt.in))
			wantParseError(t, err, tt.line, 1, tt.field, tt.msg)
		})
	}
}
