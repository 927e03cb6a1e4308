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
	// QueueSize bounds each actuator's queue (default 1024); Dispatch blocks
	// when a queue is full rather than drop a hint.
	QueueSize int
	// MaxAttempts is how often a delivery is tried before giving up (default 8).
	MaxAttempts int
	// Backoff is the first retry delay, doubled up to MaxBackoff
	// (defaults 100ms and 10s).
	Backoff, MaxBackoff time.Duration
	Metrics             Metrics
	Log                 zerolog.Logger
	// Now is the event-time clock (epoch ms); a hint that expires while
	// its delivery is being retried is given up on (and reported) rather
	// than acted on late.
	// Nil: hints never expire in the dispatcher.
	Now func() int64
}

// Dispatcher fans hints out to actuators, each on its own worker.
type Dispatcher struct {
	o       Options
	workers []*worker
	wg      sync.WaitGroup
	mu      sync.Mutex
	closed  bool
	pending atomic.Int64
	aborted atomic.Bool
}

type worker struct {
	a     Actuator
	queue chan policy.Hint
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
	if o.Metrics == nil {
		o.Metrics = nopMetrics{}
	}
	if o.Journal == nil {
		o.Journal = NewMemoryJournal()
	}
	d := &Dispatcher{o: o}
	for _, a := range o.Actuators {
		d.workers = append(d.workers, &worker{a: a, queue: make(chan policy.Hint, o.QueueSize)})
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
// it is done, hints still failing are given up (and reported).
func (d *Dispatcher) Start(ctx context.Context) {
	for _, w := range d.workers {
		d.wg.Add(1)
		go func() {
			defer d.wg.Done()
			for h := range w.queue {
				if !d.aborted.Load() {
					d.deliver(ctx, w.a, h)
				}
				d.pending.Add(-1)
			}
		}()
	}
}

// Dispatch queues hints for every actuator. It copies what it keeps, so the
// caller may reuse hs. It returns how many hints were queued (cluster-wide
// hints of a non-leader are not).
func (d *Dispatcher) Dispatch(ctx context.Context, hs []policy.Hint) (int, error) {
	n := 0
	for i := range hs {
		h := hs[i]
		if IsClusterWide(&h) && d.o.Leader != nil && !d.o.Leader() {
			continue
		}
		h.Nodes = append([]policy.NodeScore(nil), h.Nodes...)
		for _, w := range d.workers {
			d.pending.Add(1)
			select {
			case w.queue <- h:
			case <-ctx.Done():
				d.pending.Add(-1)
				return n, fmt.Errorf("dispatch hint %s: %w", h.ID, ctx.Err())
			}
		}
		n++
	}
	return n, nil
}

// Wait blocks until every queued hint has been delivered or given up on.
// The live loop waits before it checkpoints, so a checkpoint never covers an
// event whose hints are still only in memory.
func (d *Dispatcher) Wait(ctx context.Context) error {
	for d.pending.Load() > 0 {
		select {
		case <-ctx.Done():
			return fmt.Errorf("waiting for actuators: %w", ctx.Err())
		case <-time.After(time.Millisecond):
		}
	}
	return nil
}

// Abort drops whatever is still queued, as a killed process would (crash
// tests and drills); Close must still be called.
func (d *Dispatcher) Abort() { d.aborted.Store(true) }

// Close stops taking hints and waits until the workers have delivered (or
// given up on) everything queued.
func (d *Dispatcher) Close() {
	d.mu.Lock()
	if !d.closed {
		d.closed = true
		for _, w := range d.workers {
			close(w.queue)
		}
	}
	d.mu.Unlock()
	d.wg.Wait()
}

func (d *Dispatcher) deliver(ctx context.Context, a Actuator, h policy.Hint) {
	name := a.Name()
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
		if err = a.Deliver(ctx, h); err == nil {
			d.o.Metrics.Actuated(name)
			if jerr := d.o.Journal.Record(name, &h); jerr != nil {
				d.o.Log.Warn().Err(jerr).Str("hint", h.ID).Msg("recording actuated hint")
			}
			return
		}
		d.o.Metrics.ActuationError(name)
		d.o.Log.Warn().Err(err).Str("actuator", name).Str("hint", h.ID).Int("attempt", attempt).Msg("actuation failed; retrying")
		if attempt == d.o.MaxAttempts {
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
