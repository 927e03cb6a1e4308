package memlimit

import (
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync/atomic"
	"time"
)

// Policy says how the limit follows the live heap. The limit is the largest
// of the terms in use (a zero field is not in use).
type Policy struct {
	// Floor: the limit is never below Floor bytes.
	Floor int64
	// LivePercent: the limit is at least this percent of the live heap.
	LivePercent int64
	// MinHeadroom (bytes) and HeadroomFraction (of the live heap): the
	// limit is at least what the runtime holds besides heap objects and
	// free heap, plus the live heap, plus max(MinHeadroom,
	// HeadroomFraction × live), plus the 3 % the runtime keeps back, so the
	// collector's heap goal is the live heap plus that headroom.
	MinHeadroom      int64
	HeadroomFraction float64
	// RateWindow: the headroom is also at least what the process allocates
	// in RateWindow at its recent allocation rate, so the limit makes the
	// collector run at most about once per RateWindow however fast the
	// process allocates; where that is more room than GOGC gives, GOGC's
	// pacing rules as it would without the limit.
	RateWindow time.Duration
	// GCPercent is the collector's pacing (GOGC) while the limit is set,
	// unless GOGC is set in the environment; 0 leaves it as it is.
	GCPercent int
	// Every is how often the limit is recomputed (default 500 ms).
	Every time.Duration
	// AfterGC also recomputes the limit right after each collection, so a
	// live heap that grows (a start, a checkpoint's copies) does not meet a
	// limit computed from the smaller live heap of before, under which the
	// collector would run back to back until the next tick.
	AfterGC bool
}

// Default tuning.
const (
	// DefaultEvery is how often the limit follows the live heap.
	DefaultEvery = 500 * time.Millisecond
	// SimGCPercent is the simulator's pacing under its limit. A run
	// allocates a few hundred MB/s over a live heap of tens of MB (the
	// FB-2009 day: about 800 MB over 35-85 MB live, 32 collections at GOGC
	// 100: about a tenth of its CPU); at 400 the heap may grow to five
	// times the live heap between collections, and the limit, not GOGC,
	// bounds a run whose live heap is large (FB-2009 day under yarn:
	// median 4.48 -> 4.27 CPU s, max RSS 200-245 -> 280-565 MB).
	SimGCPercent = 400
	// HeadroomFraction is the sidecar's headroom as a share of the live
	// heap when that is more than its minimum: on a model of 1 GB the
	// collector then runs every 125 MB of garbage, not every few tens of MB.
	// An eighth, not a quarter: at 10,000 nodes (about 100 MB live, 13 MB/s
	// allocated at 100,000 events/s) a quarter was 25 MB, above a 16 MB
	// minimum, and the peak RSS while events are offered is about the limit
	// (the scavenger keeps free pages up to 95 % of it). Bursts are the rate
	// term's: the bench's end to end (330 MB live) and a checkpoint's load
	// did not move.
	HeadroomFraction = 0.125
	// RateWindow is the sidecar's: at most about two collections a second
	// from the limit. A burst (catching up a backlog, loading a checkpoint)
	// allocates hundreds of MB/s; a headroom of 32 MiB there made the
	// collector run tens of times a second, each marking the whole model
	// (bench's end to end: 0.36 -> 0.26x raw; a checkpoint's load +35 %
	// CPU), while at 100,000 events/s the rate term is a few MB.
	RateWindow = 500 * time.Millisecond
	// minRateInterval is the shortest interval an allocation rate is
	// measured over; a recomputation sooner (after a collection) keeps the
	// rate measured before.
	minRateInterval = 100 * time.Millisecond
)

// Sim is the simulator's policy: a limit of mib MiB, raised to 1.5 times
// the live heap whenever that is more (a run whose live heap outgrows the
// floor then collects at most about twice as often as GOGC 100 would),
// with the collector paced at SimGCPercent. The FB-2010 day on 3,000 nodes
// (live heap at most about 520 MB) peaks at 1.47 GB of RSS without a limit
// and 0.98 GB at 1000 MiB, at the same CPU time. mib <= 0: no limit.
func Sim(mib int) Policy {
	if mib <= 0 {
		return Policy{}
	}
	return Policy{Floor: int64(mib) << 20, LivePercent: 150, GCPercent: SimGCPercent, Every: DefaultEvery}
}

// Headroom is the live sidecar's policy: the collector's heap goal is the
// live heap plus max(mib MiB, HeadroomFraction × live, what is allocated in
// RateWindow), recomputed every 500 ms and after each collection; GOGC is
// left alone, so a small model (live heap under the headroom) keeps the
// default pacing and the limit only trims the overshoot of a large one.
// mib <= 0: no limit.
func Headroom(mib int) Policy {
	if mib <= 0 {
		return Policy{}
	}
	return Policy{MinHeadroom: int64(mib) << 20, HeadroomFraction: HeadroomFraction, RateWindow: RateWindow,
		Every: DefaultEvery, AfterGC: true}
}

// Enabled reports whether p sets a limit at all.
func (p Policy) Enabled() bool {
	return p.Floor > 0 || p.LivePercent > 0 || p.usesHeadroom()
}

// usesHeadroom reports whether p reads more than the live heap.
func (p Policy) usesHeadroom() bool {
	return p.MinHeadroom > 0 || p.HeadroomFraction > 0 || p.RateWindow > 0
}

// Reading is what the limit is computed from.
type Reading struct {
	// Live is the live heap after the last collection (/gc/heap/live).
	Live uint64
	// NonHeap is what counts toward the limit but is neither heap objects
	// nor free heap: /memory/classes/total minus heap/released, heap/free
	// and heap/objects (stacks, the collector's metadata, spans' unused
	// room, ...), the runtime's own "nonHeapMemory".
	NonHeap uint64
	// AllocRate is the bytes allocated per second over the last interval
	// of at least minRateInterval (/gc/heap/allocs).
	AllocRate float64
}

// runtimeHeadroomPercent and runtimeMinHeadroom are what the runtime takes
// off the room the limit leaves the heap (mgcpacer.go:
// memoryLimitHeapGoalHeadroomPercent, memoryLimitMinHeapGoalHeadroom).
const (
	runtimeHeadroomPercent = 3
	runtimeMinHeadroom     = 1 << 20
)

// Limit is the limit in bytes for r.
func (p Policy) Limit(r Reading) int64 {
	want := p.Floor
	if p.LivePercent > 0 && r.Live <= math.MaxInt64/uint64(p.LivePercent) {
		want = max(want, int64(r.Live*uint64(p.LivePercent)/100))
	}
	if p.usesHeadroom() {
		h := max(float64(p.MinHeadroom), p.HeadroomFraction*float64(r.Live), r.AllocRate*p.RateWindow.Seconds())
		room := float64(r.Live) + h // the heap goal wanted
		// Add back what the runtime keeps back of the room: it takes the
		// larger of 3 % and 1 MiB off limit - NonHeap.
		room = max(math.Ceil(room*100/(100-runtimeHeadroomPercent)), room+runtimeMinHeadroom)
		total := float64(r.NonHeap) + room
		if total >= math.MaxInt64 {
			return math.MaxInt64
		}
		want = max(want, int64(total))
	}
	return want
}

// Start sets the soft memory limit as p says and keeps it following the
// live heap until the returned function is called, which restores the
// previous limit and pacing. With GOMEMLIMIT in the environment, or a p
// that sets no limit, it changes nothing.
func Start(p Policy) func() {
	if !p.Enabled() || os.Getenv("GOMEMLIMIT") != "" {
		return func() {}
	}
	every := p.Every
	if every <= 0 {
		every = DefaultEvery
	}
	samples := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	if p.usesHeadroom() {
		samples = append(samples,
			metrics.Sample{Name: "/memory/classes/total:bytes"},
			metrics.Sample{Name: "/memory/classes/heap/released:bytes"},
			metrics.Sample{Name: "/memory/classes/heap/free:bytes"},
			metrics.Sample{Name: "/memory/classes/heap/objects:bytes"},
			metrics.Sample{Name: "/gc/heap/allocs:bytes"})
	}
	var (
		rate      float64
		lastAlloc uint64
		lastRead  time.Time
	)
	read := func() Reading {
		metrics.Read(samples)
		r := Reading{Live: samples[0].Value.Uint64()}
		if len(samples) > 1 {
			total, released := samples[1].Value.Uint64(), samples[2].Value.Uint64()
			heap := samples[3].Value.Uint64() + samples[4].Value.Uint64()
			if total >= released+heap { // the classes are read together; be safe anyway
				r.NonHeap = total - released - heap
			}
			allocs, now := samples[5].Value.Uint64(), time.Now()
			if dt := now.Sub(lastRead); lastRead.IsZero() || dt >= minRateInterval {
				if !lastRead.IsZero() && allocs >= lastAlloc {
					rate = float64(allocs-lastAlloc) / dt.Seconds()
				}
				lastAlloc, lastRead = allocs, now
			}
			r.AllocRate = rate
		}
		return r
	}
	limit := p.Limit(read())
	prev := debug.SetMemoryLimit(limit)
	prevGC := -2 // not changed
	if p.GCPercent != 0 && os.Getenv("GOGC") == "" {
		prevGC = debug.SetGCPercent(p.GCPercent)
	}
	var gc *gcNotifier
	var gcDone <-chan struct{}
	if p.AfterGC {
		gc = &gcNotifier{c: make(chan struct{}, 1)}
		gc.arm()
		gcDone = gc.c
	}
	done := make(chan struct{})
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-t.C:
			case <-gcDone:
			case <-done:
				return
			}
			if want := p.Limit(read()); want != limit {
				limit = want
				debug.SetMemoryLimit(limit)
			}
		}
	}()
	return func() {
		if gc != nil {
			gc.stopped.Store(true)
		}
		close(done)
		<-stopped
		if prevGC != -2 {
			debug.SetGCPercent(prevGC)
		}
		debug.SetMemoryLimit(prev)
	}
}

// gcNotifier signals c after each collection: an object nothing refers to
// carries a cleanup, which runs once a collection has found it dead and
// arms the next one.
type gcNotifier struct {
	c       chan struct{}
	stopped atomic.Bool
}

// sentinel holds a pointer so it is not packed into a tiny block with other
// objects (whose cleanup might then never run).
type sentinel struct{ _ *byte }

func (n *gcNotifier) arm() {
	runtime.AddCleanup(new(sentinel), func(n *gcNotifier) {
		select {
		case n.c <- struct{}{}:
		default:
		}
		if !n.stopped.Load() {
			n.arm()
		}
	}, n)
}
