package yarnclient

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// bodyTransport answers every request with one status and body, no network.
type bodyTransport struct {
	status int
	body   []byte
}

func (b *bodyTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	return &http.Response{StatusCode: b.status, Header: http.Header{"Content-Type": {"application/json"}},
		Body: io.NopCloser(bytes.NewReader(b.body)), Request: req}, nil
}

// fuzzCalls are the RM and MR AM REST reads whose answers the client
// decodes; the fuzz input picks one.
var fuzzCalls = []struct {
	op   string
	call func(ctx context.Context, c *Client) error
}{
	{"Info", func(ctx context.Context, c *Client) error { _, err := c.Info(ctx); return err }},
	{"Metrics", func(ctx context.Context, c *Client) error { _, err := c.Metrics(ctx); return err }},
	{"Scheduler", func(ctx context.Context, c *Client) error { _, err := c.Scheduler(ctx); return err }},
	{"Nodes", func(ctx context.Context, c *Client) error { _, err := c.Nodes(ctx, NodesFilter{}); return err }},
	{"Node", func(ctx context.Context, c *Client) error { _, err := c.Node(ctx, "n1:8041"); return err }},
	{"Apps", func(ctx context.Context, c *Client) error { _, err := c.Apps(ctx, AppsFilter{}); return err }},
	{"App", func(ctx context.Context, c *Client) error { _, err := c.App(ctx, "application_1_0001"); return err }},
	{"AppAttempts", func(ctx context.Context, c *Client) error {
		_, err := c.AppAttempts(ctx, "application_1_0001")
		return err
	}},
	{"Containers", func(ctx context.Context, c *Client) error {
		_, err := c.Containers(ctx, "application_1_0001", "appattempt_1_0001_000001")
		return err
	}},
	{"ClusterNodeLabels", func(ctx context.Context, c *Client) error { _, err := c.ClusterNodeLabels(ctx); return err }},
	{"AppPriority", func(ctx context.Context, c *Client) error {
		_, err := c.AppPriority(ctx, "application_1_0001")
		return err
	}},
	{"MRJobs", func(ctx context.Context, c *Client) error { _, err := c.MRJobs(ctx, "application_1_0001"); return err }},
	{"MRTasks", func(ctx context.Context, c *Client) error {
		_, err := c.MRTasks(ctx, "application_1_0001", "job_1_0001", "")
		return err
	}},
	{"MRTaskAttempts", func(ctx context.Context, c *Client) error {
		_, err := c.MRTaskAttempts(ctx, "application_1_0001", "job_1_0001", "task_1_0001_m_000000")
		return err
	}},
	{"MRJobCounters", func(ctx context.Context, c *Client) error {
		_, err := c.MRJobCounters(ctx, "application_1_0001", "job_1_0001")
		return err
	}},
	{"MRJobConf", func(ctx context.Context, c *Client) error {
		_, err := c.MRJobConf(ctx, "application_1_0001", "job_1_0001")
		return err
	}},
}

var fuzzStatuses = []int{200, 200, 200, 204, 400, 404, 500, 503, 429}

// FuzzRMResponses: whatever an RM or MR AM answers (status and body), the
// client's decoders never panic, and an error names the call ("yarnclient:
// <op>"); a non-2xx status is an *HTTPError with that status.
func FuzzRMResponses(f *testing.F) {
	seeds := map[string]uint8{
		"rm/info.json": 0, "rm/metrics.json": 1, "rm/scheduler_capacity.json": 2, "rm/scheduler_fair.json": 2,
		"rm/scheduler_fifo.json": 2, "rm/nodes.json": 3, "rm/nodes_single.json": 3, "rm/node.json": 4,
		"rm/apps.json": 5, "rm/apps_empty.json": 5, "rm/app.json": 6, "rm/appattempts.json": 7,
		"rm/containers.json": 8, "rm/node_labels.json": 9, "mr/jobs.json": 11, "mr/tasks.json": 12,
		"mr/attempts_r0.json": 13, "mr/counters.json": 14, "mr/conf.json": 15,
	}
	for p, op := range seeds {
		b, err := os.ReadFile(filepath.Join("testdata", p))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(op, uint8(0), b)
	}
	for _, p := range []string{"rm/bad_request.json", "rm/not_found.json"} {
		b, err := os.ReadFile(filepath.Join("testdata", p))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(uint8(6), uint8(4), b)
	}
	f.Add(uint8(5), uint8(0), []byte(`{"apps":{"app":{"id":"application_1_0001","state":"RUNNING"}}}`))
	f.Add(uint8(2), uint8(0), []byte(`{"scheduler":{"schedulerInfo":{"type":"fifoScheduler","usedCapacity":"NaN"}}}`))
	f.Add(uint8(9), uint8(0), []byte(`{"nodeLabels":"x"}`))
	f.Add(uint8(6), uint8(7), []byte(`<RemoteException><exception>E</exception><message>m</message></RemoteException>`))
	f.Fuzz(func(t *testing.T, op, status uint8, body []byte) {
		call := fuzzCalls[int(op)%len(fuzzCalls)]
		tr := &bodyTransport{status: fuzzStatuses[int(status)%len(fuzzStatuses)], body: body}
		c, err := New(Config{RMURLs: []string{"http://rm1:8088"}, Transport: tr, MaxAttempts: 1, Timeout: time.Second,
			Sleep: func(context.Context, time.Duration) error { return nil }})
		if err != nil {
			t.Fatal(err)
		}
		err = call.call(context.Background(), c)
		if err == nil {
			if tr.status/100 != 2 {
				t.Fatalf("%s: HTTP %d accepted", call.op, tr.status)
			}
			return
		}
		if msg := err.Error(); !strings.HasPrefix(msg, "yarnclient: "+call.op) {
			t.Fatalf("%s: error %q does not name the call", call.op, msg)
		}
		if tr.status/100 != 2 {
			he, ok := errors.AsType[*HTTPError](err)
			if !ok || he.StatusCode != tr.status {
				t.Fatalf("%s: HTTP %d gave %#v, not an *HTTPError with the status", call.op, tr.status, err)
			}
		}
	})
}
