package yarnclient

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/rmsidecar/rmsidecar/actuate"
	"github.com/rmsidecar/rmsidecar/policy"
)

var _ actuate.RMWriter = (*HintWriter)(nil)

const container1 = "container_e01_1763719000000_0001_01_000003"

// wantCall is one request the fake RM must see: method, path and, when set, the
// JSON body (compared structurally).
type wantCall struct {
	method, path, body string
}

func TestHintWriterMapsHintsToRMWrites(t *testing.T) {
	labelsPath := "/ws/v1/cluster/get-node-labels"
	replacePath := "/ws/v1/cluster/replace-node-to-labels"
	noLabels := jsonReply(200, []byte(`{"nodeLabelInfo":null}`))
	allLabels := jsonReply(200, []byte(`{"nodeLabelInfo":[{"name":"map-slow","exclusivity":false},`+
		`{"name":"reduce-slow","exclusivity":false},{"name":"map-reduce-slow","exclusivity":false}]}`))
	tests := []struct {
		name   string
		routes func(rm *fakeRM)
		hints  []policy.Hint
		want   []wantCall
	}{
		{"node capacity sets both dimensions",
			func(rm *fakeRM) {
				rm.on("POST", "/ws/v1/cluster/nodes/"+node1+"/resource", jsonReply(200, []byte(`{"memory":2048,"vCores":2}`)))
			},
			[]policy.Hint{{Kind: policy.KindNodeCapacity, Node: node1, VCores: 2, MemoryMB: 2048}},
			[]wantCall{{"POST", "/ws/v1/cluster/nodes/" + node1 + "/resource", `{"resource":{"memory":2048,"vCores":2},"overCommitTimeout":-1}`}}},
		{"node capacity with vcores only keeps the node's memory",
			func(rm *fakeRM) {
				rm.onFixture("GET", "/ws/v1/cluster/nodes/"+node1, "rm/node.json")
				rm.on("POST", "/ws/v1/cluster/nodes/"+node1+"/resource", jsonReply(200, []byte(`{"memory":8192,"vCores":3}`)))
			},
			[]policy.Hint{{Kind: policy.KindNodeCapacity, Node: node1, VCores: 3}},
			[]wantCall{
				{"GET", "/ws/v1/cluster/nodes/" + node1, ""},
				{"POST", "/ws/v1/cluster/nodes/" + node1 + "/resource", `{"resource":{"memory":8192,"vCores":3},"overCommitTimeout":-1}`},
			}},
		{"node class adds the missing labels once, then labels the node",
			func(rm *fakeRM) {
				rm.on("GET", labelsPath, noLabels)
				rm.on("POST", "/ws/v1/cluster/add-node-labels", reply{status: 200})
				rm.on("POST", replacePath, reply{status: 200})
			},
			[]policy.Hint{
				{Kind: policy.KindNodeClass, Node: node1, MapSlow: true},
				{Kind: policy.KindNodeClass, Node: "dn2.example.com:45454", ReduceSlow: true},
			},
			[]wantCall{
				{"GET", labelsPath, ""},
				{"POST", "/ws/v1/cluster/add-node-labels", `{"nodeLabelInfo":[{"name":"map-slow","exclusivity":false},` +
					`{"name":"reduce-slow","exclusivity":false},{"name":"map-reduce-slow","exclusivity":false}]}`},
				{"POST", replacePath, `{"nodeToLabels":[{"nodeId":"` + node1 + `","labels":["map-slow"]}]}`},
				{"POST", replacePath, `{"nodeToLabels":[{"nodeId":"dn2.example.com:45454","labels":["reduce-slow"]}]}`},
			}},
		{"node class slow for both phases gets one label (YARN allows one per node)",
			func(rm *fakeRM) {
				rm.on("GET", labelsPath, allLabels)
				rm.on("POST", replacePath, reply{status: 200})
			},
			[]policy.Hint{{Kind: policy.KindNodeClass, Node: node1, MapSlow: true, ReduceSlow: true}},
			[]wantCall{
				{"GET", labelsPath, ""},
				{"POST", replacePath, `{"nodeToLabels":[{"nodeId":"` + node1 + `","labels":["map-reduce-slow"]}]}`},
			}},
		{"node class: labels as Hadoop 3.4 reports them (exclusivity as a string) are known",
			func(rm *fakeRM) {
				rm.on("GET", labelsPath, jsonReply(200, []byte(`{"nodeLabelInfo":[{"name":"reduce-slow","exclusivity":"false"},`+
					`{"name":"map-slow","exclusivity":"false"},{"name":"map-reduce-slow","exclusivity":"false"}]}`)))
				rm.on("POST", replacePath, reply{status: 200})
			},
			[]policy.Hint{{Kind: policy.KindNodeClass, Node: node1, MapSlow: true}},
			[]wantCall{
				{"GET", labelsPath, ""},
				{"POST", replacePath, `{"nodeToLabels":[{"nodeId":"` + node1 + `","labels":["map-slow"]}]}`},
			}},
		{"node class slow for neither clears the label without reading labels",
			func(rm *fakeRM) { rm.on("POST", replacePath, reply{status: 200}) },
			[]policy.Hint{{Kind: policy.KindNodeClass, Node: node1}},
			[]wantCall{{"POST", replacePath, `{"nodeToLabels":[{"nodeId":"` + node1 + `","labels":[]}]}`}}},
		{"node class: a label added by someone else in between is fine",
			func(rm *fakeRM) {
				rm.on("GET", labelsPath, noLabels, allLabels)
				rm.on("POST", "/ws/v1/cluster/add-node-labels", jsonReply(400, fixture(t, "rm/bad_request.json")))
				rm.on("POST", replacePath, reply{status: 200})
			},
			[]policy.Hint{{Kind: policy.KindNodeClass, Node: node1, ReduceSlow: true}},
			[]wantCall{
				{"GET", labelsPath, ""},
				{"POST", "/ws/v1/cluster/add-node-labels", ""},
				{"GET", labelsPath, ""},
				{"POST", replacePath, `{"nodeToLabels":[{"nodeId":"` + node1 + `","labels":["reduce-slow"]}]}`},
			}},
		{"kill signals the container gracefully",
			func(rm *fakeRM) {
				rm.on("POST", "/ws/v1/cluster/containers/"+container1+"/signal/GRACEFUL_SHUTDOWN", reply{status: 200})
			},
			[]policy.Hint{{Kind: policy.KindKill, App: app1, Attempt: "attempt_1763719000000_0001_m_000000_0", Container: container1}},
			[]wantCall{{"POST", "/ws/v1/cluster/containers/" + container1 + "/signal/GRACEFUL_SHUTDOWN", ""}}},
		{"kill without a container id writes nothing",
			func(*fakeRM) {},
			[]policy.Hint{{Kind: policy.KindKill, App: app1, Attempt: "attempt_1763719000000_0001_m_000000_0"}},
			nil},
		{"priority sets the app priority",
			func(rm *fakeRM) {
				rm.on("PUT", "/ws/v1/cluster/apps/"+app1+"/priority", jsonReply(200, []byte(`{"priority":7}`)))
			},
			[]policy.Hint{{Kind: policy.KindPriority, App: app1, Priority: 7}},
			[]wantCall{{"PUT", "/ws/v1/cluster/apps/" + app1 + "/priority", `{"priority":7}`}}},
		{"AM-side hints write nothing to the RM",
			func(*fakeRM) {},
			[]policy.Hint{
				{Kind: policy.KindSpeculate, App: app1, Task: "task_1763719000000_0001_m_000000"},
				{Kind: policy.KindDenySpeculation, App: app1, Task: "task_1763719000000_0001_m_000000"},
				{Kind: policy.KindPlace, App: app1, Task: "task_1763719000000_0001_m_000000", Nodes: []policy.NodeScore{{Node: node1, Score: 1}}},
				{Kind: policy.KindRatio, App: app1},
				{Kind: policy.KindReduceBinding, App: app1, Partition: 1, Reducers: 2},
			},
			nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rm := newFakeRM(t)
			tt.routes(rm)
			c, _ := testClient(t, nil, rm.URL())
			act := actuate.RM{W: NewHintWriter(c)}
			for _, h := range tt.hints {
				if err := act.Deliver(context.Background(), h); err != nil {
					t.Fatalf("Deliver %s: %v", h.Kind, err)
				}
			}
			reqs := rm.requests()
			if len(reqs) != len(tt.want) {
				var got []string
				for _, r := range reqs {
					got = append(got, r.Method+" "+r.Path)
				}
				t.Fatalf("requests = %v, want %d: %v", got, len(tt.want), tt.want)
			}
			for i, w := range tt.want {
				r := reqs[i]
				if r.Method != w.method || r.Path != w.path {
					t.Errorf("request %d = %s %s, want %s %s", i, r.Method, r.Path, w.method, w.path)
				}
				if w.body != "" {
					var gotB, wantB any
					if err := json.Unmarshal([]byte(r.Body), &gotB); err != nil {
						t.Fatalf("request %d body %q: %v", i, r.Body, err)
					}
					if err := json.Unmarshal([]byte(w.body), &wantB); err != nil {
						t.Fatalf("want body %q: %v", w.body, err)
					}
					if !reflect.DeepEqual(gotB, wantB) {
						t.Errorf("request %d body = %s\nwant %s", i, r.Body, w.body)
					}
				}
			}
		})
	}
}

func TestHintWriterOverCommitTimeout(t *testing.T) {
	rm := newFakeRM(t).on("POST", "/ws/v1/cluster/nodes/"+node1+"/resource", jsonReply(200, []byte(`{"memory":1024,"vCores":1}`)))
	c, _ := testClient(t, nil, rm.URL())
	w := NewHintWriter(c, WithOverCommitTimeout(30))
	if err := w.SetNodeResource(context.Background(), node1, 1, 1024); err != nil {
		t.Fatal(err)
	}
	if got := rm.requests()[0].Body; !strings.Contains(got, `"overCommitTimeout":30`) {
		t.Errorf("body = %s, want overCommitTimeout 30", got)
	}
}

func TestHintWriterErrors(t *testing.T) {
	tests := []struct {
		name    string
		routes  func(rm *fakeRM)
		hint    policy.Hint
		wantErr string
	}{
		{"no capacity at all", func(*fakeRM) {}, policy.Hint{ID: "h1", Kind: policy.KindNodeCapacity, Node: node1}, "not both 0"},
		{"RM refuses the priority",
			func(rm *fakeRM) {
				rm.on("PUT", "/ws/v1/cluster/apps/"+app1+"/priority", jsonReply(400, fixture(t, "rm/bad_request.json")))
			},
			policy.Hint{ID: "h2", Kind: policy.KindPriority, App: app1, Priority: 3}, "rm priority hint h2: yarnclient: priority of " + app1},
		{"labels cannot be added",
			func(rm *fakeRM) {
				rm.on("GET", "/ws/v1/cluster/get-node-labels", jsonReply(200, []byte(`{"nodeLabelInfo":null}`)))
				rm.on("POST", "/ws/v1/cluster/add-node-labels", jsonReply(400, fixture(t, "rm/bad_request.json")))
			},
			policy.Hint{ID: "h3", Kind: policy.KindNodeClass, Node: node1, MapSlow: true}, "add node labels"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rm := newFakeRM(t)
			tt.routes(rm)
			c, _ := testClient(t, nil, rm.URL())
			err := actuate.RM{W: NewHintWriter(c)}.Deliver(context.Background(), tt.hint)
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("err = %v, want it to contain %q", err, tt.wantErr)
			}
			var he *HTTPError
			if strings.Contains(tt.name, "RM refuses") && !errors.As(err, &he) {
				t.Errorf("err %v does not wrap *HTTPError", err)
			}
			if n := rm.count(http.MethodPost, "/ws/v1/cluster/replace-node-to-labels"); n != 0 {
				t.Errorf("labelled a node after a failure (%d calls)", n)
			}
		})
	}
}

func TestNodeClassLabels(t *testing.T) {
	tests := []struct {
		mapSlow, reduceSlow bool
		want                []string
	}{
		{false, false, []string{}},
		{true, false, []string{LabelMapSlow}},
		{false, true, []string{LabelReduceSlow}},
		{true, true, []string{LabelMapReduceSlow}},
	}
	for _, tt := range tests {
		if got := NodeClassLabels(tt.mapSlow, tt.reduceSlow); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("NodeClassLabels(%v, %v) = %v, want %v", tt.mapSlow, tt.reduceSlow, got, tt.want)
		}
	}
}
