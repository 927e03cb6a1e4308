package hdfslocality

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path"
	"sync"
	"time"

	krbclient "github.com/jcmturner/gokrb5/v8/client"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"
)

// Options tune a Resolver. Zero values take the documented defaults.
type Options struct {
	// Logger receives outage transitions (once per outage) and nothing per
	// lookup. The zero Logger discards.
	Logger zerolog.Logger
	// Registerer receives the metrics; nil leaves them unregistered.
	Registerer prometheus.Registerer
	// Racks maps datanode hosts to racks. Hosts it does not know take the
	// rack from the NameNode's topology path, else DefaultRack.
	Racks RackResolver
	// TTL is how long an answer is fresh (default 10m). Older answers are
	// still served, marked Stale, while a refresh runs in the background.
	TTL time.Duration
	// MaxEntries bounds the cache (default 10000 paths, LRU eviction).
	MaxEntries int
	// Concurrency bounds NameNode work: paths fetched at once, and
	// WebHDFS calls at once within one path (default 4).
	Concurrency int
	// MaxPending bounds background refreshes queued by Lookup (default
	// 1024); beyond it Lookup drops the refresh (counted) and a later
	// Lookup schedules it again.
	MaxPending int
	// RetryBackoff is the least time between two refresh attempts of one
	// path after a failure (default 30s), so an outage is not a storm.
	RetryBackoff time.Duration
	// MaxFilesPerPath bounds the files one input directory expands to
	// (default 10000); a result cut there has Truncated set.
	MaxFilesPerPath int
	// FetchTimeout bounds one path's resolution (default 60s).
	FetchTimeout time.Duration
	// Now is the clock (default time.Now); tests inject one.
	Now func() time.Time

	// The remaining options are used only by NewFromConfDir.

	// User for simple authentication (RPC user and WebHDFS user.name).
	// Default: $HADOOP_USER_NAME, else the OS user.
	User string
	// KerberosClient is a logged-in gokrb5 client; required when the
	// configuration says hadoop.security.authentication=kerberos.
	KerberosClient *krbclient.Client
	// HTTPTimeout bounds one WebHDFS request (default 20s).
	HTTPTimeout time.Duration
	// DialTimeout bounds connecting to a NameNode's RPC port (default 10s).
	DialTimeout time.Duration
}

func (o *Options) defaults() {
	if o.TTL <= 0 {
		o.TTL = 10 * time.Minute
	}
	if o.MaxEntries <= 0 {
		o.MaxEntries = 10000
	}
	if o.Concurrency <= 0 {
		o.Concurrency = 4
	}
	if o.MaxPending <= 0 {
		o.MaxPending = 1024
	}
	if o.RetryBackoff <= 0 {
		o.RetryBackoff = 30 * time.Second
	}
	if o.MaxFilesPerPath <= 0 {
		o.MaxFilesPerPath = 10000
	}
	if o.FetchTimeout <= 0 {
		o.FetchTimeout = 60 * time.Second
	}
	if o.Now == nil {
		o.Now = time.Now
	}
}

// Result is the locality of one input path. Its slices are shared with the
// cache: treat them as read-only.
type Result struct {
	Path      string    // normalized absolute path
	Files     []File    // files under Path (Path itself for a file)
	Truncated bool      // expansion stopped at MaxFilesPerPath
	FetchedAt time.Time // when the NameNode gave this answer
	// Stale is true when the answer is older than the TTL: the NameNode
	// could not be asked again yet (refresh pending) or did not answer.
	Stale bool
	// Err is the error of the last attempt, if it failed: for a stale
	// result, why it could not be refreshed; for a missing path, an error
	// matching os.ErrNotExist.
	Err error
}

// File is one file and its blocks.
type File struct {
	Path   string  `json:"path"`
	Size   int64   `json:"size"`
	Blocks []Block `json:"blocks"`
}

// HostBytes sums, per host, the bytes of the blocks it holds a replica of:
// the usual node-locality score for placing a task that reads the path.
func (r Result) HostBytes() map[string]int64 {
	out := map[string]int64{}
	for _, f := range r.Files {
		for _, b := range f.Blocks {
			for _, h := range b.Hosts {
				out[h] += b.Length
			}
		}
	}
	return out
}

// RackBytes sums, per rack, the bytes of blocks with a replica in the rack
// (a block counts once per rack however many replicas it has there).
func (r Result) RackBytes() map[string]int64 {
	out := map[string]int64{}
	for _, f := range r.Files {
		for _, b := range f.Blocks {
			seen := map[string]bool{}
			for _, rack := range b.Racks {
				if !seen[rack] {
					seen[rack] = true
					out[rack] += b.Length
				}
			}
		}
	}
	return out
}

// BlocksIn returns the blocks of f overlapping [offset, offset+length): the
// blocks of one input split.
func (f File) BlocksIn(offset, length int64) []Block {
	var out []Block
	for _, b := range f.Blocks {
		if b.Offset < offset+length && offset < b.Offset+b.Length {
			out = append(out, b)
		}
	}
	return out
}

// call is one fetch in flight, shared by every caller asking for the path.
type call struct {
	done chan struct{}
	res  Result
	err  error
}

// Resolver resolves input paths to block locations with a bounded TTL
// cache. It is safe for concurrent use.
type Resolver struct {
	ns    Namespace
	loc   BlockLocator
	racks RackResolver
	opts  Options
	log   zerolog.Logger
	m     *metrics

	sem     chan struct{} // bounds concurrent path fetches
	ctx     context.Context
	cancel  context.CancelFunc
	wg      sync.WaitGroup
	closers []io.Closer

	mu          sync.Mutex
	cache       *lru
	inflight    map[string]*call
	outage      bool
	outageSince time.Time
	closed      bool
}

// New builds a Resolver over any namespace and block locator (fakes in
// tests, colinmarc + WebHDFS in production via NewFromConfDir).
func New(ns Namespace, loc BlockLocator, opts Options) (*Resolver, error) {
	if ns == nil || loc == nil {
		return nil, errors.New("hdfslocality: New needs a Namespace and a BlockLocator")
	}
	m, err := newMetrics(opts.Registerer)
	if err != nil {
		return nil, err
	}
	return newResolver(ns, loc, opts, m), nil
}

func newResolver(ns Namespace, loc BlockLocator, opts Options, m *metrics) *Resolver {
	opts.defaults()
	ctx, cancel := context.WithCancel(context.Background())
	return &Resolver{
		ns: ns, loc: loc, racks: opts.Racks, opts: opts, log: opts.Logger, m: m,
		sem:      make(chan struct{}, opts.Concurrency),
		ctx:      ctx,
		cancel:   cancel,
		cache:    newLRU(opts.MaxEntries),
		inflight: map[string]*call{},
	}
}

// Close stops background refreshes, waits for them, and closes the
// NameNode connection the resolver opened itself.
func (r *Resolver) Close() error {
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return nil
	}
	r.closed = true
	r.mu.Unlock()
	r.cancel()
	r.wg.Wait()
	var errs []error
	for _, c := range r.closers {
		errs = append(errs, c.Close())
	}
	return errors.Join(errs...)
}

// Lookup never blocks on the NameNode. It returns the cached answer for
// path and ok=true, or ok=false when nothing is cached yet. A missing,
// expired or nearly expired entry gets a background refresh; an expired
// entry is returned with Stale set. A later Lookup sees the refreshed answer.
func (r *Resolver) Lookup(p string) (Result, bool) {
	key, err := normalizePath(p)
	if err != nil {
		return Result{Path: p, Err: err}, false
	}
	now := r.opts.Now()
	r.mu.Lock()
	defer r.mu.Unlock()
	e, ok := r.cache.get(key)
	if ok && e.has {
		res := e.res
		age := now.Sub(e.fetched)
		if age < r.opts.TTL {
			r.m.hits.Inc()
			// Refresh ahead of expiry so a busy path rarely goes stale.
			if age >= r.opts.TTL*3/4 && !now.Before(e.retryAt) {
				r.scheduleLocked(key)
			}
			return res, true
		}
		res.Stale = true
		if e.lastErr != nil {
			res.Err = e.lastErr // else keep a cached not-found answer's error
		}
		r.m.stale.Inc()
		if !now.Before(e.retryAt) {
			r.scheduleLocked(key)
		}
		return res, true
	}
	r.m.misses.Inc()
	res := Result{Path: key}
	if ok {
		res.Err = e.lastErr
	}
	if !ok || !now.Before(e.retryAt) {
		r.scheduleLocked(key)
	}
	return res, false
}

// scheduleLocked starts a background fetch unless one is in flight or too
// many are pending. r.mu must be held.
func (r *Resolver) scheduleLocked(key string) {
	if r.closed {
		return
	}
	if _, busy := r.inflight[key]; busy {
		return
	}
	if len(r.inflight) >= r.opts.MaxPending {
		r.m.dropped.Inc()
		return
	}
	r.startLocked(key)
}

// startLocked registers and launches a fetch of key. r.mu must be held.
func (r *Resolver) startLocked(key string) *call {
	c := &call{done: make(chan struct{})}
	r.inflight[key] = c
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		defer close(c.done)
		c.res, c.err = r.fetchBounded(key)
		r.store(key, c)
	}()
	return c
}

// Resolve resolves many paths, waiting for the NameNode where the cache has
// no fresh answer. Paths are de-duplicated; NameNode work is bounded by
// Options.Concurrency and shared with Lookup's refreshes. Results are in the
// order of paths; per-path failures are in Result.Err (with the stale answer
// when one is cached). The error is non-nil only when ctx ends first.
func (r *Resolver) Resolve(ctx context.Context, paths []string) ([]Result, error) {
	out := make([]Result, len(paths))
	type pending struct {
		key string
		c   *call
		idx []int
	}
	byKey := map[string]*pending{}
	var order []*pending
	now := r.opts.Now()

	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return nil, ErrClosed
	}
	for i, p := range paths {
		key, err := normalizePath(p)
		if err != nil {
			out[i] = Result{Path: p, Err: err}
			continue
		}
		if pd, ok := byKey[key]; ok {
			pd.idx = append(pd.idx, i)
			continue
		}
		if e, ok := r.cache.get(key); ok && e.has && now.Sub(e.fetched) < r.opts.TTL {
			r.m.hits.Inc()
			out[i] = e.res
			byKey[key] = &pending{key: key, idx: []int{i}} // c nil: answered
			continue
		}
		r.m.misses.Inc()
		c, busy := r.inflight[key]
		if !busy {
			c = r.startLocked(key)
		}
		pd := &pending{key: key, c: c, idx: []int{i}}
		byKey[key] = pd
		order = append(order, pd)
	}
	r.mu.Unlock()

	for _, pd := range byKey {
		if pd.c == nil {
			for _, i := range pd.idx[1:] {
				out[i] = out[pd.idx[0]]
			}
		}
	}
	for _, pd := range order {
		select {
		case <-pd.c.done:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		res := r.afterFetch(pd.key, pd.c)
		for _, i := range pd.idx {
			out[i] = res
		}
	}
	return out, nil
}

// afterFetch turns a finished call into what Resolve returns: the fresh
// answer, or the stale cached one annotated with the failure.
func (r *Resolver) afterFetch(key string, c *call) Result {
	if c.err == nil {
		return c.res
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if e, ok := r.cache.get(key); ok && e.has {
		res := e.res
		res.Stale = true
		res.Err = c.err
		r.m.stale.Inc()
		return res
	}
	return Result{Path: key, Err: c.err}
}

// fetchBounded waits for a concurrency slot, then fetches.
func (r *Resolver) fetchBounded(key string) (Result, error) {
	select {
	case r.sem <- struct{}{}:
	case <-r.ctx.Done():
		return Result{}, fmt.Errorf("hdfslocality: %s: %w", key, ErrClosed)
	}
	defer func() { <-r.sem }()
	ctx, cancel := context.WithTimeout(r.ctx, r.opts.FetchTimeout)
	defer cancel()
	start := time.Now()
	res, err := r.fetch(ctx, key)
	r.m.fetchDur.Observe(time.Since(start).Seconds())
	if err != nil {
		return Result{}, fmt.Errorf("hdfslocality: %s: %w", key, err)
	}
	return res, nil
}

// fetch asks the NameNode: expand the path to files, then get each file's
// block locations (a few files at a time), then attach racks.
func (r *Resolver) fetch(ctx context.Context, key string) (Result, error) {
	// colinmarc's calls take no context; run the expansion aside so a hung
	// RPC cannot outlive FetchTimeout or Close (the goroutine ends when the
	// RPC does).
	type expanded struct {
		refs      []fileRef
		truncated bool
		err       error
	}
	ch := make(chan expanded, 1)
	go func() {
		refs, truncated, err := expand(ctx, r.ns, key, r.opts.MaxFilesPerPath)
		ch <- expanded{refs, truncated, err}
	}()
	var ex expanded
	select {
	case ex = <-ch:
	case <-ctx.Done():
		return Result{}, ctx.Err()
	}
	if ex.err != nil {
		return Result{}, ex.err
	}
	refs, truncated := ex.refs, ex.truncated
	files := make([]File, len(refs))
	errs := make([]error, len(refs))
	work := make(chan int)
	var wg sync.WaitGroup
	for range min(r.opts.Concurrency, len(refs)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				f := refs[i]
				files[i] = File{Path: f.path, Size: f.size}
				if f.size == 0 {
					continue
				}
				blocks, err := r.loc.BlockLocations(ctx, f.path, f.size)
				if err != nil {
					errs[i] = err
					continue
				}
				for j := range blocks {
					r.attachRacks(&blocks[j])
				}
				files[i].Blocks = blocks
			}
		}()
	}
feed:
	for i := range refs {
		select {
		case work <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(work)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return Result{}, err
	}
	kept := files[:0]
	for i, err := range errs {
		switch {
		case err == nil:
			kept = append(kept, files[i])
		case len(refs) > 1 && errorReason(err) == "not_found":
			// A file deleted between listing and asking for its blocks
			// (a job's output being replaced): skip it, keep the rest.
		default:
			return Result{}, err
		}
	}
	return Result{Path: key, Files: kept, Truncated: truncated, FetchedAt: r.opts.Now()}, nil
}

// attachRacks fills b.Racks: the RackResolver first (it reflects the RM's
// view, which placement uses), then the NameNode's topology path, then
// DefaultRack.
func (r *Resolver) attachRacks(b *Block) {
	b.Racks = make([]string, len(b.Hosts))
	for i, h := range b.Hosts {
		if r.racks != nil {
			if rack, ok := r.racks.Rack(h); ok {
				b.Racks[i] = rack
				continue
			}
			if i < len(b.Names) {
				if rack, ok := r.racks.Rack(b.Names[i]); ok {
					b.Racks[i] = rack
					continue
				}
			}
		}
		if i < len(b.topologyPaths) {
			if d := path.Dir(b.topologyPaths[i]); d != "/" && d != "." && d != "" {
				b.Racks[i] = d
				continue
			}
		}
		b.Racks[i] = DefaultRack
	}
}

// store records a finished fetch in the cache and tracks outages.
func (r *Resolver) store(key string, c *call) {
	now := r.opts.Now()
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.inflight, key)
	if r.ctx.Err() != nil {
		return // closing: a cancelled fetch says nothing about the NameNode
	}
	reason := ""
	if c.err != nil {
		reason = errorReason(c.err)
		r.m.errors.WithLabelValues(reason).Inc()
	}
	switch {
	case reason == "unavailable":
		if !r.outage {
			r.outage, r.outageSince = true, now
			r.m.outages.Inc()
			r.log.Warn().Err(c.err).Msg("hdfslocality: NameNode unreachable; serving stale locality until it answers again")
		}
	case r.outage:
		r.outage = false
		r.log.Info().Dur("outage", now.Sub(r.outageSince)).Msg("hdfslocality: NameNode answering again")
	}

	switch reason {
	case "":
		r.cache.put(&entry{key: key, res: c.res, has: true, fetched: c.res.FetchedAt})
	case "not_found", "permission":
		// A definite answer: cache it like data, for the TTL.
		r.cache.put(&entry{key: key, res: Result{Path: key, Err: c.err, FetchedAt: now}, has: true, fetched: now})
	default:
		// Keep the old answer (served as stale) and back off.
		e, ok := r.cache.get(key)
		if !ok {
			e = &entry{key: key}
		}
		ne := *e
		ne.lastErr = c.err
		ne.retryAt = now.Add(r.opts.RetryBackoff)
		r.cache.put(&ne)
	}
	r.m.entries.Set(float64(r.cache.len()))
}

// Outage reports whether the NameNode is currently considered unreachable.
func (r *Resolver) Outage() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.outage
}
