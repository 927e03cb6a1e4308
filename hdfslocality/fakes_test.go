package hdfslocality

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// fakeInfo implements os.FileInfo for the fake namespace.
type fakeInfo struct {
	name string
	size int64
	dir  bool
}

func (f fakeInfo) Name() string       { return f.name }
func (f fakeInfo) Size() int64        { return f.size }
func (f fakeInfo) Mode() os.FileMode  { return 0o644 }
func (f fakeInfo) ModTime() time.Time { return time.Time{} }
func (f fakeInfo) IsDir() bool        { return f.dir }
func (f fakeInfo) Sys() any           { return nil }

// fakeNS is an in-memory namespace: file path -> size; directories are
// implied by file paths.
type fakeNS struct {
	mu    sync.Mutex
	files map[string]int64
	fail  error         // returned by every call while set
	block chan struct{} // calls wait on it while set
	calls atomic.Int64
}

func newFakeNS(files map[string]int64) *fakeNS { return &fakeNS{files: files} }

func (f *fakeNS) setFail(err error) {
	f.mu.Lock()
	f.fail = err
	f.mu.Unlock()
}

func (f *fakeNS) enter() error {
	f.calls.Add(1)
	f.mu.Lock()
	block, fail := f.block, f.fail
	f.mu.Unlock()
	if block != nil {
		<-block
	}
	return fail
}

func (f *fakeNS) Stat(name string) (os.FileInfo, error) {
	if err := f.enter(); err != nil {
		return nil, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if size, ok := f.files[name]; ok {
		return fakeInfo{name: path.Base(name), size: size}, nil
	}
	for p := range f.files {
		if strings.HasPrefix(p, strings.TrimSuffix(name, "/")+"/") {
			return fakeInfo{name: path.Base(name), dir: true}, nil
		}
	}
	return nil, &os.PathError{Op: "stat", Path: name, Err: os.ErrNotExist}
}

func (f *fakeNS) ReadDir(dir string) ([]os.FileInfo, error) {
	if err := f.enter(); err != nil {
		return nil, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	seen := map[string]fakeInfo{}
	prefix := strings.TrimSuffix(dir, "/") + "/"
	for p, size := range f.files {
		rest, ok := strings.CutPrefix(p, prefix)
		if !ok {
			continue
		}
		name, sub, isDir := strings.Cut(rest, "/")
		_ = sub
		if isDir {
			seen[name] = fakeInfo{name: name, dir: true}
		} else {
			seen[name] = fakeInfo{name: name, size: size}
		}
	}
	var out []os.FileInfo
	for _, fi := range seen {
		out = append(out, fi)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name() < out[j].Name() })
	return out, nil
}

// fakeNN is an httptest NameNode serving recorded WebHDFS answers: path ->
// fixture file; unknown paths get the recorded FileNotFoundException.
type fakeNN struct {
	t        *testing.T
	srv      *httptest.Server
	fixtures map[string]string
	mu       sync.Mutex
	standby  bool
	down     bool // answer 503 without RemoteException (proxy in front of a dead NN)
	legacy   bool // a pre-3.2 NameNode: no GETFILEBLOCKLOCATIONS, only GET_BLOCK_LOCATIONS
	requests []string
	hits     atomic.Int64
}

func newFakeNN(t *testing.T, fixtures map[string]string) *fakeNN {
	n := &fakeNN{t: t, fixtures: fixtures}
	n.srv = httptest.NewServer(http.HandlerFunc(n.serve))
	t.Cleanup(n.srv.Close)
	return n
}

func (n *fakeNN) set(standby, down bool) {
	n.mu.Lock()
	n.standby, n.down = standby, down
	n.mu.Unlock()
}

func (n *fakeNN) serve(w http.ResponseWriter, r *http.Request) {
	n.hits.Add(1)
	n.mu.Lock()
	n.requests = append(n.requests, r.URL.RequestURI())
	standby, down := n.standby, n.down
	n.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	switch {
	case down:
		w.WriteHeader(http.StatusServiceUnavailable)
		w.Write([]byte("<html>503 Service Unavailable</html>"))
		return
	case standby:
		w.WriteHeader(http.StatusForbidden)
		w.Write(readFixture(n.t, "remote_standby.json"))
		return
	}
	p, ok := strings.CutPrefix(r.URL.Path, "/webhdfs/v1")
	n.mu.Lock()
	legacy := n.legacy
	n.mu.Unlock()
	if op := r.URL.Query().Get("op"); legacy && op == "GET_BLOCK_LOCATIONS" {
		if _, known := n.fixtures[p]; !known {
			w.WriteHeader(http.StatusNotFound)
			w.Write(readFixture(n.t, "remote_file_not_found.json"))
			return
		}
		w.Write(readFixture(n.t, "located_blocks_legacy.json"))
		return
	}
	if !ok || legacy || r.URL.Query().Get("op") != "GETFILEBLOCKLOCATIONS" {
		w.WriteHeader(http.StatusBadRequest)
		w.Write([]byte(`{"RemoteException":{"exception":"IllegalArgumentException","javaClassName":"java.lang.IllegalArgumentException","message":"Invalid value for webhdfs parameter \"op\": No enum constant org.apache.hadoop.hdfs.web.resources.GetOpParam.Op.` + r.URL.Query().Get("op") + `"}}`))
		return
	}
	fx, ok := n.fixtures[p]
	if !ok {
		w.WriteHeader(http.StatusNotFound)
		w.Write(readFixture(n.t, "remote_file_not_found.json"))
		return
	}
	w.Write(readFixture(n.t, fx))
}

func readFixture(t *testing.T, name string) []byte {
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// fakeClock is an injected clock.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func newFakeClock() *fakeClock { return &fakeClock{now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)} }

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// waitIdle waits until no background fetch is in flight.
func waitIdle(t *testing.T, r *Resolver) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		r.mu.Lock()
		n := len(r.inflight)
		r.mu.Unlock()
		if n == 0 {
			return
		}
		time.Sleep(2 * time.Millisecond)
	}
	t.Fatal("background fetches did not finish")
}

// metricValue sums a metric family (all label sets, or the one matching
// label=value when given) from a registry.
func metricValue(t *testing.T, reg *prometheus.Registry, name string, label ...string) float64 {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var sum float64
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
		for _, m := range mf.GetMetric() {
			if len(label) == 2 {
				match := false
				for _, lp := range m.GetLabel() {
					if lp.GetName() == label[0] && lp.GetValue() == label[1] {
						match = true
					}
				}
				if !match {
					continue
				}
			}
			switch {
			case m.Counter != nil:
				sum += m.Counter.GetValue()
			case m.Gauge != nil:
				sum += m.Gauge.GetValue()
			}
		}
	}
	return sum
}
