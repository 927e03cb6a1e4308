package sidecar

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"

	"github.com/rmsidecar/rmsidecar/cluster"
	"github.com/rmsidecar/rmsidecar/engine"
	"github.com/rmsidecar/rmsidecar/events"
	"github.com/rmsidecar/rmsidecar/events/kafka"
	"github.com/rmsidecar/rmsidecar/policy"
)

// HintSink takes the hints the engine emits (an actuate.Dispatcher).
type HintSink interface {
	Dispatch(ctx context.Context, hs []policy.Hint) (int, error)
}

// Outbox is what a HintSink may also offer: the hints it holds that no
// actuator has delivered yet (an actuate.Dispatcher). The loop keeps them in
// its checkpoints.
type Outbox interface {
	Pending() []policy.Hint
}

// ErrStopped is returned to the consumer once the loop has stopped.
var ErrStopped = errors.New("engine loop stopped")

// item is one entry of the engine queue: a message, or a barrier asking for
// a checkpoint and the positions applied so far.
type item struct {
	msg     kafka.Message
	batch   []kafka.Message // several messages of one partition (EnqueueBatch)
	barrier chan barrierResult
	final   bool
}

type barrierResult struct {
	pos map[kafka.TopicPartition]int64
	err error
}

// LoopOptions configure a Loop.
type LoopOptions struct {
	QueueSize int
	// IdleTick runs the policies' periodic points on the wall clock when no
	// event has arrived for this long, advancing event time by the wall time
	// elapsed (0: only event time ticks, which keeps replays deterministic).
	IdleTick    time.Duration
	Checkpoints Checkpointer // nil: no checkpoints
	Sink        HintSink
	Metrics     *Metrics
	Log         zerolog.Logger
	// EventsTopic's partition 0 makes its owner the leader (see Leader).
	EventsTopic string
	// OnLatency, when set, sees every event-received -> hints-emitted
	// latency and how many hints it covers (the benchmark records them).
	OnLatency func(d time.Duration, hints int)
	// HostAliases renames split hosts before the model sees them
	// (model.host_aliases).
	HostAliases events.HostAliases
}

// Loop runs the engine on one goroutine behind a bounded queue. Every
// partition claim feeds it (kafka.Feed) in partition order, so an app's
// events, which share a partition, are applied in order.
type Loop struct {
	o     LoopOptions
	eng   *engine.Engine
	queue chan item
	// room holds a token per batch the queue may hold, so batches too keep
	// the queued messages within QueueSize.
	room chan struct{}
	done chan struct{}
	// typeCounts accumulates a batch's consumed events by type (engine goroutine).
	typeCounts []typeCount

	// mu is held for writing while the engine applies events, and for
	// reading by the HTTP handlers that look at the state.
	mu        sync.RWMutex
	positions map[kafka.TopicPartition]int64
	current   map[string]policy.Hint // newest hint per target, for /v1/nodes and /v1/apps
	target    []byte                 // key buffer of current
	dirty     bool
	// ckPositions are the positions the last saved checkpoint covers
	// (guarded by ckMu: saves complete on their own goroutine).
	ckMu        sync.Mutex
	ckPositions map[kafka.TopicPartition]int64
	// nextCheckpoint (unix ns) keeps periodic checkpoints under
	// checkpointShare of the time; saving is closed when the save in flight
	// (if any) is done. Both belong to the engine goroutine.
	nextCheckpoint atomic.Int64
	saving         chan struct{}
	lastEvent      time.Time
	lastTS         int64

	// Metric children cached per label value: the per-event path should
	// not hash label strings.
	consumedBy map[events.Type]prometheus.Counter
	lagBy      map[kafka.TopicPartition]prometheus.Gauge
	hintsBy    map[hintLabel]prometheus.Counter

	// brokerDown, when set, says why the Kafka brokers are unreachable
	// (SetBrokerHealth); the loop is not ready meanwhile.
	brokerDown atomic.Pointer[string]
	// degraded, when set, names the actuators failing (SetDegraded); the
	// loop stays ready, /readyz says so.
	degraded atomic.Pointer[string]

	claimMu  sync.Mutex
	claims   map[kafka.TopicPartition]*claimInfo
	assigned bool
	leader   atomic.Bool

	eventNow  atomic.Int64 // newest event time applied (epoch ms)
	applied   atomic.Uint64
	rejected  atomic.Uint64
	begun     atomic.Uint64 // checkpoints begun (state copied for a save)
	aborted   atomic.Bool
	abortCh   chan struct{}
	abortOnce sync.Once
}

type claimInfo struct{ caughtUp bool }

type typeCount struct {
	t events.Type
	n int
}

type hintLabel struct {
	policy string
	kind   policy.HintKind
}

// NewLoop wraps eng. Run must be running for Enqueue and Sync to return.
func NewLoop(eng *engine.Engine, o LoopOptions) *Loop {
	if o.QueueSize <= 0 {
		o.QueueSize = 4096
	}
	if o.Metrics == nil {
		o.Metrics = NewMetrics()
	}
	return &Loop{o: o, eng: eng, queue: make(chan item, o.QueueSize), done: make(chan struct{}),
		room:      make(chan struct{}, max(1, o.QueueSize/kafka.MaxBatch)),
		positions: map[kafka.TopicPartition]int64{}, current: map[string]policy.Hint{},
		claims: map[kafka.TopicPartition]*claimInfo{}, abortCh: make(chan struct{}),
		consumedBy: map[events.Type]prometheus.Counter{}, lagBy: map[kafka.TopicPartition]prometheus.Gauge{},
		hintsBy: map[hintLabel]prometheus.Counter{}}
}

// Resume sets the positions a checkpoint recorded (before Run).
func (l *Loop) Resume(ps []Position) {
	for _, p := range ps {
		l.positions[kafka.TopicPartition{Topic: p.Topic, Partition: p.Partition}] = p.Next
	}
	l.ckPositions = l.clonePositions(l.positions)
}

// Restored tells the loop that restoring its checkpoint (loading and
// decoding it) took d. Periodic checkpoints are spaced after it as after a
// save of that duration: the state on disk is the one just restored, so the
// first periodic barrier after a restart answers from the resumed positions
// instead of writing the same state again at once. A final barrier
// (rebalance, shutdown) still checkpoints whatever was applied.
func (l *Loop) Restored(d time.Duration) {
	l.spaceCheckpoints(time.Now(), d)
}

// spaceCheckpoints lets the next periodic checkpoint start only once the
// work that took d, ending at end, is checkpointShare of the time since
// it began.
func (l *Loop) spaceCheckpoints(end time.Time, d time.Duration) {
	l.nextCheckpoint.Store(end.Add(time.Duration(float64(d) * (1/checkpointShare - 1))).UnixNano())
}

// Enqueue implements kafka.Feed.
func (l *Loop) Enqueue(ctx context.Context, m kafka.Message) error {
	select {
	case l.queue <- item{msg: m}:
		l.o.Metrics.queueDepth.Set(float64(len(l.queue)))
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-l.done:
		return ErrStopped
	}
}

// EnqueueBatch implements kafka.BatchFeed: ms (of one partition, in order)
// go through the queue as one item. The loop owns ms.
func (l *Loop) EnqueueBatch(ctx context.Context, ms []kafka.Message) error {
	for len(ms) > 0 {
		n := min(len(ms), kafka.MaxBatch)
		select {
		case l.room <- struct{}{}:
		case <-ctx.Done():
			return ctx.Err()
		case <-l.done:
			return ErrStopped
		}
		select {
		case l.queue <- item{batch: ms[:n:n]}:
			l.o.Metrics.queueDepth.Set(float64(len(l.queue)))
		case <-ctx.Done():
			<-l.room
			return ctx.Err()
		case <-l.done:
			return ErrStopped
		}
		ms = ms[n:]
	}
	return nil
}

// Sync implements kafka.Feed: a barrier through the queue.
func (l *Loop) Sync(ctx context.Context, final bool) (map[kafka.TopicPartition]int64, error) {
	res := make(chan barrierResult, 1)
	select {
	case l.queue <- item{barrier: res, final: final}:
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-l.done:
		return nil, ErrStopped
	}
	select {
	case r := <-res:
		return r.pos, r.err
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-l.done:
		return nil, ErrStopped
	}
}

// Assigned implements kafka.Feed.
func (l *Loop) Assigned(claims map[string][]int32) {
	l.claimMu.Lock()
	defer l.claimMu.Unlock()
	l.assigned = true
	if l.o.EventsTopic != "" {
		leader := false
		for _, p := range claims[l.o.EventsTopic] {
			leader = leader || p == 0
		}
		// A node-topic group never changes leadership: only the events group knows.
		if _, ok := claims[l.o.EventsTopic]; ok || len(claims) == 0 {
			l.leader.Store(leader)
		}
	}
}

// isAssigned reports whether partitions were assigned once.
func (l *Loop) isAssigned() bool {
	l.claimMu.Lock()
	defer l.claimMu.Unlock()
	return l.assigned
}

// Claimed implements kafka.Feed.
func (l *Loop) Claimed(tp kafka.TopicPartition, initial, highWater int64) {
	l.claimMu.Lock()
	defer l.claimMu.Unlock()
	// Nothing to read (an empty partition, or a committed offset at the
	// end): caught up from the start. Otherwise the first message applied at
	// the high-water mark says so.
	l.claims[tp] = &claimInfo{caughtUp: initial >= 0 && initial >= highWater}
}

// Released implements kafka.Feed.
func (l *Loop) Released(tp kafka.TopicPartition) {
	l.claimMu.Lock()
	delete(l.claims, tp)
	l.claimMu.Unlock()
}

// Ready reports whether partitions are assigned and every claim has caught
// up with its high-water mark once.
//
// The brokers being unreachable makes it not ready: nothing is consumed, and
// the lag gauges, which only move with consumed messages, would otherwise
// show an idle, caught-up consumer. A failing actuator does not: the
// sidecar goes on consuming and deciding, its hints wait in bounded queues,
// and taking it out of service would not bring the ResourceManager back; the
// answer names the degraded actuators and rmsidecar_actuator_degraded says
// the same.
func (l *Loop) Ready() (bool, string) {
	if why := l.brokerDown.Load(); why != nil {
		return false, "kafka unreachable: " + *why
	}
	l.claimMu.Lock()
	defer l.claimMu.Unlock()
	if !l.assigned {
		return false, "no partitions assigned yet"
	}
	for tp, c := range l.claims {
		if !c.caughtUp {
			return false, "catching up on " + tp.String()
		}
	}
	if d := l.degraded.Load(); d != nil {
		return true, "ok (degraded actuators: " + *d + ")"
	}
	return true, "ok"
}

// SetBrokerHealth records whether the Kafka brokers answer; why explains an
// outage.
func (l *Loop) SetBrokerHealth(up bool, why string) {
	if up {
		l.brokerDown.Store(nil)
		return
	}
	l.brokerDown.Store(&why)
}

// SetDegraded records the actuators failing right now (none: healthy).
func (l *Loop) SetDegraded(actuators []string) {
	if len(actuators) == 0 {
		l.degraded.Store(nil)
		return
	}
	s := strings.Join(actuators, ",")
	l.degraded.Store(&s)
}

// EventNow is the newest event time applied (epoch ms), safe from any goroutine.
func (l *Loop) EventNow() int64 { return l.eventNow.Load() }

// Leader reports whether this instance owns partition 0 of the events topic
// and therefore actuates cluster-wide hints.
func (l *Loop) Leader() bool { return l.leader.Load() }

// Applied counts valid messages applied; Rejected counts the others.
func (l *Loop) Applied() uint64  { return l.applied.Load() }
func (l *Loop) Rejected() uint64 { return l.rejected.Load() }

// CheckpointsBegun counts the checkpoints begun: the state copied and its
// save started (a save runs on after the call that began it).
func (l *Loop) CheckpointsBegun() uint64 { return l.begun.Load() }

// Abort makes Run return at once without a final checkpoint, as a killed
// process would: for crash tests and drills.
func (l *Loop) Abort() {
	l.abortOnce.Do(func() {
		l.aborted.Store(true)
		close(l.abortCh)
	})
}

// Run applies queued messages until ctx is done, then drains what is queued
// and writes a final checkpoint. Cancel ctx only after the consumers have
// returned, so their last commit finds the loop running.
func (l *Loop) Run(ctx context.Context) error {
	defer close(l.done)
	var idle <-chan time.Time
	if l.o.IdleTick > 0 {
		t := time.NewTicker(l.o.IdleTick)
		defer t.Stop()
		idle = t.C
	}
	// Work that must finish even while shutting down runs on its own context.
	work := context.WithoutCancel(ctx)
	for {
		select {
		case <-l.abortCh:
			return nil
		case it := <-l.queue:
			if l.aborted.Load() {
				return nil
			}
			l.handle(work, it)
		case <-idle:
			l.idleTick(work)
		case <-ctx.Done():
			for {
				select {
				case it := <-l.queue:
					if l.aborted.Load() {
						return nil
					}
					l.handle(work, it)
				default:
					if l.aborted.Load() {
						return nil
					}
					return l.checkpoint(work)
				}
			}
		}
	}
}

// handle applies one queue item: a barrier, a batch or a single message.
func (l *Loop) handle(ctx context.Context, it item) {
	switch {
	case it.barrier != nil:
		l.barrier(ctx, it)
	case it.batch != nil:
		l.apply(ctx, it.batch)
		kafka.Release(it.batch) // nothing keeps the messages or their events
		<-l.room
	default:
		one := [1]kafka.Message{it.msg}
		l.apply(ctx, one[:])
	}
}

// apply is the one event path of the loop, for a single message (Enqueue)
// as for a batch (EnqueueBatch): the lock, the positions, the counters and
// the metrics are updated once per batch (per partition run), the events
// applied one by one in order, and any hints emitted as soon as the event
// that caused them is applied.
func (l *Loop) apply(ctx context.Context, ms []kafka.Message) {
	var applied, rejected uint64
	l.typeCounts = l.typeCounts[:0]
	l.mu.Lock()
	for i := range ms {
		m := &ms[i]
		if m.Event == nil {
			rejected++
			l.o.Metrics.rejected.WithLabelValues(kafka.RejectReason(m.Err)).Inc()
		} else {
			l.o.HostAliases.Rewrite(m.Event)
			hs := l.eng.Apply(ctx, m.Event)
			applied++
			l.countType(m.Event.Type)
			if len(hs) > 0 {
				l.mu.Unlock()
				l.deliver(ctx, hs, m.Received)
				l.mu.Lock()
			}
		}
		if m.Topic != "" && (i+1 == len(ms) || ms[i+1].Topic != m.Topic || ms[i+1].Partition != m.Partition) {
			l.positions[kafka.TopicPartition{Topic: m.Topic, Partition: m.Partition}] = m.Offset + 1
		}
	}
	if applied > 0 {
		l.lastEvent, l.lastTS = time.Now(), l.eng.State().Now()
		l.eventNow.Store(l.lastTS)
	}
	l.dirty = true
	l.mu.Unlock()
	l.applied.Add(applied)
	l.rejected.Add(rejected)
	for _, tc := range l.typeCounts {
		c := l.consumedBy[tc.t]
		if c == nil {
			c = l.o.Metrics.consumed.WithLabelValues(string(tc.t))
			l.consumedBy[tc.t] = c
		}
		c.Add(float64(tc.n))
	}
	caughtUp := false
	for i := range ms {
		m := &ms[i]
		if m.Topic == "" {
			continue
		}
		lag := m.HighWater - m.Offset - 1
		caughtUp = caughtUp || lag <= 0
		if i+1 < len(ms) && ms[i+1].Topic == m.Topic && ms[i+1].Partition == m.Partition {
			continue // the gauge shows the run's last message
		}
		tp := kafka.TopicPartition{Topic: m.Topic, Partition: m.Partition}
		g := l.lagBy[tp]
		if g == nil {
			g = l.o.Metrics.lag.WithLabelValues(partitionLabel(m.Topic, m.Partition))
			l.lagBy[tp] = g
		}
		g.Set(float64(max(lag, 0)))
		if caughtUp {
			l.claimMu.Lock()
			if c := l.claims[tp]; c != nil {
				c.caughtUp = true
			}
			l.claimMu.Unlock()
		}
		caughtUp = false
	}
}

// countType counts one consumed event of type t in l.typeCounts.
func (l *Loop) countType(t events.Type) {
	for i := range l.typeCounts {
		if l.typeCounts[i].t == t {
			l.typeCounts[i].n++
			return
		}
	}
	l.typeCounts = append(l.typeCounts, typeCount{t, 1})
}

func (l *Loop) idleTick(ctx context.Context) {
	l.mu.Lock()
	if l.lastEvent.IsZero() || time.Since(l.lastEvent) < l.o.IdleTick {
		l.mu.Unlock()
		return
	}
	now := l.lastTS + time.Since(l.lastEvent).Milliseconds()
	hs := l.eng.Tick(ctx, now)
	l.mu.Unlock()
	l.deliver(ctx, hs, time.Now())
}

// deliver emits hs (valid until the engine's next Apply) and then keeps them
// for the HTTP views: the hints leave before the bookkeeping (mu not held).
func (l *Loop) deliver(ctx context.Context, hs []policy.Hint, received time.Time) {
	if len(hs) == 0 {
		return
	}
	l.emit(ctx, hs, received)
	l.mu.Lock()
	l.remember(hs)
	l.mu.Unlock()
}

// remember keeps the newest hint per target and forgets expired ones (mu held).
func (l *Loop) remember(hs []policy.Hint) {
	for i := range hs {
		h := hs[i]
		h.Nodes = slices.Clone(h.Nodes)
		l.target = policy.AppendTarget(l.target[:0], &h)
		l.current[string(l.target)] = h
	}
	if len(l.current) > 4096 {
		now := l.eng.State().Now()
		for k, h := range l.current {
			if h.ExpiresTS <= now {
				delete(l.current, k)
			}
		}
	}
}

func (l *Loop) emit(ctx context.Context, hs []policy.Hint, received time.Time) {
	if len(hs) == 0 {
		return
	}
	d := time.Since(received)
	lat := d.Seconds()
	if l.o.OnLatency != nil {
		l.o.OnLatency(d, len(hs))
	}
	for i := 0; i < len(hs); {
		// A tick's hints come in runs of one policy and kind: count a run at once.
		k := hintLabel{hs[i].Policy, hs[i].Kind}
		n := 1
		for i+n < len(hs) && hs[i+n].Policy == k.policy && hs[i+n].Kind == k.kind {
			n++
		}
		c := l.hintsBy[k]
		if c == nil {
			c = l.o.Metrics.hints.WithLabelValues(k.policy, string(k.kind))
			l.hintsBy[k] = c
		}
		c.Add(float64(n))
		for range n {
			l.o.Metrics.latency.Observe(lat)
		}
		i += n
	}
	if l.o.Sink != nil {
		if _, err := l.o.Sink.Dispatch(ctx, hs); err != nil {
			l.o.Log.Error().Err(err).Msg("dispatching hints")
		}
	}
}

// barrier answers a Sync. A final one waits for any save in flight, then
// checkpoints what is applied and answers once that is saved. A periodic one
// starts a checkpoint only when the last took less than checkpointShare of
// the time since, and answers from the last saved checkpoint otherwise. The
// save itself (encoding and writing) runs off the engine goroutine, so the
// engine only stops to copy the state.
func (l *Loop) barrier(ctx context.Context, it item) {
	l.reapSave()
	if !it.final && (l.saving != nil || time.Now().UnixNano() < l.nextCheckpoint.Load()) {
		l.ckMu.Lock()
		pos := l.clonePositions(l.ckPositions)
		l.ckMu.Unlock()
		it.barrier <- barrierResult{pos: pos}
		return
	}
	if l.saving != nil {
		<-l.saving
		l.saving = nil
	}
	l.startCheckpoint(ctx, it.barrier)
}

// reapSave forgets a save that has finished.
func (l *Loop) reapSave() {
	if l.saving == nil {
		return
	}
	select {
	case <-l.saving:
		l.saving = nil
	default:
	}
}

// startCheckpoint waits for the actuators, saves the plugins' profiles,
// copies the state, engine and positions, and saves the copy on another
// goroutine; reply (if not nil) gets the positions once they are saved.
func (l *Loop) startCheckpoint(ctx context.Context, reply chan barrierResult) {
	start := time.Now()
	answer := func(r barrierResult) {
		if reply != nil {
			reply <- r
		}
	}
	l.mu.Lock()
	pos := l.clonePositions(l.positions)
	if !l.dirty || l.o.Checkpoints == nil {
		l.mu.Unlock()
		l.ckMu.Lock()
		l.ckPositions = pos
		l.ckMu.Unlock()
		answer(barrierResult{pos: l.clonePositions(pos)})
		return
	}
	// The hints of the events covered are all in the sink by now (Dispatch
	// queues synchronously); those not yet delivered go into the checkpoint
	// rather than being waited for, so an unreachable ResourceManager does
	// not hold back checkpoints, commits and ingestion.
	var outbox []policy.Hint
	if ob, ok := l.o.Sink.(Outbox); ok {
		outbox = ob.Pending()
	}
	if err := l.eng.Flush(ctx); err != nil {
		l.mu.Unlock()
		answer(barrierResult{err: fmt.Errorf("checkpoint: %w", err)})
		return
	}
	l.begun.Add(1)
	c := &Checkpoint{V: 1, Cluster: l.eng.State().CheckpointForSave(), Engine: l.eng.Checkpoint(), Positions: positionsOf(pos),
		Outbox: outbox}
	l.dirty = false
	l.mu.Unlock()

	done := make(chan struct{})
	l.saving = done
	go func() {
		defer close(done)
		if l.aborted.Load() {
			return // a killed process saves nothing more
		}
		err := l.o.Checkpoints.Save(ctx, c)
		if err != nil {
			l.mu.Lock()
			l.dirty = true // the next checkpoint tries again
			l.mu.Unlock()
			answer(barrierResult{err: err})
			return
		}
		l.o.Metrics.checkpoints.Inc()
		l.ckMu.Lock()
		l.ckPositions = pos
		l.ckMu.Unlock()
		l.spaceCheckpoints(time.Now(), time.Since(start))
		answer(barrierResult{pos: l.clonePositions(pos)})
	}()
}

// checkpoint checkpoints synchronously (at the end of Run).
func (l *Loop) checkpoint(ctx context.Context) error {
	if l.saving != nil {
		<-l.saving
		l.saving = nil
	}
	reply := make(chan barrierResult, 1)
	l.startCheckpoint(ctx, reply)
	return (<-reply).err
}

func (l *Loop) clonePositions(m map[kafka.TopicPartition]int64) map[kafka.TopicPartition]int64 {
	c := make(map[kafka.TopicPartition]int64, len(m))
	for k, v := range m {
		c[k] = v
	}
	return c
}

// checkpointShare is the most of the loop's time periodic checkpoints take.
const checkpointShare = 0.05

// View runs f with the cluster state and the newest hints per target, while
// the engine is held still.
func (l *Loop) View(f func(s *cluster.State, current map[string]policy.Hint)) {
	l.mu.RLock()
	defer l.mu.RUnlock()
	f(l.eng.State(), l.current)
}

func sortPositions(ps []Position) {
	slices.SortFunc(ps, func(a, b Position) int {
		return cmp.Or(cmp.Compare(a.Topic, b.Topic), cmp.Compare(a.Partition, b.Partition))
	})
}

// Partitions lists the partitions this instance currently consumes.
func (l *Loop) Partitions() []kafka.TopicPartition {
	l.claimMu.Lock()
	defer l.claimMu.Unlock()
	out := make([]kafka.TopicPartition, 0, len(l.claims))
	for tp := range l.claims {
		out = append(out, tp)
	}
	slices.SortFunc(out, func(a, b kafka.TopicPartition) int {
		return cmp.Or(cmp.Compare(a.Topic, b.Topic), cmp.Compare(a.Partition, b.Partition))
	})
	return out
}
