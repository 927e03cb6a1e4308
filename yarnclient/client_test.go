package yarnclient

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"
)

func TestNewValidatesConfig(t *testing.T) {
	tests := []struct {
		name    string
		cfg     Config
		wantErr string
	}{
		{"no urls", Config{}, "RMURLs is empty"},
		{"bad scheme", Config{RMURLs: []string{"ftp://rm:8088"}}, `RMURLs[0] "ftp://rm:8088"`},
		{"no host", Config{RMURLs: []string{"http://rm1:8088", "http://"}}, `RMURLs[1]`},
		{"unparsable", Config{RMURLs: []string{"http://rm:bad port"}}, `RMURLs[0]`},
		{"spnego without keytab", Config{RMURLs: []string{"http://rm:8088"}, SPNEGO: &SPNEGOConfig{Principal: "a@B"}}, "Kerberos needs a principal and a keytab"},
		{"ok", Config{RMURLs: []string{"http://rm1:8088/", " https://rm2:8090 "}}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := New(tt.cfg)
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("New: %v", err)
				}
				if got := c.ActiveRM(); got != "http://rm1:8088" {
					t.Errorf("ActiveRM = %q", got)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("err = %v, want containing %q", err, tt.wantErr)
			}
		})
	}
}

func TestBackoffFullJitter(t *testing.T) {
	tests := []struct {
		name string
		rnd  float64
		n    int
		want time.Duration
	}{
		{"first retry half", 0.5, 0, 50 * time.Millisecond},
		{"second retry doubles", 0.5, 1, 100 * time.Millisecond},
		{"fourth retry", 0.5, 3, 400 * time.Millisecond},
		{"capped at max", 0.5, 10, 500 * time.Millisecond},
		{"huge n does not overflow", 0.999, 500, 999 * time.Millisecond},
		{"zero jitter", 0, 3, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, _ := testClient(t, func(cfg *Config) {
				cfg.Rand = func() float64 { return tt.rnd }
			}, "http://rm:8088")
			if got := c.backoff(tt.n); got != tt.want {
				t.Errorf("backoff(%d) = %v, want %v", tt.n, got, tt.want)
			}
		})
	}
}

func TestRetryPolicy(t *testing.T) {
	okBody := fixture(t, "rm/info.json")
	tests := []struct {
		name       string
		replies    []reply
		wantHits   int
		wantSleeps []time.Duration
		wantStatus int // 0: success
		wantRemote string
	}{
		{"200 at once", []reply{jsonReply(200, okBody)}, 1, nil, 0, ""},
		{"503 then 200", []reply{jsonReply(503, nil), jsonReply(503, nil), jsonReply(200, okBody)}, 3,
			[]time.Duration{50 * time.Millisecond, 100 * time.Millisecond}, 0, ""},
		{"500 until giving up", []reply{jsonReply(500, fixture(t, "rm/bad_request.json"))}, 4,
			[]time.Duration{50 * time.Millisecond, 100 * time.Millisecond, 200 * time.Millisecond}, 500, "BadRequestException"},
		{"404 not retried", []reply{jsonReply(404, fixture(t, "rm/not_found.json"))}, 1, nil, 404, "NotFoundException"},
		{"400 not retried", []reply{jsonReply(400, fixture(t, "rm/bad_request.json"))}, 1, nil, 400, "BadRequestException"},
		{"403 not retried", []reply{{status: 403}}, 1, nil, 403, ""},
		{"429 retried with Retry-After", []reply{{status: 429, header: map[string]string{"Retry-After": "1"}}, jsonReply(200, okBody)}, 2,
			[]time.Duration{time.Second}, 0, ""},
		{"4xx with Retry-After retried", []reply{{status: 409, header: map[string]string{"Retry-After": "0"}}, jsonReply(200, okBody)}, 2,
			[]time.Duration{50 * time.Millisecond}, 0, ""},
		{"huge Retry-After capped", []reply{{status: 503, header: map[string]string{"Retry-After": "3600"}}, jsonReply(200, okBody)}, 2,
			[]time.Duration{time.Second}, 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rm := newFakeRM(t).on("GET", "/ws/v1/cluster/info", tt.replies...)
			c, rec := testClient(t, nil, rm.URL())
			info, err := c.Info(context.Background())
			if got := rm.count("GET", "/ws/v1/cluster/info"); got != tt.wantHits {
				t.Errorf("hits = %d, want %d", got, tt.wantHits)
			}
			if got := rec.got(); !equalDurations(got, tt.wantSleeps) {
				t.Errorf("sleeps = %v, want %v", got, tt.wantSleeps)
			}
			if tt.wantStatus == 0 {
				if err != nil {
					t.Fatalf("Info: %v", err)
				}
				if info.HAState != "ACTIVE" {
					t.Errorf("HAState = %q", info.HAState)
				}
				return
			}
			if err == nil {
				t.Fatal("want error")
			}
			var he *HTTPError
			if !errors.As(err, &he) {
				t.Fatalf("err %v is not an *HTTPError", err)
			}
			if he.StatusCode != tt.wantStatus || StatusCode(err) != tt.wantStatus {
				t.Errorf("status = %d, want %d", he.StatusCode, tt.wantStatus)
			}
			if he.Op != "Info" || !strings.Contains(err.Error(), rm.URL()+"/ws/v1/cluster/info") {
				t.Errorf("error does not name op and URL: %v", err)
			}
			if tt.wantRemote != "" && (he.Remote == nil || he.Remote.Exception != tt.wantRemote || he.Remote.JavaClassName == "" || he.Remote.Message == "") {
				t.Errorf("Remote = %+v, want exception %s", he.Remote, tt.wantRemote)
			}
		})
	}
}

func equalDurations(a, b []time.Duration) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// deadURL returns a URL nobody listens on.
func deadURL(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	u := "http://" + l.Addr().String()
	l.Close()
	return u
}

func TestNetworkErrorsRetriedThenClearError(t *testing.T) {
	u := deadURL(t)
	c, rec := testClient(t, nil, u)
	_, err := c.Nodes(context.Background(), NodesFilter{})
	if err == nil {
		t.Fatal("want error")
	}
	if !strings.Contains(err.Error(), "giving up after 4 attempts") || !strings.Contains(err.Error(), u+"/ws/v1/cluster/nodes") || !strings.Contains(err.Error(), "Nodes") {
		t.Errorf("unclear error: %v", err)
	}
	var opErr *net.OpError
	if !errors.As(err, &opErr) {
		t.Errorf("error does not wrap the network error: %v", err)
	}
	// One RM: every failure is a full cycle, so every retry backs off.
	if got := rec.got(); len(got) != 3 {
		t.Errorf("sleeps = %v, want 3", got)
	}
}

func TestFailover(t *testing.T) {
	nodes := fixture(t, "rm/nodes.json")
	tests := []struct {
		name    string
		standby func(active string) reply
	}{
		{"307 redirect to the active RM", func(active string) reply {
			return reply{status: 307, body: fixture(t, "rm/standby_redirect.txt"),
				header: map[string]string{"Location": active + "/ws/v1/cluster/nodes", "Content-Type": "text/plain"}}
		}},
		{"bare 307 without body", func(active string) reply {
			return reply{status: 307, header: map[string]string{"Location": active + "/ws/v1/cluster/nodes"}}
		}},
		{"standby refresh page with 200", func(active string) reply {
			return reply{status: 200, body: fixture(t, "rm/standby_refresh.txt"),
				header: map[string]string{"Refresh": "3; url=" + active + "/ws/v1/cluster/nodes", "Content-Type": "text/plain"}}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			active := newFakeRM(t)
			active.on("GET", "/ws/v1/cluster/nodes", jsonReply(200, nodes))
			standby := newFakeRM(t)
			standby.on("GET", "/ws/v1/cluster/nodes", tt.standby(active.URL()))
			c, rec := testClient(t, nil, standby.URL(), active.URL())
			got, err := c.Nodes(context.Background(), NodesFilter{})
			if err != nil {
				t.Fatalf("Nodes: %v", err)
			}
			if len(got) != 3 {
				t.Errorf("nodes = %d, want 3", len(got))
			}
			if c.ActiveRM() != active.URL() {
				t.Errorf("ActiveRM = %s, want %s", c.ActiveRM(), active.URL())
			}
			if s := rec.got(); len(s) != 1 || s[0] != 0 {
				t.Errorf("sleeps = %v, want one zero wait (failover before a full cycle)", s)
			}
			// The active RM is remembered: the next call skips the standby.
			if _, err := c.Nodes(context.Background(), NodesFilter{}); err != nil {
				t.Fatal(err)
			}
			if n := standby.count("GET", "/ws/v1/cluster/nodes"); n != 1 {
				t.Errorf("standby hits = %d, want 1", n)
			}
			if n := active.count("GET", "/ws/v1/cluster/nodes"); n != 2 {
				t.Errorf("active hits = %d, want 2", n)
			}
		})
	}
}

func TestFailoverRedirectJumpsToNamedRM(t *testing.T) {
	apps := fixture(t, "rm/apps.json")
	active := newFakeRM(t).on("GET", "/ws/v1/cluster/apps", jsonReply(200, apps))
	other := newFakeRM(t).on("GET", "/ws/v1/cluster/apps", reply{status: 503})
	standby := newFakeRM(t).on("GET", "/ws/v1/cluster/apps", reply{status: 307, body: fixture(t, "rm/standby_redirect.txt"),
		header: map[string]string{"Location": active.URL() + "/ws/v1/cluster/apps"}})
	c, _ := testClient(t, nil, standby.URL(), other.URL(), active.URL())
	if _, err := c.Apps(context.Background(), AppsFilter{}); err != nil {
		t.Fatal(err)
	}
	if other.count("GET", "/ws/v1/cluster/apps") != 0 {
		t.Error("client tried the RM in between instead of the one the redirect named")
	}
	if c.ActiveRM() != active.URL() {
		t.Errorf("ActiveRM = %s", c.ActiveRM())
	}
}

func TestFailoverFromDeadRM(t *testing.T) {
	live := newFakeRM(t).onFixture("GET", "/ws/v1/cluster/metrics", "rm/metrics.json")
	c, rec := testClient(t, nil, deadURL(t), live.URL())
	m, err := c.Metrics(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if m.TotalMB != 24576 || m.ActiveNodes != 3 {
		t.Errorf("metrics = %+v", m)
	}
	if s := rec.got(); len(s) != 1 || s[0] != 0 {
		t.Errorf("sleeps = %v", s)
	}
}

func TestAllRMsStandby(t *testing.T) {
	mk := func() *fakeRM {
		return newFakeRM(t).on("GET", "/ws/v1/cluster/apps", reply{status: 200, body: fixture(t, "rm/standby_refresh.txt")})
	}
	a, b := mk(), mk()
	c, rec := testClient(t, func(cfg *Config) { cfg.MaxAttempts = 6 }, a.URL(), b.URL())
	_, err := c.Apps(context.Background(), AppsFilter{})
	if !errors.Is(err, ErrStandby) {
		t.Fatalf("err = %v, want ErrStandby", err)
	}
	// a, b (cycle: back off), a, b (back off), a, b: waits 0, 50ms, 0, 100ms, 0.
	want := []time.Duration{0, 50 * time.Millisecond, 0, 100 * time.Millisecond, 0}
	if got := rec.got(); !equalDurations(got, want) {
		t.Errorf("sleeps = %v, want %v", got, want)
	}
	if a.count("GET", "/ws/v1/cluster/apps") != 3 || b.count("GET", "/ws/v1/cluster/apps") != 3 {
		t.Errorf("hits a=%d b=%d", a.count("GET", "/ws/v1/cluster/apps"), b.count("GET", "/ws/v1/cluster/apps"))
	}
}

func TestPerRequestTimeout(t *testing.T) {
	rm := newFakeRM(t).on("GET", "/ws/v1/cluster/info",
		reply{status: 200, delay: 2 * time.Second, body: fixture(t, "rm/info.json")},
		jsonReply(200, fixture(t, "rm/info.json")))
	c, rec := testClient(t, func(cfg *Config) { cfg.Timeout = 50 * time.Millisecond }, rm.URL())
	start := time.Now()
	if _, err := c.Info(context.Background()); err != nil {
		t.Fatalf("Info: %v", err)
	}
	if d := time.Since(start); d > 1500*time.Millisecond {
		t.Errorf("took %v: the per-attempt timeout did not fire", d)
	}
	if rm.count("GET", "/ws/v1/cluster/info") != 2 || len(rec.got()) != 1 {
		t.Errorf("hits=%d sleeps=%v", rm.count("GET", "/ws/v1/cluster/info"), rec.got())
	}
}

func TestCanceledContextNotRetried(t *testing.T) {
	rm := newFakeRM(t).on("GET", "/ws/v1/cluster/info", reply{status: 200, delay: time.Second})
	c, rec := testClient(t, nil, rm.URL())
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
	defer cancel()
	_, err := c.Info(ctx)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want deadline exceeded", err)
	}
	if len(rec.got()) != 0 {
		t.Errorf("slept %v after the caller's context ended", rec.got())
	}
}

func TestSleepHonoursContext(t *testing.T) {
	rm := newFakeRM(t).on("GET", "/ws/v1/cluster/info", reply{status: 503})
	ctx, cancel := context.WithCancel(context.Background())
	c, _ := testClient(t, func(cfg *Config) {
		cfg.Sleep = func(context.Context, time.Duration) error { cancel(); return context.Canceled }
	}, rm.URL())
	_, err := c.Info(ctx)
	if !errors.Is(err, context.Canceled) || StatusCode(err) != 503 {
		t.Fatalf("err = %v, want canceled wrapping the last 503", err)
	}
}

func TestDefaultSleepWaits(t *testing.T) {
	if err := sleepCtx(context.Background(), time.Millisecond); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := sleepCtx(ctx, time.Hour); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
}

func TestUserNameOnEveryRequest(t *testing.T) {
	rm := newFakeRM(t).
		onFixture("GET", "/ws/v1/cluster/apps", "rm/apps.json").
		on("POST", "/ws/v1/cluster/containers/container_e01_1763719000000_0001_01_000002/signal/GRACEFUL_SHUTDOWN", reply{status: 200}).
		onFixture("GET", "/proxy/application_1763719000000_0001/ws/v1/mapreduce/jobs", "mr/jobs.json")
	c, _ := testClient(t, nil, rm.URL())
	ctx := context.Background()
	if _, err := c.Apps(ctx, AppsFilter{States: []string{AppRunning}}); err != nil {
		t.Fatal(err)
	}
	if err := c.SignalContainer(ctx, "container_e01_1763719000000_0001_01_000002", SignalGracefulShutdown); err != nil {
		t.Fatal(err)
	}
	if _, err := c.MRJobs(ctx, "application_1763719000000_0001"); err != nil {
		t.Fatal(err)
	}
	for _, r := range rm.requests() {
		if got := r.Query["user.name"]; len(got) != 1 || got[0] != "rmsidecar" {
			t.Errorf("%s %s: user.name = %v", r.Method, r.Path, got)
		}
		if r.Header.Get("Accept") != "application/json" {
			t.Errorf("%s %s: Accept = %q", r.Method, r.Path, r.Header.Get("Accept"))
		}
	}
}

func TestNoUserNameWhenUnset(t *testing.T) {
	rm := newFakeRM(t).onFixture("GET", "/ws/v1/cluster/info", "rm/info.json")
	c, _ := testClient(t, func(cfg *Config) { cfg.User = "" }, rm.URL())
	if _, err := c.Info(context.Background()); err != nil {
		t.Fatal(err)
	}
	if q := rm.requests()[0].Query; len(q) != 0 {
		t.Errorf("query = %v, want none", q)
	}
}

func TestResponseTooLarge(t *testing.T) {
	rm := newFakeRM(t).onFixture("GET", "/ws/v1/cluster/apps", "rm/apps.json")
	c, rec := testClient(t, func(cfg *Config) { cfg.MaxBodyBytes = 100 }, rm.URL())
	_, err := c.Apps(context.Background(), AppsFilter{})
	if err == nil || !strings.Contains(err.Error(), "larger than 100 bytes") {
		t.Fatalf("err = %v", err)
	}
	if len(rec.got()) != 0 {
		t.Error("oversized answer was retried")
	}
}

func TestMalformedJSONNamesOperation(t *testing.T) {
	rm := newFakeRM(t).on("GET", "/ws/v1/cluster/nodes", jsonReply(200, []byte(`{"nodes":{"node":[{"id":17}]}}`)))
	c, _ := testClient(t, nil, rm.URL())
	_, err := c.Nodes(context.Background(), NodesFilter{})
	if err == nil || !strings.Contains(err.Error(), "Nodes") || !strings.Contains(err.Error(), "decode response") {
		t.Fatalf("err = %v", err)
	}
}

func TestXMLRemoteExceptionParsed(t *testing.T) {
	body := []byte(`<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<RemoteException><exception>BadRequestException</exception><message>java.lang.Exception: Only 'KILLED' is allowed as a target state.</message><javaClassName>org.apache.hadoop.yarn.webapp.BadRequestException</javaClassName></RemoteException>`)
	rm := newFakeRM(t).on("PUT", "/ws/v1/cluster/apps/application_1_0001/state", reply{status: 400, body: body, header: map[string]string{"Content-Type": "application/xml"}})
	c, _ := testClient(t, nil, rm.URL())
	_, _, err := c.KillApp(context.Background(), "application_1_0001")
	var he *HTTPError
	if !errors.As(err, &he) || he.Remote == nil || he.Remote.Exception != "BadRequestException" {
		t.Fatalf("err = %v", err)
	}
	if !strings.Contains(err.Error(), "Only 'KILLED' is allowed") {
		t.Errorf("message not in error: %v", err)
	}
}

func TestErrorHelpers(t *testing.T) {
	tests := []struct {
		err       error
		notFound  bool
		forbidden bool
	}{
		{&HTTPError{StatusCode: 404}, true, false},
		{&HTTPError{StatusCode: 401}, false, true},
		{&HTTPError{StatusCode: 403}, false, true},
		{errors.New("x"), false, false},
	}
	for _, tt := range tests {
		if IsNotFound(tt.err) != tt.notFound || IsForbidden(tt.err) != tt.forbidden {
			t.Errorf("%v: notFound=%v forbidden=%v", tt.err, IsNotFound(tt.err), IsForbidden(tt.err))
		}
	}
	long := &HTTPError{Op: "X", Method: "GET", URL: "u", StatusCode: 500}
	resp := httptest.NewRecorder().Result()
	resp.StatusCode = 500
	he := newHTTPError("X", "GET", "u", resp, []byte(strings.Repeat("a", 2000)))
	if len(he.Body) > maxErrorBody+3 {
		t.Errorf("body not truncated: %d", len(he.Body))
	}
	if !strings.Contains(long.Error(), "HTTP 500 Internal Server Error") {
		t.Errorf("Error() = %s", long.Error())
	}
}

func TestRetryAfterParsing(t *testing.T) {
	tests := []struct {
		in   string
		want time.Duration
	}{
		{"", 0}, {"2", 2 * time.Second}, {"-1", 0}, {"garbage", 0},
		{time.Now().Add(-time.Hour).UTC().Format(http.TimeFormat), 0},
	}
	for _, tt := range tests {
		if got := retryAfter(tt.in); got != tt.want {
			t.Errorf("retryAfter(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
	if got := retryAfter(time.Now().Add(time.Hour).UTC().Format(http.TimeFormat)); got < 59*time.Minute {
		t.Errorf("HTTP-date Retry-After = %v", got)
	}
}

func TestFindActive(t *testing.T) {
	standby := newFakeRM(t).onFixture("GET", "/ws/v1/cluster/info", "rm/info_standby.json")
	active := newFakeRM(t).onFixture("GET", "/ws/v1/cluster/info", "rm/info.json")
	dead := deadURL(t)
	c, _ := testClient(t, nil, dead, standby.URL(), active.URL())
	got, err := c.FindActive(context.Background())
	if err != nil || got != active.URL() || c.ActiveRM() != active.URL() {
		t.Fatalf("FindActive = %q, %v; ActiveRM %q", got, err, c.ActiveRM())
	}

	c2, _ := testClient(t, nil, dead, standby.URL())
	_, err = c2.FindActive(context.Background())
	if !errors.Is(err, ErrStandby) || !strings.Contains(err.Error(), dead) {
		t.Fatalf("err = %v", err)
	}
	if c2.ActiveRM() != dead {
		t.Errorf("ActiveRM moved to %s without an active RM", c2.ActiveRM())
	}
}

func TestFailoverIsLogged(t *testing.T) {
	live := newFakeRM(t).onFixture("GET", "/ws/v1/cluster/metrics", "rm/metrics.json")
	var logs strings.Builder
	dead := deadURL(t)
	c, _ := testClient(t, func(cfg *Config) { cfg.Logger = zerolog.New(&logs) }, dead, live.URL())
	if _, err := c.Metrics(context.Background()); err != nil {
		t.Fatal(err)
	}
	out := logs.String()
	if !strings.Contains(out, "failing over") || !strings.Contains(out, dead) || !strings.Contains(out, "active resourcemanager changed") {
		t.Errorf("logs = %s", out)
	}
}

func TestPathSegmentsEscapedOnce(t *testing.T) {
	rm := newFakeRM(t)
	c, _ := testClient(t, nil, rm.URL()+"/gateway/")
	_, err := c.Node(context.Background(), "odd host/x:1")
	if !IsNotFound(err) {
		t.Fatalf("err = %v", err)
	}
	if !strings.Contains(err.Error(), "/gateway/ws/v1/cluster/nodes/odd%20host%2Fx:1?") {
		t.Errorf("URL not escaped exactly once: %v", err)
	}
	if got := rm.requests()[0].Path; got != "/gateway/ws/v1/cluster/nodes/odd host/x:1" {
		t.Errorf("server saw path %q", got)
	}
}
