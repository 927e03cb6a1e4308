package yarnclient

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rmsidecar/rmsidecar/events"
)

func snap(ts int64, nodes []Node, apps ...*AppSnapshot) *Snapshot {
	s := &Snapshot{TS: ts, Nodes: map[string]Node{}, Apps: map[string]*AppSnapshot{}}
	for _, n := range nodes {
		s.Nodes[n.ID] = n
	}
	for _, a := range apps {
		s.Apps[a.App.ID] = a
	}
	return s
}

func tnode(id, state string, usedV, usedMB int64) Node {
	return Node{ID: id, Rack: "/r1", State: state, NodeHostName: strings.Split(id, ":")[0], NodeHTTPAddress: strings.Split(id, ":")[0] + ":8042",
		UsedVirtualCores: usedV, UsedMemoryMB: usedMB, AvailableVirtualCores: 4 - usedV, AvailMemoryMB: 4096 - usedMB}
}

func tapp(id, typ, state, final string, tasks ...*TaskSnapshot) *AppSnapshot {
	a := &AppSnapshot{App: App{ID: id, Name: "j", Queue: "q", User: "u", ApplicationType: typ, State: state, FinalStatus: final},
		JobType: strings.ToLower(typ), Containers: map[string]Container{}, Tasks: map[string]*TaskSnapshot{}}
	if typ == "MAPREDUCE" {
		a.Job = &MRJob{ID: "job_1_0001", MapsTotal: 1, ReducesTotal: 1}
	}
	for _, t := range tasks {
		a.Tasks[t.Task.ID] = t
	}
	return a
}

func ttask(id, typ, state string, atts ...MRTaskAttempt) *TaskSnapshot {
	t := &TaskSnapshot{Task: MRTask{ID: id, Type: typ, State: state}, Attempts: map[string]MRTaskAttempt{}}
	for _, a := range atts {
		t.Attempts[a.ID] = a
	}
	return t
}

func TestDiff(t *testing.T) {
	const (
		n1 = "h1:45454"
		n2 = "h2:45454"
	)
	red := func(state string, prog float64, start, shuffle, merge, finish int64) MRTaskAttempt {
		return MRTaskAttempt{ID: "attempt_1_0001_r_000004_0", Type: "REDUCE", State: state, Progress: prog, AssignedContainerID: "container_1_0001_01_000009",
			NodeHTTPAddress: "h2:8042", StartTime: start, ShuffleFinishTime: shuffle, MergeFinishTime: merge, FinishTime: finish}
	}
	mapAtt := func(n int, state string, prog float64) MRTaskAttempt {
		return MRTaskAttempt{ID: "attempt_1_0001_m_000000_" + string(rune('0'+n)), Type: "MAP", State: state, Progress: prog,
			AssignedContainerID: "container_1_0001_01_00000" + string(rune('2'+n)), NodeHTTPAddress: "h1:8042", StartTime: 10, FinishTime: 0}
	}
	tests := []struct {
		name      string
		prev, cur *Snapshot
		want      []string
	}{
		{"nothing changes", snap(1, []Node{tnode(n1, NodeRunning, 1, 512)}), snap(2, []Node{tnode(n1, NodeRunning, 1, 512)}), nil},
		{"unhealthy is lost, healthy again registers",
			snap(1, []Node{tnode(n1, NodeRunning, 1, 512), tnode(n2, NodeUnhealthy, 0, 0)}),
			snap(2, []Node{func() Node { n := tnode(n1, NodeUnhealthy, 0, 0); n.HealthReport = "disk full"; return n }(), tnode(n2, NodeRunning, 0, 0)}),
			[]string{"node.lost h1:45454 UNHEALTHY: disk full", "node.registered h2:45454", "node.heartbeat h2:45454"}},
		{"node dropped from the list", snap(1, []Node{tnode(n1, NodeRunning, 0, 0)}), snap(2, nil),
			[]string{"node.lost h1:45454 no longer listed by the resourcemanager"}},
		{"small cpu jitter is no heartbeat",
			snap(1, []Node{func() Node {
				n := tnode(n1, NodeRunning, 1, 512)
				n.ResourceUtilization = &NodeUtilization{NodeCPUUsage: 1.0}
				return n
			}()}),
			snap(2, []Node{func() Node {
				n := tnode(n1, NodeRunning, 1, 512)
				n.ResourceUtilization = &NodeUtilization{NodeCPUUsage: 1.02}
				return n
			}()}),
			nil},
		{"non-MR app announced at once and fails",
			snap(1, nil), snap(2, nil, tapp("application_1_0002", "SPARK", AppFailed, "FAILED")),
			[]string{"app.submitted application_1_0002 spark 0/0", "app.finished application_1_0002 FAILED"}},
		{"killed app",
			snap(1, nil, func() *AppSnapshot {
				a := tapp("application_1_0003", "YARN", AppRunning, "UNDEFINED")
				a.Announced = true
				return a
			}()),
			snap(2, nil, tapp("application_1_0003", "YARN", AppKilled, "KILLED")),
			[]string{"app.finished application_1_0003 KILLED"}},
		{"finished but failed final status",
			snap(1, nil, func() *AppSnapshot {
				a := tapp("application_1_0004", "YARN", AppRunning, "UNDEFINED")
				a.Announced = true
				return a
			}()),
			snap(2, nil, tapp("application_1_0004", "YARN", AppFinished, "FAILED")),
			[]string{"app.finished application_1_0004 FAILED"}},
		{"MR app waits for its AM",
			snap(1, nil), snap(2, nil, func() *AppSnapshot {
				a := tapp("application_1_0005", "MAPREDUCE", AppAccepted, "UNDEFINED")
				a.Job = nil
				return a
			}()),
			nil},
		{"reduce finishes with phase durations",
			snap(1, []Node{tnode(n2, NodeRunning, 1, 1024)}, func() *AppSnapshot {
				a := tapp("application_1_0001", "MAPREDUCE", AppRunning, "UNDEFINED", ttask("task_1_0001_r_000004", "REDUCE", "RUNNING", red("RUNNING", 70, 100, 400, 500, 0)))
				a.Announced = true
				return a
			}()),
			snap(2, []Node{tnode(n2, NodeRunning, 1, 1024)}, tapp("application_1_0001", "MAPREDUCE", AppRunning, "UNDEFINED",
				ttask("task_1_0001_r_000004", "REDUCE", "SUCCEEDED", red("SUCCEEDED", 100, 100, 400, 500, 900)))),
			[]string{"task.finished attempt_1_0001_r_000004_0 SUCCEEDED shuffle=300 merge=100 reduce=400"}},
		{"first sight of a running reduce; node found by http address",
			snap(1, []Node{tnode(n2, NodeRunning, 1, 1024)}),
			snap(2, []Node{tnode(n2, NodeRunning, 1, 1024)}, tapp("application_1_0001", "MAPREDUCE", AppRunning, "UNDEFINED",
				ttask("task_1_0001_r_000004", "REDUCE", "RUNNING", red("RUNNING", 40, 100, 0, 0, 0)))),
			[]string{"app.submitted application_1_0001 mapreduce 1/1", "task.pending task_1_0001_r_000004 reduce 4",
				"container.allocated attempt_1_0001_r_000004_0 h2:45454 false", "task.progress attempt_1_0001_r_000004_0 0.40 shuffle"}},
		{"retry after a failure is not speculative",
			snap(1, nil, func() *AppSnapshot {
				a := tapp("application_1_0001", "MAPREDUCE", AppRunning, "UNDEFINED", ttask("task_1_0001_m_000000", "MAP", "RUNNING", mapAtt(0, "RUNNING", 50)))
				a.Announced = true
				return a
			}()),
			snap(2, nil, tapp("application_1_0001", "MAPREDUCE", AppRunning, "UNDEFINED", ttask("task_1_0001_m_000000", "MAP", "RUNNING",
				mapAtt(0, "FAILED", 50), mapAtt(1, "RUNNING", 5)))),
			[]string{"task.finished attempt_1_0001_m_000000_0 FAILED", "container.allocated attempt_1_0001_m_000000_1 h1 false",
				"task.progress attempt_1_0001_m_000000_1 0.05 map"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, e := range Diff(tt.prev, tt.cur) {
				e.ID = "x"
				if _, err := events.Encode(&e); err != nil {
					t.Errorf("invalid event %+v: %v", e, err)
				}
				got = append(got, brief(e))
			}
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("got:\n  %s\nwant:\n  %s", strings.Join(got, "\n  "), strings.Join(tt.want, "\n  "))
			}
		})
	}
}

func brief(e events.Event) string {
	switch e.Type {
	case events.NodeLost:
		return string(e.Type) + " " + e.Node + " " + e.Reason
	case events.NodeRegistered, events.NodeHeartbeat:
		return string(e.Type) + " " + e.Node
	case events.AppSubmitted:
		return string(e.Type) + " " + e.App + " " + e.JobType + " " + itoa(e.Maps) + "/" + itoa(e.Reduces)
	case events.AppFinished:
		return string(e.Type) + " " + e.App + " " + e.State
	case events.TaskPending:
		s := string(e.Type) + " " + e.Task + " " + string(e.Kind)
		if e.Partition != nil {
			s += " " + itoa(*e.Partition)
		}
		return s
	case events.ContainerAllocated:
		return string(e.Type) + " " + e.Attempt + " " + e.Node + " " + map[bool]string{true: "true", false: "false"}[e.Speculative]
	case events.TaskProgress:
		return string(e.Type) + " " + e.Attempt + " " + ftoa(e.Progress) + " " + e.Phase
	case events.TaskFinished:
		s := string(e.Type) + " " + e.Attempt + " " + e.State
		if p := e.PhaseMS; p != nil && (p.Shuffle > 0 || p.Reduce > 0) {
			s += " shuffle=" + itoa(int(p.Shuffle)) + " merge=" + itoa(int(p.Merge)) + " reduce=" + itoa(int(p.Reduce))
		}
		return s
	}
	return string(e.Type)
}

func itoa(n int) string     { return strconv.Itoa(n) }
func ftoa(f float64) string { return strconv.FormatFloat(f, 'f', 2, 64) }

func TestBridgeVanishedAppReportedKilled(t *testing.T) {
	rm := bridgeRM(t)
	pub := &recorder{}
	now := time.UnixMilli(1763719120000)
	b := newTestBridge(t, rm, pub, &now)
	ctx := context.Background()
	if _, err := b.Poll(ctx); err != nil {
		t.Fatal(err)
	}
	rm.onFunc("GET", "/ws/v1/cluster/apps", func(*http.Request) reply { return jsonReply(200, fixture(t, "rm/apps_empty.json")) })
	rm.on("GET", "/ws/v1/cluster/apps/"+app1, jsonReply(404, fixture(t, "rm/not_found.json")))
	before := pub.count()
	if _, err := b.Poll(ctx); err != nil {
		t.Fatal(err)
	}
	evs := pub.decoded(t, before)
	if len(evs) != 1 || evs[0].Type != events.AppFinished || evs[0].State != events.StateKilled {
		t.Fatalf("events = %+v", evs)
	}
}

func TestJobTypeOf(t *testing.T) {
	conf := &JobConf{Properties: list[ConfProperty]{{Name: JobTypeKey, Value: " terasort "}}}
	tests := []struct {
		app  App
		conf *JobConf
		want string
	}{
		{App{ApplicationType: "MAPREDUCE"}, conf, "terasort"},
		{App{ApplicationType: "MAPREDUCE", ApplicationTags: "nightly,jobtype:sort"}, nil, "sort"},
		{App{ApplicationType: "MAPREDUCE"}, &JobConf{}, "mapreduce"},
		{App{}, nil, "unknown"},
	}
	for _, tt := range tests {
		if got := jobTypeOf(tt.app, tt.conf); got != tt.want {
			t.Errorf("jobTypeOf(%+v) = %q, want %q", tt.app, got, tt.want)
		}
	}
}

func TestBridgeReportsLoserKilledAfterTaskSucceeded(t *testing.T) {
	rm := bridgeRM(t)
	pub := &recorder{}
	now := time.UnixMilli(1763719120000)
	b := newTestBridge(t, rm, pub, &now)
	ctx := context.Background()
	tasks := func(state string) []byte {
		return []byte(`{"tasks":{"task":[{"id":"task_1763719000000_0001_m_000002","type":"MAP","state":"` + state + `","progress":100.0,"startTime":1763719062500,"finishTime":0,"elapsedTime":1,"successfulAttempt":"attempt_1763719000000_0001_m_000002_0"}]}}`)
	}
	att := func(loser string) []byte {
		return []byte(`{"taskAttempts":{"taskAttempt":[
 {"id":"attempt_1763719000000_0001_m_000002_0","type":"MAP","state":"SUCCEEDED","progress":100.0,"startTime":1763719062500,"finishTime":1763719125000,"assignedContainerId":"container_e01_1763719000000_0001_01_000005","nodeHttpAddress":"dn1.example.com:8042"},
 {"id":"attempt_1763719000000_0001_m_000002_1","type":"MAP","state":"` + loser + `","progress":30.0,"startTime":1763719120000,"finishTime":0,"assignedContainerId":"container_e01_1763719000000_0001_01_000006","nodeHttpAddress":"dn2.example.com:8042"}]}}`)
	}
	rm.on("GET", mrURL+"/jobs/"+job1+"/tasks", jsonReply(200, tasks("SUCCEEDED")))
	rm.on("GET", attemptsPath("m", 2), jsonReply(200, att("RUNNING")))
	if _, err := b.Poll(ctx); err != nil {
		t.Fatal(err)
	}
	rm.on("GET", attemptsPath("m", 2), jsonReply(200, att("KILLED")))
	before := pub.count()
	if _, err := b.Poll(ctx); err != nil {
		t.Fatal(err)
	}
	evs := pub.decoded(t, before)
	var found bool
	for _, e := range evs {
		if e.Type == events.TaskFinished && e.Attempt == "attempt_1763719000000_0001_m_000002_1" && e.State == events.StateKilled {
			found = true
		}
	}
	if !found {
		t.Fatalf("loser's kill not reported: %+v", evs)
	}
	// Now every attempt is final: the task's attempts are not read again.
	calls := rm.count("GET", attemptsPath("m", 2))
	if _, err := b.Poll(ctx); err != nil {
		t.Fatal(err)
	}
	if rm.count("GET", attemptsPath("m", 2)) != calls {
		t.Error("attempts of a fully finished task were read again")
	}
}
