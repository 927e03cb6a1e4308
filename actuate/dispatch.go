package actuate

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rs/zerolog"

	"github.com/rmsidecar/rmsidecar/policy"
)

// Metrics is what the dispatcher reports; the sidecar backs it with
// Prometheus counters.
type Metrics interface {
	// ActuationError counts one failed delivery attempt.
	ActuationError(actuator string)
	// Actuated counts one delivered hint.
	Actuated(actuator string)
	// GaveUp counts a hint the actuator could not deliver after every retry.
	GaveUp(actuator string)
}

// QueueMetrics is what a Metrics may also report about the actuators'
// queues and health (optional, so existing Metrics keep working).
type QueueMetrics interface {
	// Dropped counts a hint that left an actuator's queue undelivered:
	// reason "full" (the queue was at its bound and this was the oldest).
	Dropped(actuator, reason string)
	// Coalesced counts a queued or retried hint replaced by a newer hint
	// for the same target before it was delivered.
	Coalesced(actuator string)
	// Degraded reports whether an actuator is failing (DegradedAfter
	// consecutive failed attempts) or healthy again.
	Degraded(actuator string, degraded bool)
}

type nopMetrics struct{}

func (nopMetrics) ActuationError(string) {}
func (nopMetrics) Actuated(string)       {}
func (nopMetrics) GaveUp(string)         {}

// Options configure a Dispatcher.
type Options struct {
	Actuators []Actuator
	// Journal remembers delivered hints across restarts (nil: no memory).
	Journal Journal
	// Leader reports whether this instance actuates cluster-wide hints
	// (nil: it does). See IsClusterWide.
	Leader func() bool
	// QueueSize bounds each actuator's queue (default 1024). Dispatch never
	// blocks: when a queue is full its oldest hint is dropped and counted,
	// because an actuator that cannot keep up (an RM that is down) must not
	// stop the engine, and the newest decisions are the ones worth keeping.
	QueueSize int
	// MaxAttempts is how often a delivery is tried before giving up (default 8).
	MaxAttempts int
	// Backoff is the first retry delay, doubled up to MaxBackoff
	// (defaults 100ms and 10s).
	Backoff, MaxBackoff time.Duration
	// AttemptTimeout bounds one delivery attempt (default 10s): a
	// ResourceManager that accepts the connection and never answers must
	// not hold the worker, or shutdown, forever.
	AttemptTimeout time.Duration
	// DegradedAfter is how many consecutive failed attempts mark an
	// actuator degraded (default 3); one success clears it.
	DegradedAfter int
	// DrainTimeout is how long Close lets the workers deliver what is
	// queued before it gives up on them (default 3s); what is left stays in
	// the checkpoint's outbox (see Pending) and is delivered after a restart.
	DrainTimeout time.Duration
	Metrics      Metrics
	Log          zerolog.Logger
	// Now is the event-time clock (epoch ms); a hint that expires while
	// its delivery is being retried is given up on (and reported) rather
	// than acted on late.
	// Nil: hints never expire in the dispatcher.
	Now func() int64
}

// Dispatcher fans hints out to actuators, each on its own worker with its
// own bounded, coalescing queue.
type Dispatcher struct {
	o       Options
	qm      QueueMetrics // nil unless Metrics implements it
	workers []*worker
	wg      sync.WaitGroup
	stop    context.CancelFunc
	mu      sync.Mutex
	closed  bool
	aborted atomic.Bool
}

// NewDispatcher returns a dispatcher; Start runs its workers.
func NewDispatcher(o Options) *Dispatcher {
	if o.QueueSize <= 0 {
		o.QueueSize = 1024
	}
	if o.MaxAttempts <= 0 {
		o.MaxAttempts = 8
	}
	if o.Backoff <= 0 {
		o.Backoff = 100 * time.Millisecond
	}
	if o.MaxBackoff <= 0 {
		o.MaxBackoff = 10 * time.Second
	}
	if o.AttemptTimeout <= 0 {
		o.AttemptTimeout = 10 * time.Second
	}
	if o.DegradedAfter <= 0 {
		o.DegradedAfter = 3
	}
	if o.DrainTimeout <= 0 {
		o.DrainTimeout = 3 * time.Second
	}
	if o.Metrics == nil {
		o.Metrics = nopMetrics{}
	}
	if o.Journal == nil {
		o.Journal = NewMemoryJournal()
	}
	d := &Dispatcher{o: o, stop: func() {}}
	d.qm, _ = o.Metrics.(QueueMetrics)
	for _, a := range o.Actuators {
		d.workers = append(d.workers, &worker{a: a, name: a.Name(), q: newQueue(o.QueueSize)})
	}
	return d
}

// IsClusterWide reports whether a hint concerns the whole cluster rather
// than one app: node capacity, node class and per-queue ratios. With several
// instances in one group only the leader actuates these, so the RM does not
// get the same decision from every instance.
func IsClusterWide(h *policy.Hint) bool {
	switch h.Kind {
	case policy.KindNodeCapacity, policy.KindNodeClass:
		return true
	case policy.KindRatio:
		return h.App == ""
	}
	return false
}

// Start runs one worker per actuator until Close. ctx bounds retries: when
// it is done, the hint being retried is given up (and reported) and the
// workers stop, leaving the rest queued (see Pending).
func (d *Dispatcher) Start(ctx context.Context) {
	ctx, d.stop = context.WithCancel(ctx)
	for _, w := range d.workers {
		d.wg.Add(1)
		go func() {
			defer d.wg.Done()
			for {
				e := w.q.next(ctx)
				if e == nil {
					return
				}
				if ctx.Err() != nil {
					// Stopping: what is still queued stays undelivered (the
					// final checkpoint's outbox has it) rather than each
					// hint failing, logging and counting against the actuator.
					w.q.finish(e)
					return
				}
				if !d.aborted.Load() {
					d.deliver(ctx, w, e)
				}
				w.q.finish(e)
			}
		}()
	}
}

// Dispatch queues hints for every actuator and returns at once: it never
// waits for an actuator (see Options.QueueSize). It copies what it keeps, so
// the caller may reuse hs. It returns how many hints were queued
// (cluster-wide hints of a non-leader are not).
func (d *Dispatcher) Dispatch(_ context.Context, hs []policy.Hint) (int, error) {
	d.mu.Lock()
	closed := d.closed
	d.mu.Unlock()
	if closed {
		return 0, errors.New("dispatch: dispatcher closed")
	}
	n := 0
	for i := range hs {
		h := hs[i]
		if IsClusterWide(&h) && d.o.Leader != nil && !d.o.Leader() {
			continue
		}
		h.Nodes = append([]policy.NodeScore(nil), h.Nodes...)
		target := h.Target()
		for _, w := range d.workers {
			coalesced, dropped := w.q.push(h, target)
			if coalesced && d.qm != nil {
				d.qm.Coalesced(w.name)
			}
			if dropped != nil {
				d.dropped(w, dropped)
			}
		}
		n++
	}
	return n, nil
}

// dropped reports a hint pushed out of a full queue.
func (d *Dispatcher) dropped(w *worker, h *policy.Hint) {
	if d.qm != nil {
		d.qm.Dropped(w.name, "full")
	}
	// Every drop is counted; the log says so for the first and then every
	// thousandth, so an outage does not flood the log.
	if n := w.drops.Add(1); n == 1 || n%1000 == 0 {
		d.o.Log.Warn().Str("actuator", w.name).Str("hint", h.ID).Str("kind", string(h.Kind)).
			Str("target", h.Target()).Int64("dropped_so_far", n).
			Msg("actuator queue full: dropped its oldest hint (rmsidecar_actuation_dropped_total)")
	}
}

// Pending returns the hints queued or being delivered to any actuator, once
// each, oldest first. The live loop stores them in its checkpoint before it
// commits offsets, and hands them back to Dispatch after a restart: the
// checkpoint, not the delivery, is the barrier, so an actuator that is down
// does not hold back ingestion and at-least-once actuation still holds (the
// journal skips those delivered meanwhile).
func (d *Dispatcher) Pending() []policy.Hint {
	var out []policy.Hint
	seen := map[string]bool{}
	for _, w := range d.workers {
		for _, h := range w.q.snapshot() {
			if !seen[h.ID] {
				seen[h.ID] = true
				out = append(out, h)
			}
		}
	}
	return out
}

// Degraded lists the actuators failing right now.
func (d *Dispatcher) Degraded() []string {
	var out []string
	for _, w := range d.workers {
		if w.degraded.Load() {
			out = append(out, w.name)
		}
	}
	return out
}

// Wait blocks until every queued hint has been delivered or given up on
// (tests and drills; the live loop does not wait for actuators).
func (d *Dispatcher) Wait(ctx context.Context) error {
	for _, w := range d.workers {
		for !w.q.idle() {
			select {
			case <-ctx.Done():
				return fmt.Errorf("waiting for actuators: %w", ctx.Err())
			case <-time.After(time.Millisecond):
			}
		}
	}
	return nil
}

// Abort drops whatever is still queued, as a killed process would (crash
// tests and drills); Close must still be called.
func (d *Dispatcher) Abort() {
	d.aborted.Store(true)
	d.stop()
}

// Close stops taking hints and lets the workers deliver what is queued for
// up to DrainTimeout; then it cancels the deliveries in flight and returns
// within a second more even if an actuator ignores cancellation. What was
// not delivered is logged; the final checkpoint holds it (Pending).
func (d *Dispatcher) Close() {
	d.mu.Lock()
	if !d.closed {
		d.closed = true
		for _, w := range d.workers {
			w.q.close()
		}
	}
	d.mu.Unlock()
	done := make(chan struct{})
	go func() {
		d.wg.Wait()
		close(done)
	}()
	select {
	case <-done:
		d.stop()
		return
	case <-time.After(d.o.DrainTimeout):
	}
	d.stop()
	select {
	case <-done:
	case <-time.After(time.Second):
	}
	for _, w := range d.workers {
		if n := len(w.q.snapshot()); n > 0 {
			d.o.Log.Warn().Str("actuator", w.name).Int("hints", n).
				Msg("stopping with hints undelivered; the checkpoint keeps them for the next start")
		}
	}
}

func (d *Dispatcher) deliver(ctx context.Context, w *worker, e *entry) {
	name := w.name
	h := e.h
	if d.o.Journal.Seen(name, &h) {
		return // delivered before a restart and still in force
	}
	delay := d.o.Backoff
	var err error
	for attempt := 1; attempt <= d.o.MaxAttempts; attempt++ {
		// Only a retry is judged against the clock: event time races ahead
		// of the actuators while a backlog is replayed, and the first try of
		// every hint is delivered in order.
		if attempt > 1 && d.o.Now != nil && h.ExpiresTS > 0 && h.ExpiresTS <= d.o.Now() {
			err = errors.Join(err, fmt.Errorf("hint expired at %d before it could be delivered", h.ExpiresTS))
			break
		}
		// A newer hint for the same target arrived while this one was
		// retried: that one is delivered instead.
		if attempt > 1 && w.q.superseded(e) {
			if d.qm != nil {
				d.qm.Coalesced(name)
			}
			return
		}
		actx, cancel := context.WithTimeout(ctx, d.o.AttemptTimeout)
		err = w.a.Deliver(actx, h)
		cancel()
		if err == nil {
			d.healthy(w)
			d.o.Metrics.Actuated(name)
			if jerr := d.o.Journal.Record(name, &h); jerr != nil {
				d.o.Log.Warn().Err(jerr).Str("hint", h.ID).Msg("recording actuated hint")
			}
			return
		}
		d.failed(w, err)
		d.o.Log.Warn().Err(err).Str("actuator", name).Str("hint", h.ID).Int("attempt", attempt).Msg("actuation failed; retrying")
		if attempt == d.o.MaxAttempts {
			break
		}
		if ctx.Err() != nil {
			err = errors.Join(err, ctx.Err())
			break
		}
		select {
		case <-ctx.Done():
			err = errors.Join(err, ctx.Err())
			attempt = d.o.MaxAttempts
		case <-time.After(delay):
		}
		delay = min(2*delay, d.o.MaxBackoff)
	}
	d.o.Metrics.GaveUp(name)
	d.o.Log.Error().Err(err).Str("actuator", name).Str("hint", h.ID).Str("kind", string(h.Kind)).
		Str("target", h.Target()).Msg("hint not delivered: giving up")
}

// failed counts a failed attempt toward the actuator's degraded state.
func (d *Dispatcher) failed(w *worker, err error) {
	d.o.Metrics.ActuationError(w.name)
	if w.failures.Add(1) == int64(d.o.DegradedAfter) && !w.degraded.Swap(true) {
		if d.qm != nil {
			d.qm.Degraded(w.name, true)
		}
		d.o.Log.Error().Err(err).Str("actuator", w.name).Int("failures", d.o.DegradedAfter).
			Msg("actuator degraded: consecutive delivery failures; hints queue (bounded) and retry with backoff")
	}
}

// healthy clears the actuator's failure count and degraded state.
func (d *Dispatcher) healthy(w *worker) {
	w.failures.Store(0)
	if w.degraded.Swap(false) {
		if d.qm != nil {
			d.qm.Degraded(w.name, false)
		}
		d.o.Log.Info().Str("actuator", w.name).Msg("actuator recovered")
	}
}

// worker is one actuator's delivery goroutine state.
type worker struct {
	a        Actuator
	name     string
	q        *queue
	failures atomic.Int64 // consecutive failed attempts
	degraded atomic.Bool
	drops    atomic.Int64
}

// entry is one queued hint. replaced marks an entry whose hint a newer one
// for the same target superseded while it was being delivered.
type entry struct {
	h        policy.Hint
	target   string
	replaced bool
}

// queue is a bounded FIFO of hints with at most one queued hint per target:
// a newer hint for a target replaces the queued one in place (it keeps the
// older one's turn, so a target that changes its mind often is not starved).
type queue struct {
	mu       sync.Mutex
	limit    int
	items    []*entry // items[head:] are queued, oldest first
	head     int
	byTarget map[string]*entry
	inflight *entry
	closed   bool
	wake     chan struct{}
}

func newQueue(limit int) *queue {
	return &queue{limit: limit, byTarget: map[string]*entry{}, wake: make(chan struct{}, 1)}
}

// push queues h; it reports whether h and a queued (or in-flight) hint for
// the same target were coalesced into the newer one, and the hint dropped to
// make room, if any.
func (q *queue) push(h policy.Hint, target string) (coalesced bool, dropped *policy.Hint) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.closed {
		return false, nil
	}
	if e := q.byTarget[target]; e != nil {
		// The newer decision wins, whichever arrived last: a checkpoint's
		// outbox dispatched after a restart must not replace what the
		// engine decided since.
		if h.TS >= e.h.TS {
			e.h = h
		}
		return true, nil
	}
	if q.inflight != nil && q.inflight.target == target {
		if h.TS < q.inflight.h.TS {
			return true, nil // older than the one being delivered
		}
		q.inflight.replaced = true
	}
	if len(q.items)-q.head >= q.limit {
		old := q.items[q.head]
		q.items[q.head] = nil
		q.head++
		delete(q.byTarget, old.target)
		dropped = &old.h
	}
	e := &entry{h: h, target: target}
	q.items = append(q.items, e)
	q.byTarget[target] = e
	select {
	case q.wake <- struct{}{}:
	default:
	}
	return false, dropped
}

// next waits for the oldest queued hint and marks it in flight; nil once
// the queue is closed and empty, or ctx is done.
func (q *queue) next(ctx context.Context) *entry {
	for {
		q.mu.Lock()
		if q.head < len(q.items) {
			e := q.items[q.head]
			q.items[q.head] = nil
			q.head++
			if q.head > 64 && q.head*2 > len(q.items) {
				// Shift down so the array does not grow with every hint.
				q.items = q.items[:copy(q.items, q.items[q.head:])]
				q.head = 0
			}
			delete(q.byTarget, e.target)
			q.inflight = e
			q.mu.Unlock()
			return e
		}
		closed := q.closed
		q.mu.Unlock()
		if closed {
			return nil
		}
		select {
		case <-q.wake:
		case <-ctx.Done():
			return nil
		}
	}
}

// finish marks e delivered or given up on.
func (q *queue) finish(e *entry) {
	q.mu.Lock()
	if q.inflight == e {
		q.inflight = nil
	}
	q.mu.Unlock()
}

func (q *queue) superseded(e *entry) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return e.replaced
}

func (q *queue) close() {
	q.mu.Lock()
	q.closed = true
	q.mu.Unlock()
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

// idle reports whether nothing is queued or in flight.
func (q *queue) idle() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.inflight == nil && q.head == len(q.items)
}

// snapshot copies the hint in flight (unless superseded) and the queued ones.
func (q *queue) snapshot() []policy.Hint {
	q.mu.Lock()
	defer q.mu.Unlock()
	out := make([]policy.Hint, 0, len(q.items)-q.head+1)
	if q.inflight != nil && !q.inflight.replaced {
		out = append(out, q.inflight.h)
	}
	for _, e := range q.items[q.head:] {
		out = append(out, e.h)
	}
	return out
}
