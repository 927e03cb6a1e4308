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

// queue pops items in (at, seq) order. It is a radix heap: the simulator
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
	q.n++
	it := item{at: at, sk: q.seq<<8 | uint64(kind), ref: ref, ver: ver}
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
