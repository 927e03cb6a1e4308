package yarnclient

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// fixture reads testdata/<name>.
func fixture(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatalf("fixture %s: %v", name, err)
	}
	return b
}

// reply is one canned answer.
type reply struct {
	status int
	body   []byte
	header map[string]string
	delay  time.Duration
}

func jsonReply(status int, body []byte) reply {
	return reply{status: status, body: body, header: map[string]string{"Content-Type": "application/json"}}
}

// seen is one request the fake RM received.
type seen struct {
	Method string
	Path   string
	Query  map[string][]string
	Body   string
	Header http.Header
}

// fakeRM serves canned replies per "METHOD /path". A route may hold a
// sequence of replies; the last one repeats.
type fakeRM struct {
	t      *testing.T
	srv    *httptest.Server
	mu     sync.Mutex
	routes map[string][]reply
	dyn    map[string]func(r *http.Request) reply
	hits   map[string]int
	reqs   []seen
}

func newFakeRM(t *testing.T) *fakeRM {
	f := &fakeRM{t: t, routes: map[string][]reply{}, dyn: map[string]func(*http.Request) reply{}, hits: map[string]int{}}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeRM) URL() string { return f.srv.URL }

func (f *fakeRM) on(method, path string, replies ...reply) *fakeRM {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.routes[method+" "+path] = replies
	return f
}

// onFunc routes method path to a function of the request.
func (f *fakeRM) onFunc(method, path string, fn func(r *http.Request) reply) *fakeRM {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.dyn[method+" "+path] = fn
	return f
}

// onFixture routes method path to a 200 JSON fixture.
func (f *fakeRM) onFixture(method, path, name string) *fakeRM {
	return f.on(method, path, jsonReply(200, fixture(f.t, name)))
}

func (f *fakeRM) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	key := r.Method + " " + r.URL.Path
	f.mu.Lock()
	f.reqs = append(f.reqs, seen{Method: r.Method, Path: r.URL.Path, Query: r.URL.Query(), Body: string(body), Header: r.Header.Clone()})
	replies, ok := f.routes[key]
	fn := f.dyn[key]
	n := f.hits[key]
	f.hits[key] = n + 1
	f.mu.Unlock()
	if fn != nil {
		replies, ok = []reply{fn(r)}, true
		n = 0
	}
	if !ok {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusNotFound)
		_, _ = w.Write([]byte(`{"RemoteException":{"exception":"NotFoundException","message":"no route ` + key + `","javaClassName":"org.apache.hadoop.yarn.webapp.NotFoundException"}}`))
		return
	}
	rep := replies[min(n, len(replies)-1)]
	if rep.delay > 0 {
		select {
		case <-time.After(rep.delay):
		case <-r.Context().Done():
			return
		}
	}
	for k, v := range rep.header {
		w.Header().Set(k, v)
	}
	w.WriteHeader(rep.status)
	_, _ = w.Write(rep.body)
}

func (f *fakeRM) requests() []seen {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]seen(nil), f.reqs...)
}

func (f *fakeRM) count(method, path string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.hits[method+" "+path]
}

// sleepRecorder replaces Config.Sleep: it records and returns at once.
type sleepRecorder struct {
	mu     sync.Mutex
	sleeps []time.Duration
}

func (s *sleepRecorder) sleep(ctx context.Context, d time.Duration) error {
	s.mu.Lock()
	s.sleeps = append(s.sleeps, d)
	s.mu.Unlock()
	return ctx.Err()
}

func (s *sleepRecorder) got() []time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]time.Duration(nil), s.sleeps...)
}

// testClient builds a client over urls with deterministic jitter (0.5) and
// recorded sleeps.
func testClient(t *testing.T, mod func(*Config), urls ...string) (*Client, *sleepRecorder) {
	t.Helper()
	rec := &sleepRecorder{}
	cfg := Config{
		RMURLs:      urls,
		User:        "rmsidecar",
		Timeout:     2 * time.Second,
		MaxAttempts: 4,
		BaseBackoff: 100 * time.Millisecond,
		MaxBackoff:  time.Second,
		Rand:        func() float64 { return 0.5 },
		Sleep:       rec.sleep,
	}
	if mod != nil {
		mod(&cfg)
	}
	c, err := New(cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return c, rec
}
