package yarnclient

import (
	"context"
	"encoding/json"
	"math"
	"reflect"
	"strings"
	"testing"
)

const (
	app1  = "application_1763719000000_0001"
	att1  = "appattempt_1763719000000_0001_000001"
	node1 = "dn1.example.com:45454"
)

func TestReads(t *testing.T) {
	rm := newFakeRM(t).
		onFixture("GET", "/ws/v1/cluster/info", "rm/info.json").
		onFixture("GET", "/ws/v1/cluster/metrics", "rm/metrics.json").
		onFixture("GET", "/ws/v1/cluster/nodes", "rm/nodes.json").
		onFixture("GET", "/ws/v1/cluster/nodes/"+node1, "rm/node.json").
		onFixture("GET", "/ws/v1/cluster/apps", "rm/apps.json").
		onFixture("GET", "/ws/v1/cluster/apps/"+app1, "rm/app.json").
		onFixture("GET", "/ws/v1/cluster/apps/"+app1+"/appattempts", "rm/appattempts.json").
		onFixture("GET", "/ws/v1/cluster/apps/"+app1+"/appattempts/"+att1+"/containers", "rm/containers.json").
		onFixture("GET", "/ws/v1/cluster/get-node-labels", "rm/node_labels.json").
		on("GET", "/ws/v1/cluster/apps/"+app1+"/state", jsonReply(200, []byte(`{"state":"RUNNING"}`))).
		on("GET", "/ws/v1/cluster/apps/"+app1+"/priority", jsonReply(200, []byte(`{"priority":3}`)))
	c, _ := testClient(t, nil, rm.URL())
	ctx := context.Background()

	tests := []struct {
		name  string
		run   func() (any, error)
		check func(t *testing.T, v any)
	}{
		{"Info", func() (any, error) { return c.Info(ctx) }, func(t *testing.T, v any) {
			i := v.(*ClusterInfo)
			if i.ID != 1763719000000 || i.State != "STARTED" || i.HAState != "ACTIVE" || i.ResourceManagerVersion != "3.4.1" {
				t.Errorf("%+v", i)
			}
		}},
		{"Metrics", func() (any, error) { return c.Metrics(ctx) }, func(t *testing.T, v any) {
			m := v.(*ClusterMetrics)
			if m.AppsRunning != 1 || m.AllocatedMB != 4096 || m.TotalVirtualCores != 24 || m.ContainersAllocated != 4 {
				t.Errorf("%+v", m)
			}
		}},
		{"Nodes", func() (any, error) { return c.Nodes(ctx, NodesFilter{}) }, func(t *testing.T, v any) {
			ns := v.([]Node)
			if len(ns) != 3 {
				t.Fatalf("len = %d", len(ns))
			}
			n := ns[0]
			if n.ID != node1 || n.Rack != "/rack1" || n.State != NodeRunning || n.NodeHostName != "dn1.example.com" ||
				n.NodeHTTPAddress != "dn1.example.com:8042" || n.NumContainers != 2 || n.UsedMemoryMB != 2048 || n.AvailableVirtualCores != 6 {
				t.Errorf("node = %+v", n)
			}
			if !reflect.DeepEqual([]string(n.NodeLabels), []string{"slow"}) {
				t.Errorf("labels = %v", n.NodeLabels)
			}
			if n.Capacity() != (Resource{MemoryMB: 8192, VCores: 8}) || n.ResourceUtilization == nil || n.ResourceUtilization.NodeCPUUsage != 0.25 {
				t.Errorf("capacity = %+v util = %+v", n.Capacity(), n.ResourceUtilization)
			}
			if ns[2].NodeLabels != nil || ns[2].Rack != "/rack2" {
				t.Errorf("node 3 = %+v", ns[2])
			}
		}},
		{"Node", func() (any, error) { return c.Node(ctx, node1) }, func(t *testing.T, v any) {
			if n := v.(*Node); n.ID != node1 || n.TotalResource == nil || n.TotalResource.MemoryMB != 8192 {
				t.Errorf("%+v", n)
			}
		}},
		{"Apps", func() (any, error) { return c.Apps(ctx, AppsFilter{}) }, func(t *testing.T, v any) {
			as := v.([]App)
			if len(as) != 2 {
				t.Fatalf("len = %d", len(as))
			}
			a := as[0]
			if a.ID != app1 || a.State != AppRunning || a.Queue != "default" || a.User != "alice" || a.Progress != 42.5 ||
				!a.IsMapReduce() || a.Finished() || a.RunningContainers != 4 || a.AMHostHTTPAddress != "dn1.example.com:8042" {
				t.Errorf("app = %+v", a)
			}
			if !reflect.DeepEqual(a.Tags(), []string{"nightly", "wordcount"}) {
				t.Errorf("tags = %v", a.Tags())
			}
			if b := as[1]; b.State != AppFinished || b.FinalStatus != "SUCCEEDED" || !b.Finished() || bool(b.UnmanagedApplication) || b.Tags() != nil {
				t.Errorf("app 2 = %+v", b)
			}
		}},
		{"App", func() (any, error) { return c.App(ctx, app1) }, func(t *testing.T, v any) {
			if a := v.(*App); a.ID != app1 || a.Name != "word count" || a.StartedTime != 1763719060000 {
				t.Errorf("%+v", a)
			}
		}},
		{"AppAttempts", func() (any, error) { return c.AppAttempts(ctx, app1) }, func(t *testing.T, v any) {
			as := v.([]AppAttempt)
			if len(as) != 1 || as[0].ID != 1 || as[0].AppAttemptID != att1 || as[0].NodeID != node1 ||
				as[0].ContainerID != "container_e01_1763719000000_0001_01_000001" || as[0].AppAttemptState != "RUNNING" {
				t.Errorf("%+v", as)
			}
		}},
		{"Containers", func() (any, error) { return c.Containers(ctx, app1, att1) }, func(t *testing.T, v any) {
			cs := v.([]Container)
			if len(cs) != 4 {
				t.Fatalf("len = %d", len(cs))
			}
			if c := cs[2]; c.ContainerID != "container_e01_1763719000000_0001_01_000003" || c.Node() != "dn2.example.com:45454" ||
				c.AllocatedMB != 1024 || c.AllocatedVCores != 1 || c.ContainerState != "RUNNING" || c.StartedTime == 0 {
				t.Errorf("%+v", c)
			}
		}},
		{"ClusterNodeLabels", func() (any, error) { return c.ClusterNodeLabels(ctx) }, func(t *testing.T, v any) {
			want := []NodeLabel{{"slow", false}, {"gpu", true}}
			if !reflect.DeepEqual(v, want) {
				t.Errorf("%+v", v)
			}
		}},
		{"AppState", func() (any, error) { return c.AppState(ctx, app1) }, func(t *testing.T, v any) {
			if v != AppRunning {
				t.Errorf("%v", v)
			}
		}},
		{"AppPriority", func() (any, error) { return c.AppPriority(ctx, app1) }, func(t *testing.T, v any) {
			if v != 3 {
				t.Errorf("%v", v)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, err := tt.run()
			if err != nil {
				t.Fatalf("%s: %v", tt.name, err)
			}
			tt.check(t, v)
		})
	}
}

func TestEmptyAndOddLists(t *testing.T) {
	rm := newFakeRM(t).
		onFixture("GET", "/ws/v1/cluster/nodes", "rm/nodes_empty.json").
		onFixture("GET", "/ws/v1/cluster/apps", "rm/apps_empty.json").
		onFixture("GET", "/ws/v1/cluster/apps/"+app1+"/appattempts/"+att1+"/containers", "rm/containers_empty.json").
		on("GET", "/ws/v1/cluster/apps/"+app1+"/appattempts", jsonReply(200, []byte(`{"appAttempts":{"appAttempt":[]}}`)))
	c, _ := testClient(t, nil, rm.URL())
	ctx := context.Background()
	if ns, err := c.Nodes(ctx, NodesFilter{}); err != nil || ns != nil {
		t.Errorf("Nodes = %v, %v", ns, err)
	}
	if as, err := c.Apps(ctx, AppsFilter{}); err != nil || as != nil {
		t.Errorf("Apps = %v, %v", as, err)
	}
	if cs, err := c.Containers(ctx, app1, att1); err != nil || cs != nil {
		t.Errorf("Containers = %v, %v", cs, err)
	}
	if at, err := c.AppAttempts(ctx, app1); err != nil || len(at) != 0 {
		t.Errorf("AppAttempts = %v, %v", at, err)
	}

	rm.onFixture("GET", "/ws/v1/cluster/nodes", "rm/nodes_single.json")
	ns, err := c.Nodes(ctx, NodesFilter{States: []string{NodeLost}})
	if err != nil || len(ns) != 1 || ns[0].State != NodeLost {
		t.Errorf("single-object list: %v, %v", ns, err)
	}
}

func TestListFilters(t *testing.T) {
	rm := newFakeRM(t).
		onFixture("GET", "/ws/v1/cluster/nodes", "rm/nodes.json").
		onFixture("GET", "/ws/v1/cluster/apps", "rm/apps.json")
	c, _ := testClient(t, func(cfg *Config) { cfg.User = "" }, rm.URL())
	ctx := context.Background()
	tests := []struct {
		name string
		run  func() error
		want map[string][]string
	}{
		{"nodes unfiltered", func() error { _, err := c.Nodes(ctx, NodesFilter{}); return err }, map[string][]string{}},
		{"nodes by state", func() error {
			_, err := c.Nodes(ctx, NodesFilter{States: []string{NodeRunning, NodeUnhealthy}})
			return err
		}, map[string][]string{"states": {"RUNNING,UNHEALTHY"}}},
		{"apps unfiltered", func() error { _, err := c.Apps(ctx, AppsFilter{}); return err }, map[string][]string{}},
		{"apps all filters", func() error {
			_, err := c.Apps(ctx, AppsFilter{States: []string{AppRunning, AppAccepted}, FinalStatus: "UNDEFINED", User: "alice", Queue: "default",
				Limit: 50, StartedTimeBegin: 1, StartedTimeEnd: 2, FinishedTimeBegin: 3, FinishedTimeEnd: 4,
				ApplicationTypes: []string{"MAPREDUCE"}, ApplicationTags: []string{"a", "b"}, DeSelects: []string{"resourceRequests", "timeouts"}})
			return err
		}, map[string][]string{"states": {"RUNNING,ACCEPTED"}, "finalStatus": {"UNDEFINED"}, "user": {"alice"}, "queue": {"default"},
			"limit": {"50"}, "startedTimeBegin": {"1"}, "startedTimeEnd": {"2"}, "finishedTimeBegin": {"3"}, "finishedTimeEnd": {"4"},
			"applicationTypes": {"MAPREDUCE"}, "applicationTags": {"a,b"}, "deSelects": {"resourceRequests", "timeouts"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := len(rm.requests())
			if err := tt.run(); err != nil {
				t.Fatal(err)
			}
			got := rm.requests()[before].Query
			if len(got) == 0 && len(tt.want) == 0 {
				return
			}
			if !reflect.DeepEqual(map[string][]string(got), tt.want) {
				t.Errorf("query = %v\nwant    %v", got, tt.want)
			}
		})
	}
}

func TestScheduler(t *testing.T) {
	tests := []struct {
		fixture string
		check   func(t *testing.T, s *SchedulerInfo)
	}{
		{"rm/scheduler_capacity.json", func(t *testing.T, s *SchedulerInfo) {
			if s.Type != SchedulerCapacity || s.Root.QueueName != "root" || len(s.Root.Children) != 2 {
				t.Fatalf("%+v", s)
			}
			var names []string
			for _, q := range s.Leaves() {
				names = append(names, q.QueueName)
			}
			if !reflect.DeepEqual(names, []string{"default", "etl"}) {
				t.Errorf("leaves = %v", names)
			}
			d := s.Find("default")
			if d == nil || d.Capacity != 70 || d.NumActiveApplications != 1 || d.NumContainers != 4 || d.ResourcesUsed == nil || d.ResourcesUsed.MemoryMB != 4096 || d.UsedResources != nil {
				t.Errorf("default = %+v", d)
			}
			if b := s.Find("batch"); b == nil || b.IsLeaf() || b.Children[0].AbsoluteCapacity != 30 {
				t.Errorf("batch = %+v", b)
			}
			if s.Find("nope") != nil {
				t.Error("Find(nope) != nil")
			}
		}},
		{"rm/scheduler_fair.json", func(t *testing.T, s *SchedulerInfo) {
			if s.Type != SchedulerFair || s.Root.QueueName != "root" || len(s.Leaves()) != 2 {
				t.Fatalf("%+v", s)
			}
			d := s.Find("root.default")
			if d == nil || d.NumActiveApps != 1 || d.UsedResources == nil || d.UsedResources.MemoryMB != 4096 || d.FairResources.VCores != 12 || d.SchedulingPolicy != "fair" {
				t.Errorf("root.default = %+v", d)
			}
			if sub := s.Find("root.sample_queue.sample_sub_queue"); sub == nil || sub.MinResources.MemoryMB != 5000 {
				t.Errorf("sub = %+v", sub)
			}
		}},
		{"rm/scheduler_fifo.json", func(t *testing.T, s *SchedulerInfo) {
			if s.Type != SchedulerFifo || s.Root.QueueName != "default" || !s.Root.IsLeaf() || !math.IsNaN(float64(s.Root.UsedCapacity)) || s.Root.Capacity != 1 {
				t.Errorf("%+v", s)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.fixture, func(t *testing.T) {
			rm := newFakeRM(t).onFixture("GET", "/ws/v1/cluster/scheduler", tt.fixture)
			c, _ := testClient(t, nil, rm.URL())
			s, err := c.Scheduler(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			tt.check(t, s)
		})
	}
}

func TestMissingWrapperIsAnError(t *testing.T) {
	rm := newFakeRM(t)
	for _, p := range []string{"/ws/v1/cluster/info", "/ws/v1/cluster/metrics", "/ws/v1/cluster/scheduler", "/ws/v1/cluster/apps/" + app1, "/ws/v1/cluster/nodes/" + node1} {
		rm.on("GET", p, jsonReply(200, []byte(`{}`)))
	}
	c, _ := testClient(t, nil, rm.URL())
	ctx := context.Background()
	calls := map[string]func() error{
		"Info":      func() error { _, err := c.Info(ctx); return err },
		"Metrics":   func() error { _, err := c.Metrics(ctx); return err },
		"Scheduler": func() error { _, err := c.Scheduler(ctx); return err },
		"App":       func() error { _, err := c.App(ctx, app1); return err },
		"Node":      func() error { _, err := c.Node(ctx, node1); return err },
	}
	for name, f := range calls {
		if err := f(); err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("%s: err = %v", name, err)
		}
	}
}

func TestWrites(t *testing.T) {
	type want struct {
		method, path string
		body         string // JSON, compared structurally; "" = no body
		query        map[string][]string
	}
	tests := []struct {
		name   string
		route  reply
		run    func(c *Client) (any, error)
		want   want
		result any
	}{
		{"UpdateNodeResource", jsonReply(200, fixture(t, "rm/node_resource.json")),
			func(c *Client) (any, error) {
				r, err := c.UpdateNodeResource(context.Background(), node1, Resource{MemoryMB: 4096, VCores: 3}, NoOverCommitTimeout)
				if err != nil {
					return nil, err
				}
				return *r, nil
			},
			want{"POST", "/ws/v1/cluster/nodes/" + node1 + "/resource", `{"resource":{"memory":4096,"vCores":3},"overCommitTimeout":-1}`, nil},
			Resource{MemoryMB: 4096, VCores: 3}},
		{"AddNodeLabels", reply{status: 200},
			func(c *Client) (any, error) {
				return nil, c.AddNodeLabels(context.Background(), []NodeLabel{{Name: "slow", Exclusivity: false}, {Name: "mapslow"}})
			},
			want{"POST", "/ws/v1/cluster/add-node-labels", `{"nodeLabelInfo":[{"name":"slow","exclusivity":false},{"name":"mapslow","exclusivity":false}]}`, nil}, nil},
		{"ReplaceNodeToLabels", reply{status: 200},
			func(c *Client) (any, error) {
				return nil, c.ReplaceNodeToLabels(context.Background(), map[string][]string{"dn2.example.com:45454": nil, node1: {"slow"}})
			},
			want{"POST", "/ws/v1/cluster/replace-node-to-labels",
				`{"nodeToLabels":[{"nodeId":"dn1.example.com:45454","labels":["slow"]},{"nodeId":"dn2.example.com:45454","labels":[]}]}`, nil}, nil},
		{"ReplaceNodeLabels", reply{status: 200},
			func(c *Client) (any, error) {
				return nil, c.ReplaceNodeLabels(context.Background(), node1, []string{"slow", "x"})
			},
			want{"POST", "/ws/v1/cluster/nodes/" + node1 + "/replace-labels", "", map[string][]string{"labels": {"slow", "x"}}}, nil},
		{"SetAppPriority", jsonReply(200, []byte(`{"priority":8}`)),
			func(c *Client) (any, error) { return c.SetAppPriority(context.Background(), app1, 8) },
			want{"PUT", "/ws/v1/cluster/apps/" + app1 + "/priority", `{"priority":8}`, nil}, 8},
		{"SignalContainer", reply{status: 200},
			func(c *Client) (any, error) {
				return nil, c.SignalContainer(context.Background(), "container_e01_1763719000000_0001_01_000003", SignalGracefulShutdown)
			},
			want{"POST", "/ws/v1/cluster/containers/container_e01_1763719000000_0001_01_000003/signal/GRACEFUL_SHUTDOWN", "", nil}, nil},
		{"KillApp accepted", jsonReply(202, []byte(`{"state":"ACCEPTED"}`)),
			func(c *Client) (any, error) {
				s, done, err := c.KillApp(context.Background(), app1)
				return [2]any{s, done}, err
			},
			want{"PUT", "/ws/v1/cluster/apps/" + app1 + "/state", `{"state":"KILLED"}`, nil}, [2]any{"ACCEPTED", false}},
		{"KillApp done", jsonReply(200, []byte(`{"state":"KILLED"}`)),
			func(c *Client) (any, error) {
				s, done, err := c.KillApp(context.Background(), app1)
				return [2]any{s, done}, err
			},
			want{"PUT", "/ws/v1/cluster/apps/" + app1 + "/state", `{"state":"KILLED"}`, nil}, [2]any{"KILLED", true}},
		{"MoveApp", jsonReply(200, []byte(`{"queue":"batch"}`)),
			func(c *Client) (any, error) { return c.MoveApp(context.Background(), app1, "batch") },
			want{"PUT", "/ws/v1/cluster/apps/" + app1 + "/queue", `{"queue":"batch"}`, nil}, "batch"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rm := newFakeRM(t).on(tt.want.method, tt.want.path, tt.route)
			c, _ := testClient(t, nil, rm.URL())
			got, err := tt.run(c)
			if err != nil {
				t.Fatalf("%s: %v", tt.name, err)
			}
			if tt.result != nil && !reflect.DeepEqual(got, tt.result) {
				t.Errorf("result = %#v, want %#v", got, tt.result)
			}
			reqs := rm.requests()
			if len(reqs) != 1 {
				t.Fatalf("requests = %d", len(reqs))
			}
			r := reqs[0]
			if r.Method != tt.want.method || r.Path != tt.want.path {
				t.Errorf("request = %s %s", r.Method, r.Path)
			}
			if tt.want.body == "" {
				if r.Body != "" {
					t.Errorf("unexpected body %s", r.Body)
				}
			} else {
				var gotB, wantB any
				if err := json.Unmarshal([]byte(r.Body), &gotB); err != nil {
					t.Fatalf("body %q: %v", r.Body, err)
				}
				_ = json.Unmarshal([]byte(tt.want.body), &wantB)
				if !reflect.DeepEqual(gotB, wantB) {
					t.Errorf("body = %s\nwant   %s", r.Body, tt.want.body)
				}
				if ct := r.Header.Get("Content-Type"); ct != "application/json" {
					t.Errorf("Content-Type = %q", ct)
				}
			}
			for k, v := range tt.want.query {
				if !reflect.DeepEqual(r.Query[k], v) {
					t.Errorf("query %s = %v, want %v", k, r.Query[k], v)
				}
			}
			if q := r.Query["user.name"]; len(q) != 1 || q[0] != "rmsidecar" {
				t.Errorf("write without user.name: %v", r.Query)
			}
		})
	}
}

func TestSignalContainerRejectsUnknownSignal(t *testing.T) {
	c, _ := testClient(t, nil, "http://127.0.0.1:1")
	err := c.SignalContainer(context.Background(), "container_1", SignalCommand("SIGKILL"))
	if err == nil || !strings.Contains(err.Error(), "unknown signal") {
		t.Fatalf("err = %v", err)
	}
}

func TestWriteErrorsCarryRemoteException(t *testing.T) {
	body := []byte(`{"RemoteException":{"exception":"YarnException","message":"org.apache.hadoop.yarn.exceptions.YarnException: Node label=slow already exists","javaClassName":"org.apache.hadoop.yarn.exceptions.YarnException"}}`)
	rm := newFakeRM(t).on("POST", "/ws/v1/cluster/add-node-labels", jsonReply(400, body))
	c, rec := testClient(t, nil, rm.URL())
	err := c.AddNodeLabels(context.Background(), []NodeLabel{{Name: "slow"}})
	if err == nil || !strings.Contains(err.Error(), "already exists") || !strings.Contains(err.Error(), "AddNodeLabels") {
		t.Fatalf("err = %v", err)
	}
	if len(rec.got()) != 0 {
		t.Errorf("4xx write was retried")
	}
}

func TestWriteRetriedOn5xxKeepsBody(t *testing.T) {
	rm := newFakeRM(t).on("POST", "/ws/v1/cluster/nodes/"+node1+"/resource",
		reply{status: 503}, jsonReply(200, fixture(t, "rm/node_resource.json")))
	c, _ := testClient(t, nil, rm.URL())
	if _, err := c.UpdateNodeResource(context.Background(), node1, Resource{MemoryMB: 4096, VCores: 3}, NoOverCommitTimeout); err != nil {
		t.Fatal(err)
	}
	reqs := rm.requests()
	if len(reqs) != 2 || reqs[0].Body != reqs[1].Body || reqs[1].Body == "" {
		t.Errorf("retried body differs: %q vs %q", reqs[0].Body, reqs[1].Body)
	}
}

func TestJSONFlexTypes(t *testing.T) {
	var v struct {
		B1, B2, B3 Bool
		F1, F2, F3 Float
		S1, S2, S3 Strings
		L1, L2, L3 list[int]
	}
	in := `{"B1":true,"B2":"false","B3":"true","F1":1.5,"F2":"NaN","F3":"2.5","S1":"a","S2":["a","b"],"S3":null,"L1":[1,2],"L2":7,"L3":null}`
	if err := json.Unmarshal([]byte(in), &v); err != nil {
		t.Fatal(err)
	}
	if !bool(v.B1) || bool(v.B2) || !bool(v.B3) || v.F1 != 1.5 || !math.IsNaN(float64(v.F2)) || v.F3 != 2.5 ||
		!reflect.DeepEqual(v.S1, Strings{"a"}) || len(v.S2) != 2 || v.S3 != nil ||
		!reflect.DeepEqual(v.L1, list[int]{1, 2}) || !reflect.DeepEqual(v.L2, list[int]{7}) || v.L3 != nil {
		t.Errorf("%+v", v)
	}
	for _, bad := range []string{`{"B1":"maybe"}`, `{"F1":"many"}`, `{"S1":5}`, `{"L1":["x"]}`} {
		if err := json.Unmarshal([]byte(bad), &v); err == nil {
			t.Errorf("%s: want error", bad)
		}
	}
}
