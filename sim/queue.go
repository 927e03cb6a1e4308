package sim

import (
	"math/bits"
	"slices"
)

// evKind is what a queued simulator event does when it fires.
type evKind uint8

const (
	evSubmit      evKind = iota // a job arrives (ref: job index)
	evHeartbeat                 // a node's YARN heartbeat (ref: node index)
	evAttemptDone               // an attempt's last phase ends (ref: attempt, ver)
	evLinkDone                  // a link's earliest flow completes (ref: link, ver)
	evFetchPoll                 // a reducer polls for new map outputs (ref: attempt, ver)
	evPolicyTick                // progress + heartbeat events, engine tick
)

// item is one scheduled event. Items are values in slices, so scheduling
// allocates nothing once the buckets have grown. 24 bytes: the sequence
// number and the kind share a word (at 32 bytes the queue moved a third
// more memory; refill files every item several times).
type item struct {
	at int64 // event time, ms since the start of the run
	// sk is seq<<8 | kind: seq is the tie-break, scheduling order, so equal
	// times pop deterministically (seqs are unique, so sk orders as seq).
	sk  uint64
	ver uint32 // version of the target when scheduled; a stale item is skipped
	ref int32  // index of the job, node, link or attempt
}

func (a *item) seq() uint64 { return a.sk >> 8 }

func (a *item) kind() evKind { return evKind(a.sk) }

func (a *item) less(b *item) bool {
	if a.at != b.at {
		return a.at < b.at
	}
	return a.sk < b.sk
}

// queue pops items in (at, seq) order; the simulator's queue (wheel) keeps
// its items due beyond its window in one. It is a radix heap: the simulator
// never schedules before the last popped time (and when it does, the item
// still pops in order, from the ready bucket), so an item is filed by the
// highest bit in which its time differs from the last popped time, and it
// moves only to lower buckets until it is the earliest. The ready bucket
// holds the items at (or before) the last popped time in (at, seq) order;
// every other bucket is unordered.
type queue struct {
	ready []item // at <= last, sorted by (at, seq); ready[head:] are queued
	head  int
	bkt   [64][]item // bkt[i]: bits.Len64(key^last) == i+1
	mask  uint64     // bit i: bkt[i] is not empty
	last  uint64     // key of the last popped time
	n     int
	seq   uint64
}

// key maps a time to an unsigned key of the same order.
func key(at int64) uint64 { return uint64(at) ^ 1<<63 }

func (q *queue) len() int { return q.n }

func (q *queue) push(at int64, kind evKind, ref int32, ver uint32) {
	q.seq++
	q.pushItem(item{at: at, sk: q.seq<<8 | uint64(kind), ref: ref, ver: ver})
}

// pushItem files an item whose sequence number is already set (by the
// wheel in front of this queue).
func (q *queue) pushItem(it item) {
	q.n++
	at := it.at
	k := key(at)
	if k <= q.last {
		q.readyInsert(it)
		return
	}
	b := bits.Len64(k^q.last) - 1
	q.bkt[b] = append(q.bkt[b], it)
	q.mask |= 1 << b
}

// readyInsert files an item at or before the last popped time: normally at
// the end (the latest seq), before later items otherwise.
func (q *queue) readyInsert(it item) {
	q.ready = append(q.ready, it)
	r := q.ready
	i := len(r) - 1
	for i > q.head && it.less(&r[i-1]) {
		r[i] = r[i-1]
		i--
	}
	r[i] = it
}

func (q *queue) pop() item {
	if q.head == len(q.ready) {
		q.refill()
	}
	it := q.ready[q.head]
	q.head++
	q.n--
	return it
}

// refill moves the earliest items (all at the least time) to the ready
// bucket and files the rest of their bucket by the new last time.
func (q *queue) refill() {
	q.ready, q.head = q.ready[:0], 0
	b := bits.TrailingZeros64(q.mask)
	items := q.bkt[b]
	m := key(items[0].at)
	for i := 1; i < len(items); i++ {
		m = min(m, key(items[i].at))
	}
	q.last = m
	for _, it := range items {
		k := key(it.at)
		if k == m {
			q.ready = append(q.ready, it)
			continue
		}
		nb := bits.Len64(k^m) - 1
		q.bkt[nb] = append(q.bkt[nb], it)
		q.mask |= 1 << nb
	}
	q.bkt[b] = items[:0]
	q.mask &^= 1 << b
	if len(q.ready) > 1 {
		slices.SortFunc(q.ready, func(a, b item) int {
			if a.sk < b.sk {
				return -1
			}
			return 1
		})
	}
}

// peekAt is the time of the next item to pop (the queue must not be empty).
func (q *queue) peekAt() int64 {
	if q.head == len(q.ready) {
		q.refill()
	}
	return q.ready[q.head].at
}

// wheelSize is the span of the wheel's buckets, in ms: a power of two
// above the second after which polls, policy ticks and heartbeats come
// again, so those and most fetch ends never reach the radix heap.
const (
	wheelSize  = 4096
	wheelMask  = wheelSize - 1
	wheelWords = wheelSize / 64
)

// wheel is the simulator's event queue: it pops items in (at, seq) order,
// as queue does, from a timing wheel of one-ms buckets for the items due
// in [cur, cur+wheelSize), the radix heap (far) for those due later, and
// a sorted list for the rare item scheduled before cur. A bucket holds the
// items of one time in push order, which is seq order: an item filed from
// far (pushed earlier) moves into its bucket as soon as its time enters
// the window, before anything can be pushed there directly. A push and a
// pop are an append and a read where queue filed most items two or three
// times (refill) and sorted each time's items (1.45 G of the FB-2009 day's
// instructions in push, pop and refill).
type wheel struct {
	bkt  [wheelSize][]item // bkt[at & wheelMask]: the items at at, for at in [cur, cur+wheelSize)
	bits [wheelWords]uint64
	cur  int64 // the time of the bucket being popped
	head int   // bkt[cur & wheelMask][head:] are queued
	// past holds items scheduled before cur, sorted by (at, seq); past[pastHead:] are queued.
	past     []item
	pastHead int
	far      queue // items at cur+wheelSize or later
	n        int
	seq      uint64
}

func (w *wheel) len() int { return w.n }

func (w *wheel) push(at int64, kind evKind, ref int32, ver uint32) {
	w.seq++
	w.n++
	it := item{at: at, sk: w.seq<<8 | uint64(kind), ref: ref, ver: ver}
	switch d := at - w.cur; {
	case d >= 0 && d < wheelSize:
		w.file(it)
	case d >= wheelSize:
		w.far.pushItem(it)
	default:
		w.pastInsert(it)
	}
}

// file appends an item of the window to its bucket.
func (w *wheel) file(it item) {
	b := it.at & wheelMask
	w.bkt[b] = append(w.bkt[b], it)
	w.bits[b>>6] |= 1 << (b & 63)
}

// pastInsert files an item before cur in (at, seq) order: normally at the
// end (the latest seq).
func (w *wheel) pastInsert(it item) {
	w.past = append(w.past, it)
	r := w.past
	i := len(r) - 1
	for i > w.pastHead && it.less(&r[i-1]) {
		r[i] = r[i-1]
		i--
	}
	r[i] = it
}

// pop returns the least item by (at, seq); the wheel must not be empty.
func (w *wheel) pop() item {
	w.n--
	if w.pastHead < len(w.past) {
		it := w.past[w.pastHead]
		w.pastHead++
		if w.pastHead == len(w.past) {
			w.past, w.pastHead = w.past[:0], 0
		}
		return it
	}
	b := &w.bkt[w.cur&wheelMask]
	if w.head == len(*b) {
		w.advance()
		b = &w.bkt[w.cur&wheelMask]
	}
	it := (*b)[w.head]
	w.head++
	return it
}

// advance empties the bucket at cur and moves cur to the next time that
// has items, filing the far items that enter the window.
func (w *wheel) advance() {
	cb := w.cur & wheelMask
	w.bkt[cb] = w.bkt[cb][:0]
	w.bits[cb>>6] &^= 1 << (cb & 63)
	w.head = 0
	if t, ok := w.next(); ok {
		w.cur = t
	} else {
		w.cur = w.far.peekAt()
	}
	for w.far.len() > 0 && w.far.peekAt()-w.cur < wheelSize {
		w.file(w.far.pop())
	}
}

// next is the earliest time after cur with a bucket of items, if any:
// the first set bit from cur+1 on, around the wheel.
func (w *wheel) next() (int64, bool) {
	start := (w.cur + 1) & wheelMask
	i := start
	for k := 0; k <= wheelWords; k++ {
		wi := (i >> 6) & (wheelWords - 1)
		word := w.bits[wi]
		if k == 0 {
			word &= ^uint64(0) << (i & 63)
		}
		if word != 0 {
			b := wi<<6 | int64(bits.TrailingZeros64(word))
			return w.cur + 1 + (b-start)&wheelMask, true
		}
		i = (wi + 1) << 6
	}
	return 0, false
}

// peekAt is the time of the next item to pop (the wheel must not be empty).
func (w *wheel) peekAt() int64 {
	if w.pastHead < len(w.past) {
		return w.past[w.pastHead].at
	}
	if w.head == len(w.bkt[w.cur&wheelMask]) {
		w.advance()
	}
	return w.bkt[w.cur&wheelMask][w.head].at
}
