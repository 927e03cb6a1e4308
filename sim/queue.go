package sim

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

// item is one scheduled event. Items are values in a slice heap, so
// scheduling allocates nothing once the heap has grown.
type item struct {
	at   int64  // event time, ms since the start of the run
	seq  uint64 // tie-break: scheduling order, so equal times pop deterministically
	kind evKind
	ver  uint32 // version of the target when scheduled; a stale item is skipped
	ref  int32  // index of the job, node, link or attempt
}

func (a *item) less(b *item) bool {
	if a.at != b.at {
		return a.at < b.at
	}
	return a.seq < b.seq
}

// queue is a binary min-heap of items ordered by (at, seq).
type queue struct {
	h   []item
	seq uint64
}

func (q *queue) len() int { return len(q.h) }

func (q *queue) push(at int64, kind evKind, ref int32, ver uint32) {
	q.seq++
	q.h = append(q.h, item{at: at, seq: q.seq, kind: kind, ref: ref, ver: ver})
	h := q.h
	i := len(h) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !h[i].less(&h[p]) {
			break
		}
		h[i], h[p] = h[p], h[i]
		i = p
	}
}

func (q *queue) pop() item {
	h := q.h
	top := h[0]
	n := len(h) - 1
	h[0] = h[n]
	q.h = h[:n]
	h = q.h
	i := 0
	for {
		l := 2*i + 1
		if l >= n {
			break
		}
		m := l
		if r := l + 1; r < n && h[r].less(&h[l]) {
			m = r
		}
		if !h[m].less(&h[i]) {
			break
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
	return top
}
