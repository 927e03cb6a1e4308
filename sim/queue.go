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

// queue pops items in (at, seq) order. It is a radix heap over digits of
// radixBits bits: the simulator never schedules before the last popped
// time (and when it does, the item still pops in order, from the ready
// bucket), so an item is filed by the highest digit in which its time
// differs from the last popped time (its level) and its own value of that
// digit, and it moves only to lower levels until it is the earliest. With
// 4-bit digits an item moves at most a quarter as often as by single bits
// (a heartbeat a second ahead: 3 moves instead of up to 10). The least
// item is in the lowest non-empty bucket of the lowest non-empty level.
// The ready bucket holds the items at (or before) the last popped time in
// (at, seq) order; every other bucket is unordered.
type queue struct {
	ready  []item // at <= last, sorted by (at, seq); ready[head:] are queued
	head   int
	bkt    [radixLevels][radixDigits][]item // bkt[l][d]: level l (see bucketOf), digit d
	dmask  [radixLevels]uint16              // bit d of dmask[l]: bkt[l][d] is not empty
	levels uint16                           // bit l: dmask[l] != 0
	last   uint64                           // key of the last popped time
	n      int
	seq    uint64
}

const (
	radixBits   = 4
	radixDigits = 1 << radixBits
	radixLevels = 64 / radixBits
)

// bucketOf is the level and digit of key k > last: the highest digit in
// which k differs from last, and k's value there.
func bucketOf(k, last uint64) (level, digit uint) {
	level = uint(bits.Len64(k^last)-1) / radixBits
	return level, uint(k>>(level*radixBits)) & (radixDigits - 1)
}

// file puts an item with key k > q.last in its bucket.
func (q *queue) file(it item, k uint64) {
	l, d := bucketOf(k, q.last)
	q.bkt[l][d] = append(q.bkt[l][d], it)
	q.dmask[l] |= 1 << d
	q.levels |= 1 << l
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
	q.file(it, k)
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
// bucket and files the rest of their bucket by the new last time: all of
// them share its digits from the bucket's level up, so they go to lower
// levels, and the other buckets stay where they are.
func (q *queue) refill() {
	q.ready, q.head = q.ready[:0], 0
	l := uint(bits.TrailingZeros16(q.levels))
	d := uint(bits.TrailingZeros16(q.dmask[l]))
	items := q.bkt[l][d]
	m := key(items[0].at)
	for i := 1; i < len(items); i++ {
		m = min(m, key(items[i].at))
	}
	q.last = m
	if q.dmask[l] &^= 1 << d; q.dmask[l] == 0 {
		q.levels &^= 1 << l
	}
	for _, it := range items {
		if k := key(it.at); k != m {
			q.file(it, k)
			continue
		}
		q.ready = append(q.ready, it)
	}
	q.bkt[l][d] = items[:0]
	sortBySeq(q.ready)
}

// sortBySeq sorts items of one time by seq (unique, so every sort agrees):
// by insertion when they are few, as they mostly are (a refill readies 1.5
// items on average in the FB-2009 day), without a call per comparison.
func sortBySeq(r []item) {
	if len(r) > 16 {
		slices.SortFunc(r, func(a, b item) int {
			if a.sk < b.sk {
				return -1
			}
			return 1
		})
		return
	}
	for i := 1; i < len(r); i++ {
		it := r[i]
		j := i
		for j > 0 && r[j-1].sk > it.sk {
			r[j] = r[j-1]
			j--
		}
		r[j] = it
	}
}

// peekAt is the time of the next item to pop (the queue must not be empty).
func (q *queue) peekAt() int64 {
	if q.head == len(q.ready) {
		q.refill()
	}
	return q.ready[q.head].at
}
