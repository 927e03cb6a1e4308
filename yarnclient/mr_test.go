package yarnclient

import (
	"context"
	"errors"
	"reflect"
	"testing"
)

const (
	job1  = "job_1763719000000_0001"
	mrURL = "/proxy/" + app1 + "/ws/v1/mapreduce"
)

func mrFake(t *testing.T) *fakeRM {
	return newFakeRM(t).
		onFixture("GET", mrURL+"/jobs", "mr/jobs.json").
		onFixture("GET", mrURL+"/jobs/"+job1, "mr/job.json").
		onFixture("GET", mrURL+"/jobs/"+job1+"/tasks", "mr/tasks.json").
		onFixture("GET", mrURL+"/jobs/"+job1+"/tasks/task_1763719000000_0001_m_000000/attempts", "mr/attempts_m0.json").
		onFixture("GET", mrURL+"/jobs/"+job1+"/tasks/task_1763719000000_0001_m_000001/attempts", "mr/attempts_m1.json").
		onFixture("GET", mrURL+"/jobs/"+job1+"/tasks/task_1763719000000_0001_r_000000/attempts", "mr/attempts_r0.json").
		onFixture("GET", mrURL+"/jobs/"+job1+"/counters", "mr/counters.json").
		onFixture("GET", mrURL+"/jobs/"+job1+"/conf", "mr/conf.json")
}

func TestMRReads(t *testing.T) {
	rm := mrFake(t)
	c, _ := testClient(t, nil, rm.URL())
	ctx := context.Background()

	jobs, err := c.MRJobs(ctx, app1)
	if err != nil || len(jobs) != 1 {
		t.Fatalf("MRJobs = %v, %v", jobs, err)
	}
	j := jobs[0]
	if j.ID != job1 || j.State != "RUNNING" || j.MapsTotal != 3 || j.ReducesTotal != 2 || j.MapsRunning != 2 || j.MapProgress != 55 || bool(j.Uberized) {
		t.Errorf("job = %+v", j)
	}
	if jj, err := c.MRJob(ctx, app1, job1); err != nil || jj.ID != job1 {
		t.Errorf("MRJob = %+v, %v", jj, err)
	}

	tasks, err := c.MRTasks(ctx, app1, job1, "")
	if err != nil || len(tasks) != 5 {
		t.Fatalf("MRTasks = %v, %v", tasks, err)
	}
	if tk := tasks[3]; tk.Type != TaskTypeReduce || tk.State != "RUNNING" || tk.Progress != 8.3 {
		t.Errorf("task = %+v", tk)
	}

	m0, err := c.MRTaskAttempts(ctx, app1, job1, "task_1763719000000_0001_m_000000")
	if err != nil || len(m0) != 1 {
		t.Fatalf("attempts m0 = %v, %v", m0, err) // a bare object, not an array
	}
	if a := m0[0]; a.State != "SUCCEEDED" || a.Phase() != PhaseMap || a.AssignedContainerID != "container_e01_1763719000000_0001_01_000003" ||
		a.NodeHTTPAddress != "dn2.example.com:8042" || a.FinishTime-a.StartTime != 18000 {
		t.Errorf("m0 attempt = %+v phase %s", a, a.Phase())
	}
	m1, err := c.MRTaskAttempts(ctx, app1, job1, "task_1763719000000_0001_m_000001")
	if err != nil || len(m1) != 1 || m1[0].Phase() != PhaseSort || m1[0].Progress != 66.7 || m1[0].Rack != "/rack1" {
		t.Fatalf("attempts m1 = %+v, %v", m1, err)
	}
	r0, err := c.MRTaskAttempts(ctx, app1, job1, "task_1763719000000_0001_r_000000")
	if err != nil || len(r0) != 1 {
		t.Fatalf("attempts r0 = %v, %v", r0, err)
	}
	if a := r0[0]; !a.IsReduce() || a.Phase() != PhaseShuffle || a.ShuffleFinishTime != 0 || a.ElapsedTime != 38000 {
		t.Errorf("r0 attempt = %+v", a)
	}
	if f, tot, ok := r0[0].CopyProgress(); !ok || f != 1 || tot != 3 {
		t.Errorf("CopyProgress = %d %d %v", f, tot, ok)
	}

	ctrs, err := c.MRJobCounters(ctx, app1, job1)
	if err != nil {
		t.Fatal(err)
	}
	if v, ok := ctrs.Get("org.apache.hadoop.mapreduce.TaskCounter", "MAP_OUTPUT_BYTES"); !ok || v.TotalCounterValue != 95000000 || v.MapCounterValue != 95000000 {
		t.Errorf("MAP_OUTPUT_BYTES = %+v %v", v, ok)
	}
	if v, ok := ctrs.Get("org.apache.hadoop.mapreduce.lib.input.FileInputFormatCounter", "BYTES_READ"); !ok || v.TotalCounterValue != 134217728 {
		t.Errorf("BYTES_READ (one-element group) = %+v %v", v, ok)
	}
	if _, ok := ctrs.Get("org.apache.hadoop.mapreduce.TaskCounter", "NOPE"); ok {
		t.Error("found a missing counter")
	}

	conf, err := c.MRJobConf(ctx, app1, job1)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"hdfs://nn.example.com:8020/user/alice/in", "hdfs://nn.example.com:8020/user/alice/odd,name"}
	if got := conf.InputPaths(); !reflect.DeepEqual(got, want) {
		t.Errorf("InputPaths = %q, want %q", got, want)
	}
	if v, ok := conf.Get("mapreduce.job.reduces"); !ok || v != "2" {
		t.Errorf("reduces = %q %v", v, ok)
	}
	for _, p := range conf.Properties {
		if p.Name == "mapreduce.output.fileoutputformat.outputdir" && !reflect.DeepEqual([]string(p.Source), []string{"job.xml"}) {
			t.Errorf("string source = %v", p.Source)
		}
	}
}

func TestMRTasksTypeFilter(t *testing.T) {
	rm := mrFake(t)
	c, _ := testClient(t, nil, rm.URL())
	if _, err := c.MRTasks(context.Background(), app1, job1, "r"); err != nil {
		t.Fatal(err)
	}
	if q := rm.requests()[0].Query["type"]; len(q) != 1 || q[0] != "r" {
		t.Errorf("type = %v", q)
	}
}

func TestMRUnavailable(t *testing.T) {
	tests := []struct {
		name string
		rep  reply
	}{
		{"AM not started: HTML page", reply{status: 200, body: []byte("<html><body>The application master has not yet started</body></html>"),
			header: map[string]string{"Content-Type": "text/html; charset=utf-8"}}},
		{"finished: redirect to history", reply{status: 302, header: map[string]string{"Location": "http://jhs.example.com:19888/jobhistory/job/" + job1}}},
		{"finished: 307 redirect", reply{status: 307, header: map[string]string{"Location": "http://jhs.example.com:19888/jobhistory/job/" + job1}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rm := newFakeRM(t).on("GET", mrURL+"/jobs", tt.rep)
			other := newFakeRM(t)
			c, rec := testClient(t, nil, rm.URL(), other.URL())
			_, err := c.MRJobs(context.Background(), app1)
			if !errors.Is(err, ErrAMUnavailable) {
				t.Fatalf("err = %v, want ErrAMUnavailable", err)
			}
			if len(rec.got()) != 0 || len(other.requests()) != 0 || c.ActiveRM() != rm.URL() {
				t.Errorf("an AM redirect triggered an RM failover")
			}
		})
	}
}

func TestMRStandbyRMStillFailsOver(t *testing.T) {
	active := mrFake(t)
	standby := newFakeRM(t).on("GET", mrURL+"/jobs", reply{status: 200, body: fixture(t, "rm/standby_refresh.txt")})
	c, _ := testClient(t, nil, standby.URL(), active.URL())
	if _, err := c.MRJobs(context.Background(), app1); err != nil {
		t.Fatal(err)
	}
}

func TestMRNotFound(t *testing.T) {
	rm := newFakeRM(t).on("GET", mrURL+"/jobs/"+job1, jsonReply(404, []byte(`{"RemoteException":{"exception":"NotFoundException","message":"java.lang.Exception: job, job_1763719000000_0001, is not found","javaClassName":"org.apache.hadoop.yarn.webapp.NotFoundException"}}`)))
	c, _ := testClient(t, nil, rm.URL())
	if _, err := c.MRJob(context.Background(), app1, job1); !IsNotFound(err) {
		t.Fatalf("err = %v", err)
	}
}

func TestAttemptPhase(t *testing.T) {
	tests := []struct {
		name string
		a    MRTaskAttempt
		want string
	}{
		{"map running", MRTaskAttempt{Type: "MAP", Status: "map > map"}, PhaseMap},
		{"map sorting", MRTaskAttempt{Type: "MAP", Status: "map > sort"}, PhaseSort},
		{"map done shows split", MRTaskAttempt{Type: "MAP", Status: "hdfs://nn/in:0+128"}, PhaseMap},
		{"map no status", MRTaskAttempt{Type: "MAP"}, PhaseMap},
		{"reduce copy", MRTaskAttempt{Type: "REDUCE", Status: "reduce > copy (2 of 9 at 1.00 MB/s) >"}, PhaseShuffle},
		{"reduce sort is merge", MRTaskAttempt{Type: "REDUCE", Status: "reduce > sort"}, PhaseMerge},
		{"reduce reduce", MRTaskAttempt{Type: "REDUCE", Status: "reduce > reduce"}, PhaseReduce},
		{"reduce by times: shuffle", MRTaskAttempt{Type: "REDUCE"}, PhaseShuffle},
		{"reduce by times: merge", MRTaskAttempt{Type: "REDUCE", ShuffleFinishTime: 5}, PhaseMerge},
		{"reduce by times: reduce", MRTaskAttempt{Type: "REDUCE", ShuffleFinishTime: 5, MergeFinishTime: 6}, PhaseReduce},
		{"explicit phase field", MRTaskAttempt{Type: "REDUCE", RawPhase: "SHUFFLE", Status: "reduce > reduce"}, PhaseShuffle},
		{"explicit phase field merge", MRTaskAttempt{Type: "REDUCE", RawPhase: "MERGE"}, PhaseMerge},
		{"starting phase ignored", MRTaskAttempt{Type: "MAP", RawPhase: "STARTING", Status: "map > sort"}, PhaseSort},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.a.Phase(); got != tt.want {
				t.Errorf("Phase() = %s, want %s", got, tt.want)
			}
		})
	}
}

func TestCopyProgress(t *testing.T) {
	tests := []struct {
		status   string
		f, total int
		ok       bool
	}{
		{"reduce > copy (3 of 8 at 1.2 MB/s) >", 3, 8, true},
		{"reduce > sort", 0, 0, false},
		{"", 0, 0, false},
		{"reduce > copy (99999999999999999999 of 2 at 0 MB/s)", 0, 0, false},
	}
	for _, tt := range tests {
		f, tot, ok := MRTaskAttempt{Status: tt.status}.CopyProgress()
		if f != tt.f || tot != tt.total || ok != tt.ok {
			t.Errorf("%q: %d %d %v", tt.status, f, tot, ok)
		}
	}
}

func TestSplitInputDirs(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"/a", []string{"/a"}},
		{"/a,/b", []string{"/a", "/b"}},
		{" /a , ,/b ", []string{"/a", "/b"}},
		{`/x\,y,/z`, []string{"/x,y", "/z"}},
		{`/trailing\`, []string{`/trailing\`}},
		{`/glob/{a\,b}/*`, []string{"/glob/{a,b}/*"}},
	}
	for _, tt := range tests {
		if got := SplitInputDirs(tt.in); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("SplitInputDirs(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	old := &JobConf{Properties: list[ConfProperty]{{Name: "mapred.input.dir", Value: "/old"}}}
	if got := old.InputPaths(); !reflect.DeepEqual(got, []string{"/old"}) {
		t.Errorf("old key: %v", got)
	}
}

func TestJobIDForApp(t *testing.T) {
	tests := []struct {
		in, want string
		err      bool
	}{
		{app1, job1, false},
		{"application_1_2", "job_1_2", false},
		{"job_1_2", "", true},
		{"application_", "", true},
	}
	for _, tt := range tests {
		got, err := JobIDForApp(tt.in)
		if got != tt.want || (err != nil) != tt.err {
			t.Errorf("JobIDForApp(%q) = %q, %v", tt.in, got, err)
		}
	}
}
