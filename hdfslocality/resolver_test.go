package hdfslocality

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"
)

// harness wires a Resolver to a fake namespace, a recorded NameNode and an
// injected clock.
type harness struct {
	ns    *fakeNS
	nn    *fakeNN
	clock *fakeClock
	reg   *prometheus.Registry
	logs  *syncBuffer
	r     *Resolver
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func newHarness(t *testing.T, opts Options) *harness {
	t.Helper()
	h := &harness{
		ns: newFakeNS(map[string]int64{
			"/data/in/part-00000":     299892736,
			"/data/in/part-00001":     1048576,
			"/data/in/_SUCCESS":       0,
			"/data/in/.part-0.crc":    12,
			"/data/in/_logs/history":  100,
			"/data/in/sub/part-00000": 1048576,
			"/data/single":            1048576,
			"/data/empty":             0,
		}),
		nn: newFakeNN(t, map[string]string{
			"/data/in/part-00000":     "blocks_part-00000.json",
			"/data/in/part-00001":     "blocks_part-00001.json",
			"/data/in/sub/part-00000": "blocks_part-00001.json",
			"/data/single":            "blocks_part-00001.json",
		}),
		clock: newFakeClock(),
		reg:   prometheus.NewRegistry(),
		logs:  &syncBuffer{},
	}
	loc, err := NewWebHDFS(WebHDFSOptions{Addrs: []string{h.nn.srv.URL}, User: "sidecar"})
	if err != nil {
		t.Fatal(err)
	}
	opts.Now = h.clock.Now
	opts.Registerer = h.reg
	opts.Logger = zerolog.New(h.logs)
	if opts.TTL == 0 {
		opts.TTL = time.Minute
	}
	h.r, err = New(h.ns, loc, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.r.Close() })
	return h
}

func (h *harness) metric(t *testing.T, name string, label ...string) float64 {
	t.Helper()
	return metricValue(t, h.reg, name, label...)
}

func TestLookupAsyncThenHit(t *testing.T) {
	h := newHarness(t, Options{Racks: NewStaticRacks(map[string]string{"dn1.example.com": "/static1"})})
	res, ok := h.r.Lookup("hdfs://mycluster/data/in/")
	if ok || res.Path != "/data/in" {
		t.Fatalf("first lookup: ok=%v %+v", ok, res)
	}
	waitIdle(t, h.r)
	res, ok = h.r.Lookup("/data/in")
	if !ok || res.Stale || res.Err != nil {
		t.Fatalf("second lookup: ok=%v %+v", ok, res)
	}
	var paths []string
	for _, f := range res.Files {
		paths = append(paths, f.Path)
	}
	// Hidden files and directories (_SUCCESS, .crc, _logs) are skipped,
	// subdirectories are walked.
	if got := strings.Join(paths, ","); got != "/data/in/part-00000,/data/in/part-00001,/data/in/sub/part-00000" {
		t.Fatalf("files = %s", got)
	}
	b := res.Files[0].Blocks[0]
	// dn1 from the static resolver; the others from the NameNode's topology paths.
	if got := strings.Join(b.Racks, ","); got != "/static1,/rack1,/rack2" {
		t.Fatalf("racks = %s", got)
	}
	hb := res.HostBytes()
	if hb["dn1.example.com"] != 134217728+31457280+2*1048576 || hb["dn2.example.com"] != 2*134217728 {
		t.Fatalf("HostBytes = %v", hb)
	}
	rb := res.RackBytes()
	if rb["/rack3"] != 31457280+2*1048576 {
		t.Fatalf("RackBytes = %v", rb)
	}
	if got := res.Files[0].BlocksIn(134217728-1, 2); len(got) != 2 {
		t.Fatalf("BlocksIn across a boundary = %d blocks", len(got))
	}
	if h.metric(t, "rmsidecar_locality_cache_hits_total") != 1 || h.metric(t, "rmsidecar_locality_cache_misses_total") != 1 ||
		h.metric(t, "rmsidecar_locality_cache_entries") != 1 {
		t.Fatal("metrics after miss then hit")
	}
}

func TestLookupNeverBlocks(t *testing.T) {
	h := newHarness(t, Options{})
	h.ns.block = make(chan struct{})
	defer close(h.ns.block)
	done := make(chan struct{})
	go func() {
		for i := range 100 {
			h.r.Lookup(fmt.Sprintf("/data/p%d", i))
		}
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(2 * time.Second):
		t.Fatal("Lookup blocked on a hung NameNode")
	}
	// Resolve honours its context even when the NameNode hangs.
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, err := h.r.Resolve(ctx, []string{"/data/single"}); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Resolve on hung NameNode: %v", err)
	}
}

func TestTTLExpiryWithInjectedClock(t *testing.T) {
	h := newHarness(t, Options{TTL: time.Minute})
	ctx := context.Background()
	if _, err := h.r.Resolve(ctx, []string{"/data/single"}); err != nil {
		t.Fatal(err)
	}
	hits := h.nn.hits.Load()

	h.clock.Advance(30 * time.Second)
	if res, ok := h.r.Lookup("/data/single"); !ok || res.Stale {
		t.Fatal("fresh entry served stale")
	}
	waitIdle(t, h.r)
	if h.nn.hits.Load() != hits {
		t.Fatal("refresh before 3/4 TTL")
	}

	h.clock.Advance(20 * time.Second) // 50s: refresh ahead, still fresh
	if res, ok := h.r.Lookup("/data/single"); !ok || res.Stale {
		t.Fatal("entry at 50s of 60s not fresh")
	}
	waitIdle(t, h.r)
	if h.nn.hits.Load() != hits+1 {
		t.Fatalf("refresh-ahead did not ask the NameNode (%d)", h.nn.hits.Load()-hits)
	}

	h.clock.Advance(61 * time.Second) // past TTL of the refreshed answer
	res, ok := h.r.Lookup("/data/single")
	if !ok || !res.Stale || res.Err != nil {
		t.Fatalf("expired lookup: ok=%v stale=%v err=%v", ok, res.Stale, res.Err)
	}
	waitIdle(t, h.r)
	if res, _ := h.r.Lookup("/data/single"); res.Stale {
		t.Fatal("still stale after refresh")
	}
	if h.metric(t, "rmsidecar_locality_stale_serves_total") != 1 {
		t.Fatal("stale serve not counted")
	}
	// Resolve re-fetches expired entries instead of serving them.
	h.clock.Advance(2 * time.Minute)
	before := h.nn.hits.Load()
	res2, _ := h.r.Resolve(ctx, []string{"/data/single"})
	if res2[0].Stale || h.nn.hits.Load() != before+1 {
		t.Fatal("Resolve served an expired entry")
	}
}

func TestLRUBound(t *testing.T) {
	h := newHarness(t, Options{MaxEntries: 3})
	ctx := context.Background()
	paths := []string{"/data/in/part-00000", "/data/in/part-00001", "/data/single", "/data/in/sub/part-00000", "/data/empty"}
	for _, p := range paths[:3] {
		h.r.Resolve(ctx, []string{p})
	}
	h.r.Lookup(paths[0]) // touch: paths[1] is now least recently used
	h.r.Resolve(ctx, paths[3:4])
	if h.metric(t, "rmsidecar_locality_cache_entries") != 3 {
		t.Fatalf("entries = %v", h.metric(t, "rmsidecar_locality_cache_entries"))
	}
	for i, want := range []bool{true, false, true, true} {
		h.r.mu.Lock()
		_, ok := h.r.cache.m[normalizeOrDie(t, paths[i])]
		h.r.mu.Unlock()
		if ok != want {
			t.Errorf("%s cached = %v, want %v", paths[i], ok, want)
		}
	}
	h.r.Resolve(ctx, paths)
	if h.r.cache.len() != 3 {
		t.Fatalf("cache grew to %d", h.r.cache.len())
	}
}

func normalizeOrDie(t *testing.T, p string) string {
	k, err := normalizePath(p)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func TestStaleDuringOutageAndRecovery(t *testing.T) {
	h := newHarness(t, Options{TTL: time.Minute, RetryBackoff: 30 * time.Second})
	ctx := context.Background()
	if _, err := h.r.Resolve(ctx, []string{"/data/single", "/data/in"}); err != nil {
		t.Fatal(err)
	}

	// Outage: the NameNode's HTTP side answers 503 and RPC fails.
	h.nn.set(false, true)
	h.ns.setFail(errors.New("dial tcp nn:8020: connection refused"))
	h.clock.Advance(2 * time.Minute)
	for _, p := range []string{"/data/single", "/data/in"} {
		res, ok := h.r.Lookup(p)
		if !ok || !res.Stale || len(res.Files) == 0 {
			t.Fatalf("%s during outage: ok=%v %+v", p, ok, res)
		}
	}
	waitIdle(t, h.r)
	res, ok := h.r.Lookup("/data/single")
	if !ok || !res.Stale || !errors.Is(res.Err, ErrUnavailable) && !strings.Contains(res.Err.Error(), "connection refused") {
		t.Fatalf("stale result should carry the failure: ok=%v stale=%v err=%v", ok, res.Stale, res.Err)
	}
	if !h.r.Outage() {
		t.Fatal("outage not detected")
	}
	// Resolve during the outage returns the stale answer with the error.
	rs, err := h.r.Resolve(ctx, []string{"/data/single", "/never/seen"})
	if err != nil {
		t.Fatal(err)
	}
	if !rs[0].Stale || rs[0].Err == nil || len(rs[0].Files) != 1 {
		t.Fatalf("Resolve stale = %+v", rs[0])
	}
	if rs[1].Err == nil || len(rs[1].Files) != 0 || rs[1].Stale {
		t.Fatalf("Resolve unknown path during outage = %+v", rs[1])
	}

	// Backoff: within RetryBackoff, Lookups do not ask the NameNode again.
	calls := h.ns.calls.Load()
	for range 10 {
		h.r.Lookup("/data/single")
	}
	waitIdle(t, h.r)
	if h.ns.calls.Load() != calls {
		t.Fatalf("%d NameNode calls during backoff", h.ns.calls.Load()-calls)
	}
	if n := strings.Count(h.logs.String(), "NameNode unreachable"); n != 1 {
		t.Fatalf("outage logged %d times:\n%s", n, h.logs.String())
	}
	if h.metric(t, "rmsidecar_locality_namenode_outages_total") != 1 || h.metric(t, "rmsidecar_locality_errors_total", "reason", "unavailable") < 3 ||
		h.metric(t, "rmsidecar_locality_stale_serves_total") < 4 {
		t.Fatalf("outage metrics: outages %v errors %v stale %v", h.metric(t, "rmsidecar_locality_namenode_outages_total"),
			h.metric(t, "rmsidecar_locality_errors_total", "reason", "unavailable"), h.metric(t, "rmsidecar_locality_stale_serves_total"))
	}

	// Recovery.
	h.nn.set(false, false)
	h.ns.setFail(nil)
	h.clock.Advance(31 * time.Second)
	h.r.Lookup("/data/single")
	waitIdle(t, h.r)
	res, ok = h.r.Lookup("/data/single")
	if !ok || res.Stale || res.Err != nil {
		t.Fatalf("after recovery: ok=%v %+v", ok, res)
	}
	if h.r.Outage() || !strings.Contains(h.logs.String(), "NameNode answering again") {
		t.Fatalf("recovery not noticed:\n%s", h.logs.String())
	}
	// A second outage is logged again (once).
	h.nn.set(false, true)
	h.clock.Advance(2 * time.Minute)
	h.r.Lookup("/data/single")
	waitIdle(t, h.r)
	if n := strings.Count(h.logs.String(), "NameNode unreachable"); n != 2 {
		t.Fatalf("second outage logged %d times in total", n)
	}
}

func TestNotFoundIsCachedNotAnOutage(t *testing.T) {
	h := newHarness(t, Options{})
	ctx := context.Background()
	rs, _ := h.r.Resolve(ctx, []string{"/no/such", "/data/in/ghost"})
	for _, r := range rs {
		if !errors.Is(r.Err, os.ErrNotExist) {
			t.Fatalf("%s: %v", r.Path, r.Err)
		}
	}
	// Namespace says the file exists but the NameNode has no blocks for it
	// (deleted in between): for a single-file path that is not-found too.
	h.ns.files["/data/gone"] = 10
	rs, _ = h.r.Resolve(ctx, []string{"/data/gone"})
	if !errors.Is(rs[0].Err, os.ErrNotExist) {
		t.Fatalf("gone: %v", rs[0].Err)
	}
	// In a directory, a vanished file is skipped.
	h.ns.files["/data/in/part-00002"] = 10
	rs, _ = h.r.Resolve(ctx, []string{"/data/in"})
	if rs[0].Err != nil || len(rs[0].Files) != 3 {
		t.Fatalf("dir with vanished file: %+v", rs[0])
	}
	calls := h.ns.calls.Load()
	res, ok := h.r.Lookup("/no/such")
	if !ok || !errors.Is(res.Err, os.ErrNotExist) || h.ns.calls.Load() != calls {
		t.Fatalf("not-found not served from cache: ok=%v %v", ok, res.Err)
	}
	h.clock.Advance(2 * time.Hour) // expired not-found answers keep their error
	if res, ok := h.r.Lookup("/no/such"); !ok || !res.Stale || !errors.Is(res.Err, os.ErrNotExist) {
		t.Fatalf("expired not-found: ok=%v %+v", ok, res)
	}
	waitIdle(t, h.r)
	if h.r.Outage() || h.metric(t, "rmsidecar_locality_errors_total", "reason", "not_found") != 4 {
		t.Fatalf("outage=%v not_found=%v", h.r.Outage(), h.metric(t, "rmsidecar_locality_errors_total", "reason", "not_found"))
	}
	// Empty files need no block call; bad paths fail without a fetch.
	rs, _ = h.r.Resolve(ctx, []string{"/data/empty", "relative/path", "s3a://bucket/x"})
	if rs[0].Err != nil || len(rs[0].Files) != 1 || rs[0].Files[0].Blocks != nil {
		t.Fatalf("empty file: %+v", rs[0])
	}
	if rs[1].Err == nil || rs[2].Err == nil || !strings.Contains(rs[2].Err.Error(), "not HDFS") {
		t.Fatalf("bad paths: %v / %v", rs[1].Err, rs[2].Err)
	}
}

func TestResolveBatchDedupAndBound(t *testing.T) {
	h := newHarness(t, Options{Concurrency: 2, MaxFilesPerPath: 2})
	var cur, peak atomic.Int64
	inner := h.r.loc
	h.r.loc = locatorFunc(func(ctx context.Context, p string, n int64) ([]Block, error) {
		c := cur.Add(1)
		for {
			old := peak.Load()
			if c <= old || peak.CompareAndSwap(old, c) {
				break
			}
		}
		time.Sleep(5 * time.Millisecond)
		defer cur.Add(-1)
		return inner.BlockLocations(ctx, p, n)
	})
	for i := range 8 {
		h.ns.files[fmt.Sprintf("/batch/f%d", i)] = 1048576
		h.nn.fixtures[fmt.Sprintf("/batch/f%d", i)] = "blocks_part-00001.json"
	}
	var paths []string
	for i := range 8 {
		p := fmt.Sprintf("/batch/f%d", i)
		paths = append(paths, p, p, "hdfs://x"+p)
	}
	rs, err := h.r.Resolve(context.Background(), paths)
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != 24 {
		t.Fatalf("%d results", len(rs))
	}
	for i, r := range rs {
		if r.Err != nil || r.Path != paths[i/3*3] || len(r.Files) != 1 {
			t.Fatalf("result %d = %+v", i, r)
		}
	}
	if got := h.nn.hits.Load(); got != 8 {
		t.Fatalf("NameNode asked %d times for 8 distinct paths", got)
	}
	if peak.Load() > 2 {
		t.Fatalf("peak concurrency %d > 2", peak.Load())
	}
	// MaxFilesPerPath truncates a big directory.
	rs, _ = h.r.Resolve(context.Background(), []string{"/batch"})
	if !rs[0].Truncated || len(rs[0].Files) != 2 {
		t.Fatalf("truncation: %+v", rs[0])
	}
}

type locatorFunc func(ctx context.Context, p string, n int64) ([]Block, error)

func (f locatorFunc) BlockLocations(ctx context.Context, p string, n int64) ([]Block, error) {
	return f(ctx, p, n)
}

func TestMaxPendingDropsRefreshes(t *testing.T) {
	h := newHarness(t, Options{MaxPending: 2})
	h.ns.block = make(chan struct{})
	for i := range 5 {
		h.r.Lookup(fmt.Sprintf("/p%d", i))
	}
	if got := h.metric(t, "rmsidecar_locality_refresh_dropped_total"); got != 3 {
		t.Fatalf("dropped = %v", got)
	}
	close(h.ns.block)
	waitIdle(t, h.r)
}

func TestConcurrentLookupsRace(t *testing.T) {
	h := newHarness(t, Options{MaxEntries: 4, TTL: time.Second})
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 200 {
				p := []string{"/data/in", "/data/single", "/data/empty", "/no", "/data/in/sub"}[(g+i)%5]
				if i%50 == 0 {
					h.r.Resolve(context.Background(), []string{p, "/data/single"})
				} else {
					h.r.Lookup(p)
				}
				if i%40 == 0 {
					h.clock.Advance(500 * time.Millisecond)
				}
			}
		}()
	}
	wg.Wait()
	waitIdle(t, h.r)
	// With 5 paths over 4 entries any one may have been evicted: make sure
	// the one looked up after Close is cached.
	if _, err := h.r.Resolve(context.Background(), []string{"/data/single"}); err != nil {
		t.Fatal(err)
	}
	if err := h.r.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := h.r.Resolve(context.Background(), []string{"/x"}); !errors.Is(err, ErrClosed) {
		t.Fatalf("Resolve after Close: %v", err)
	}
	if _, ok := h.r.Lookup("/data/single"); !ok {
		t.Fatal("Lookup after Close should still serve the cache")
	}
}
