package actuate

import (
	"cmp"
	"context"
	"slices"
	"sync"

	"github.com/rmsidecar/rmsidecar/policy"
)

// Pull keeps the newest hints for the HTTP pull API: GET /v1/hints (the
// newest hints, oldest first) and GET /v1/hints/changes (a cursor the
// Hadoop plug-ins follow). Every hint gets a sequence number when it is
// delivered; the cursor is the newest sequence number a reader has seen, so
// a reader never applies a hint twice and learns when it fell behind.
type Pull struct {
	mu   sync.Mutex
	ring []PulledHint
	next int
	full bool
	seq  uint64
	// current is the newest hint per target (kind plus subject), what a new
	// reader needs: a hint older than the ring can still be in force.
	current map[string]PulledHint
	maxCur  int
	// changed is closed and replaced on every delivery (long-poll wake-up).
	changed chan struct{}
}

// PulledHint is a hint with its place in the pull API's order.
type PulledHint struct {
	Seq    uint64      `json:"seq"`
	Target string      `json:"target"`
	Hint   policy.Hint `json:"hint"`
}

// NewPull keeps the newest capacity hints in order, and the newest hint of
// up to 100 × capacity targets for snapshots.
func NewPull(capacity int) *Pull {
	if capacity <= 0 {
		capacity = 1000
	}
	return &Pull{ring: make([]PulledHint, capacity), current: map[string]PulledHint{}, maxCur: 100 * capacity,
		changed: make(chan struct{})}
}

// Name implements Actuator.
func (*Pull) Name() string { return "http" }

// Deliver implements Actuator.
func (p *Pull) Deliver(_ context.Context, h policy.Hint) error {
	h.Nodes = append([]policy.NodeScore(nil), h.Nodes...) // the engine reuses its buffers
	p.mu.Lock()
	defer p.mu.Unlock()
	p.seq++
	e := PulledHint{Seq: p.seq, Target: h.Target(), Hint: h}
	p.ring[p.next] = e
	p.next++
	if p.next == len(p.ring) {
		p.next, p.full = 0, true
	}
	p.current[e.Target] = e
	if len(p.current) > p.maxCur {
		p.pruneLocked(h.TS)
	}
	close(p.changed)
	p.changed = make(chan struct{})
	return nil
}

// pruneLocked bounds the per-target map: expired hints go first, then the
// oldest half if that was not enough.
func (p *Pull) pruneLocked(now int64) {
	for k, e := range p.current {
		if expired(e.Hint, now) {
			delete(p.current, k)
		}
	}
	if len(p.current) <= p.maxCur {
		return
	}
	seqs := make([]uint64, 0, len(p.current))
	for _, e := range p.current {
		seqs = append(seqs, e.Seq)
	}
	slices.Sort(seqs)
	cut := seqs[len(seqs)/2]
	for k, e := range p.current {
		if e.Seq < cut {
			delete(p.current, k)
		}
	}
}

func expired(h policy.Hint, now int64) bool { return h.ExpiresTS > 0 && h.ExpiresTS <= now }

// Hints returns the kept hints, oldest first (newest last), optionally only
// those at or after sinceTS.
func (p *Pull) Hints(sinceTS int64) []policy.Hint {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []policy.Hint
	p.eachLocked(func(e PulledHint) {
		if e.Hint.TS >= sinceTS {
			out = append(out, e.Hint)
		}
	})
	return out
}

func (p *Pull) eachLocked(f func(PulledHint)) {
	if p.full {
		for _, e := range p.ring[p.next:] {
			f(e)
		}
	}
	for _, e := range p.ring[:p.next] {
		f(e)
	}
}

// HintFilter selects hints for a reader of Changes.
type HintFilter struct {
	// App keeps the hints of this app and those of no app (node and queue
	// hints); empty keeps every app's.
	App string
	// Kinds keeps these kinds; empty keeps every kind.
	Kinds []policy.HintKind
	// Now is the current (event) time: a snapshot leaves out hints that
	// expired by then.
	Now int64
}

func (f HintFilter) keep(h policy.Hint) bool {
	if f.App != "" && h.App != "" && h.App != f.App {
		return false
	}
	return len(f.Kinds) == 0 || slices.Contains(f.Kinds, h.Kind)
}

// Changes is one answer of the cursor API.
type Changes struct {
	// Cursor is the newest sequence number the answer covers: pass it as
	// after next time.
	Cursor uint64 `json:"cursor"`
	// Reset says the answer is a snapshot of every hint in force, not the
	// changes after the reader's cursor: it asked with after = 0, or its
	// cursor was older than what the ring keeps. Drop earlier state.
	Reset bool         `json:"reset"`
	Hints []PulledHint `json:"hints"`
}

// Changes returns the hints after the cursor after that f keeps. With
// after = 0, or a cursor older than the ring, it returns a snapshot: the
// newest in-force hint per target, oldest first, and Reset.
func (p *Pull) Changes(after uint64, f HintFilter) Changes {
	p.mu.Lock()
	defer p.mu.Unlock()
	c := Changes{Cursor: p.seq, Hints: []PulledHint{}}
	oldest := p.oldestLocked()
	if after == 0 || after > p.seq || (oldest > 0 && after+1 < oldest) {
		c.Reset = true
		for _, e := range p.current {
			if f.keep(e.Hint) && !expired(e.Hint, f.Now) {
				c.Hints = append(c.Hints, e)
			}
		}
		slices.SortFunc(c.Hints, func(a, b PulledHint) int { return cmp.Compare(a.Seq, b.Seq) })
		return c
	}
	p.eachLocked(func(e PulledHint) {
		if e.Seq > after && f.keep(e.Hint) {
			c.Hints = append(c.Hints, e)
		}
	})
	return c
}

func (p *Pull) oldestLocked() uint64 {
	if p.full {
		return p.ring[p.next].Seq
	}
	if p.next == 0 {
		return 0
	}
	return p.ring[0].Seq
}

// Wait returns a channel closed at the next delivery after cursor, or an
// already closed one if there were deliveries after cursor.
func (p *Pull) Wait(cursor uint64) <-chan struct{} {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.seq > cursor {
		done := make(chan struct{})
		close(done)
		return done
	}
	return p.changed
}
