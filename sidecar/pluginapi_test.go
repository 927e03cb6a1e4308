package sidecar

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/IBM/sarama"
	"github.com/IBM/sarama/mocks"

	"github.com/rmsidecar/rmsidecar/actuate"
	"github.com/rmsidecar/rmsidecar/policy"
)

func do(t *testing.T, method, url, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func TestHintChangesAPI(t *testing.T) {
	l, _, stop := startLoop(t, nil)
	defer stop()
	pull := actuate.NewPull(10)
	srv := httptest.NewServer(API{Loop: l, Pull: pull, Metrics: NewMetrics(), OperatorHints: true}.Handler())
	defer srv.Close()
	_ = pull.Deliver(context.Background(), policy.Hint{ID: "s1", Kind: policy.KindSpeculate, App: "application_1_0001",
		Task: "task_1_0001_m_000001", Attempt: "attempt_1_0001_m_000001_0", Node: "nm2:8041"})
	_ = pull.Deliver(context.Background(), policy.Hint{ID: "o1", Kind: policy.KindPlace, App: "application_1_0002",
		Task: "task_1_0002_m_000000", Nodes: []policy.NodeScore{{Node: "nm1:8041", Score: 1}}})

	changes := func(query string) ChangesResponse {
		t.Helper()
		code, body := do(t, "GET", srv.URL+"/v1/hints/changes?"+query, "")
		if code != 200 {
			t.Fatalf("GET changes?%s: %d %s", query, code, body)
		}
		var c ChangesResponse
		if err := json.Unmarshal([]byte(body), &c); err != nil {
			t.Fatalf("GET changes?%s: %v in %s", query, err, body)
		}
		return c
	}
	c := changes("app=application_1_0001&kinds=speculate,deny-speculation,kill")
	if !c.Reset || c.Cursor != 2 || len(c.Hints) != 1 || c.Hints[0].Hint.ID != "s1" || c.Hints[0].Seq != 1 ||
		c.Hints[0].Target == "" || c.Hints[0].Hint.Node != "nm2:8041" {
		t.Fatalf("snapshot for one app: %+v", c)
	}

	// A long poll at the newest cursor waits for the next hint.
	got := make(chan ChangesResponse, 1)
	go func() { got <- changes("after=2&wait_ms=20000&app=application_1_0001") }()
	time.Sleep(50 * time.Millisecond) // let the poll start waiting; the answer is checked below either way
	code, body := do(t, "POST", srv.URL+"/v1/hints",
		`[{"v":1,"kind":"deny-speculation","app":"application_1_0001","task":"task_1_0001_m_000003","reason":"test"}]`)
	if code != 200 || !strings.Contains(body, "operator-") {
		t.Fatalf("POST /v1/hints: %d %s", code, body)
	}
	select {
	case c := <-got:
		if c.Reset || c.Cursor != 3 || len(c.Hints) != 1 || c.Hints[0].Hint.Kind != policy.KindDenySpeculation ||
			c.Hints[0].Hint.Policy != "operator" || c.Hints[0].Hint.ID == "" {
			t.Fatalf("long poll: %+v", c)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("long poll did not return after a new hint")
	}

	for _, tc := range []struct {
		method, path, body string
		code               int
		contains           string
	}{
		{"GET", "/v1/hints/changes?after=x", "", 400, "after: not a non-negative integer"},
		{"GET", "/v1/hints/changes?kinds=speculate,bogus", "", 400, `unknown hint kind "bogus"`},
		{"GET", "/v1/hints/changes?wait_ms=-1", "", 400, "wait_ms"},
		{"POST", "/v1/hints", `{"kind":"place"}`, 400, "JSON array"},
		{"POST", "/v1/hints", `[{"v":1,"kind":"place","app":"a"}]`, 400, "hint 0: hint place: task: required"},
		{"POST", "/v1/events", "{}", 404, "not available"},
	} {
		code, body := do(t, tc.method, srv.URL+tc.path, tc.body)
		if code != tc.code || !strings.Contains(body, tc.contains) {
			t.Errorf("%s %s: %d %q, want %d containing %q", tc.method, tc.path, code, body, tc.code, tc.contains)
		}
	}

	off := httptest.NewServer(Handler(l, pull, NewMetrics()))
	defer off.Close()
	if code, body := do(t, "POST", off.URL+"/v1/hints", `[]`); code != 403 || !strings.Contains(body, "http.operator_hints") {
		t.Errorf("operator hints off: %d %s", code, body)
	}
}

func TestPostEventsProducesToTheEventPath(t *testing.T) {
	l, _, stop := startLoop(t, nil)
	defer stop()
	prod := mocks.NewSyncProducer(t, sarama.NewConfig())
	var sent []*sarama.ProducerMessage
	for range 3 {
		prod.ExpectSendMessageWithCheckerFunctionAndSucceed(func(v []byte) error { return nil })
	}
	ev := &kafkaEvents{topic: "rmsidecar.events", nodeTopic: "rmsidecar.nodes"}
	m := NewMetrics()
	srv := httptest.NewServer(API{Loop: l, Metrics: m, Events: ev}.Handler())
	defer srv.Close()
	body := `{"v":1,"id":"am-1","type":"task.pending","ts":5,"app":"application_1_0001","task":"task_1_0001_m_000000","kind":"map","splits":[{"path":"/in/a","offset":0,"length":10,"hosts":["dn1"]}]}
{"v":1,"id":"am-2","type":"task.progress","ts":6,"app":"application_1_0001","task":"task_1_0001_m_000000","attempt":"attempt_1_0001_m_000000_0","progress":1.5,"phase":"map"}
{"v":1,"id":"am-3","type":"node.lost","ts":7,"node":"nm1:8041","reason":"gone"}
`
	if code, b := do(t, "POST", srv.URL+"/v1/events", body); code != 503 || !strings.Contains(b, "not connected to Kafka") {
		t.Fatalf("before Kafka: %d %s", code, b)
	}
	ev.setProducer(recordingProducer{SyncProducer: prod, sent: &sent})
	code, b := do(t, "POST", srv.URL+"/v1/events", body)
	if code != 200 {
		t.Fatalf("POST /v1/events: %d %s", code, b)
	}
	var resp EventsResponse
	if err := json.Unmarshal([]byte(b), &resp); err != nil {
		t.Fatal(err)
	}
	if resp.Accepted != 2 || len(resp.Rejected) != 1 || resp.Rejected[0].Line != 2 || !strings.Contains(resp.Rejected[0].Error, "progress") {
		t.Fatalf("response %+v", resp)
	}
	// Valid events keyed by app (node events on the node topic); the bad
	// line goes unkeyed to the events topic, for the consumer's dead-letter path.
	if len(sent) != 3 || sent[0].Topic != "rmsidecar.events" || sent[0].Key == nil ||
		sent[1].Key != nil || sent[1].Topic != "rmsidecar.events" || sent[2].Topic != "rmsidecar.nodes" {
		t.Fatalf("produced %+v", sent)
	}
	if k, _ := sent[0].Key.Encode(); string(k) != "application_1_0001" {
		t.Errorf("key %q", k)
	}
}

// recordingProducer keeps what was sent (the mock checks only values).
type recordingProducer struct {
	sarama.SyncProducer
	sent *[]*sarama.ProducerMessage
}

func (r recordingProducer) SendMessages(msgs []*sarama.ProducerMessage) error {
	*r.sent = append(*r.sent, msgs...)
	return r.SyncProducer.SendMessages(msgs)
}
