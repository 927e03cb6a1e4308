package trace

import (
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

func TestRumenRealTrace(t *testing.T) {
	path := filepath.Join(sharedTraces(t), "rumen-2jobs2min.json")
	jobs, err := LoadFile(FormatRumen, path, SWIMOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(jobs) != 2 {
		t.Fatalf("%d jobs, want the 2 TeraGen jobs", len(jobs))
	}
	wantNames := []string{"job_1369942127770_1205", "job_1369942127770_1206"}
	wantSubmit := []float64{0, 105.204} // submitTime 1371222054499 and 1371222159703
	for i, j := range jobs {
		if j.Name != wantNames[i] || j.Type != "teragen" || j.Queue != "sls_queue_1" || j.User != "jenkins" {
			t.Errorf("job %d = %s/%s/%s/%s", i, j.Name, j.Type, j.Queue, j.User)
		}
		if j.SubmitS != wantSubmit[i] {
			t.Errorf("job %d submit %v s, want %v", i, j.SubmitS, wantSubmit[i])
		}
		if j.Maps != 96 || j.Reduces != 0 || len(j.Tasks) != 96 {
			t.Errorf("job %d: %d maps, %d reduces, %d tasks; want 96, 0, 96", i, j.Maps, j.Reduces, len(j.Tasks))
		}
		// TeraGen writes mapreduce.terasort.num-rows = 4e8 rows of 100 bytes from its maps.
		if j.OutputBytes != 40_000_000_000 || j.ShuffleBytes != 0 {
			t.Errorf("job %d output %d shuffle %d, want 40 GB map output to HDFS and no shuffle", i, j.OutputBytes, j.ShuffleBytes)
		}
		hosts := map[string]bool{}
		for _, task := range j.Tasks {
			if task.Kind != "map" || task.DurationMS <= 0 || task.Rack != "default-rack" || task.StartMS <= 0 {
				t.Fatalf("job %d task %+v", i, task)
			}
			hosts[task.Host] = true
		}
		var hs []string
		for h := range hosts {
			hs = append(hs, h)
		}
		sort.Strings(hs)
		if want := "a2115.smile.com a2116.smile.com a2117.smile.com a2118.smile.com"; strings.Join(hs, " ") != want {
			t.Errorf("job %d hosts %v, want %s", i, hs, want)
		}
	}
	// The first map of the first job, as recorded: attempt 1371222061163 -> 1371222078206.
	first := jobs[0].Tasks[0]
	if first.ID != "task_1369942127770_1205_m_000000" || first.DurationMS != 17043 || first.Host != "a2118.smile.com" || first.StartMS != 6664 {
		t.Errorf("first task = %+v", first)
	}
	if jobs[0].RecordedS != 99.375 {
		t.Errorf("recorded run time %v s, want 99.375", jobs[0].RecordedS)
	}
}

// rumenJobJSON is a small job with one map that failed once and one reduce.
const rumenJobJSON = `{
  "jobID" : "job_1_0002", "user" : "u", "jobName" : "PigLatin:q1.pig", "queue" : "",
  "priority" : "HIGH", "submitTime" : 2000, "finishTime" : 60000,
  "mapTasks" : [ {
    "taskID" : "task_1_0002_m_000000", "taskType" : "MAP", "startTime" : 3000, "finishTime" : 20000,
    "inputBytes" : 1000, "outputBytes" : 400,
    "attempts" : [
      { "hostName" : "/r1/h1", "startTime" : 3000, "finishTime" : 5000, "result" : "FAILED" },
      { "hostName" : "/r2/h2", "startTime" : 6000, "finishTime" : 20000, "result" : "SUCCESS", "hdfsBytesWritten" : 0 } ]
  }, {
    "taskID" : "task_1_0002_m_000001", "taskType" : "MAP", "startTime" : -1, "finishTime" : -1,
    "inputBytes" : -1, "attempts" : [ ]
  } ],
  "reduceTasks" : [ {
    "taskID" : "task_1_0002_r_000000", "taskType" : "REDUCE", "startTime" : 21000, "finishTime" : 50000,
    "outputBytes" : 300,
    "attempts" : [ { "hostName" : "h3", "startTime" : 21000, "finishTime" : 50000, "result" : "SUCCESS", "reduceShuffleBytes" : 450 } ]
  } ]
}`

// rumenEarlyJSON is a map-only job submitted before rumenJobJSON.
const rumenEarlyJSON = `{"jobID":"job_1_0001","submitTime":1000,"mapTasks":[{"taskID":"t","startTime":1500,"finishTime":1600,
 "attempts":[{"location":{"layers":["rackA","hostA"]},"hostName":"ignored","startTime":1500,"finishTime":1600,"result":"SUCCESS","hdfsBytesWritten":77}]}]}`

func TestParseRumenInline(t *testing.T) {
	for _, in := range []struct{ name, text string }{
		{"sequence", rumenJobJSON + "\n" + rumenEarlyJSON + "\n"},
		{"array", "[ " + rumenJobJSON + ",\n" + rumenEarlyJSON + " ]"},
	} {
		t.Run(in.name, func(t *testing.T) {
			jobs, err := ParseRumen(strings.NewReader(in.text))
			if err != nil {
				t.Fatal(err)
			}
			if len(jobs) != 2 || jobs[0].Name != "job_1_0001" || jobs[1].Name != "job_1_0002" {
				t.Fatalf("jobs %+v, want job_1_0001 then job_1_0002 (submit order)", jobs)
			}
			early, j := jobs[0], jobs[1]
			if early.SubmitS != 0 || j.SubmitS != 1 {
				t.Errorf("submit %v and %v, want 0 and 1 s", early.SubmitS, j.SubmitS)
			}
			if early.OutputBytes != 77 || early.Tasks[0].Rack != "rackA" || early.Tasks[0].Host != "hostA" || early.Type != "unknown" {
				t.Errorf("map-only job %+v", early)
			}
			if j.Type != "piglatin" || j.Queue != "default" || j.Priority != 1 || j.RecordedS != 58 {
				t.Errorf("job type %q queue %q priority %d recorded %v", j.Type, j.Queue, j.Priority, j.RecordedS)
			}
			if j.Maps != 1 || j.Reduces != 1 || len(j.Tasks) != 2 {
				t.Fatalf("maps %d reduces %d tasks %d; want the never-run map dropped", j.Maps, j.Reduces, len(j.Tasks))
			}
			m, r := j.Tasks[0], j.Tasks[1]
			if m.Host != "h2" || m.Rack != "r2" || m.DurationMS != 14000 || m.StartMS != 4000 {
				t.Errorf("map %+v, want the successful attempt on /r2/h2, 14 s", m)
			}
			if r.Kind != "reduce" || r.Host != "h3" || r.Rack != "" || r.DurationMS != 29000 {
				t.Errorf("reduce %+v", r)
			}
			if j.InputBytes != 1000 || j.ShuffleBytes != 450 || j.OutputBytes != 300 {
				t.Errorf("bytes in %d shuffle %d out %d, want 1000 450 300", j.InputBytes, j.ShuffleBytes, j.OutputBytes)
			}
		})
	}
}

func TestParseRumenErrors(t *testing.T) {
	tests := []struct {
		name      string
		in        string
		line, col int
		field     string
		msg       string
	}{
		{"syntax error", "{\"jobID\": \"j\",\n \"submitTime\": 5,,\n}", 2, 18, "", "invalid JSON"},
		{"wrong type", "\n\n  {\"jobID\": \"j\", \"submitTime\": \"soon\"}", 3, 0, "submitTime", "string"},
		{"missing job id", "{\"jobID\":\"a\",\"submitTime\":1}\n{\"submitTime\": 5}", 2, 1, "jobID", "missing"},
		{"missing submit time", "{\"jobID\": \"j\"}", 1, 1, "submitTime", "missing"},
		{"bad priority", "{\"jobID\": \"j\", \"submitTime\": 1, \"priority\": \"URGENT\"}", 1, 1, "priority", "URGENT"},
		{"not an object", "[1]", 1, 2, "", "expected a JSON object"},
		{"truncated", "{\"jobID\": \"j\",", 1, 0, "", "JSON"},
		{"empty", "  \n", 0, 0, "", "no jobs"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseRumen(strings.NewReader(tt.in))
			wantParseError(t, err, tt.line, tt.col, tt.field, tt.msg)
		})
	}
}
