package actuate

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/rs/zerolog"

	"github.com/rmsidecar/rmsidecar/policy"
)

// Actuator delivers hints to one destination.
type Actuator interface {
	Name() string
	// Deliver returns an error when the hint did not arrive; the dispatcher
	// retries it.
	Deliver(ctx context.Context, h policy.Hint) error
}

// Log is the dry-run actuator: one structured line per hint.
type Log struct{ Log zerolog.Logger }

// Name implements Actuator.
func (Log) Name() string { return "log" }

// Deliver implements Actuator.
func (l Log) Deliver(_ context.Context, h policy.Hint) error {
	b, err := json.Marshal(h)
	if err != nil {
		return fmt.Errorf("encode hint %s: %w", h.ID, err)
	}
	l.Log.Info().Str("policy", h.Policy).Str("kind", string(h.Kind)).RawJSON("hint", b).Msg("hint (dry run)")
	return nil
}

// Pull keeps the newest hints for the HTTP pull API (/v1/hints).
type Pull struct {
	mu   sync.Mutex
	ring []policy.Hint
	next int
	full bool
}

// NewPull keeps the newest capacity hints.
func NewPull(capacity int) *Pull {
	if capacity <= 0 {
		capacity = 1000
	}
	return &Pull{ring: make([]policy.Hint, capacity)}
}

// Name implements Actuator.
func (*Pull) Name() string { return "http" }

// Deliver implements Actuator.
func (p *Pull) Deliver(_ context.Context, h policy.Hint) error {
	h.Nodes = append([]policy.NodeScore(nil), h.Nodes...) // the engine reuses its buffers
	p.mu.Lock()
	p.ring[p.next] = h
	p.next++
	if p.next == len(p.ring) {
		p.next, p.full = 0, true
	}
	p.mu.Unlock()
	return nil
}

// Hints returns the kept hints, oldest first (newest last), optionally only
// those at or after sinceTS.
func (p *Pull) Hints(sinceTS int64) []policy.Hint {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []policy.Hint
	add := func(hs []policy.Hint) {
		for _, h := range hs {
			if h.TS >= sinceTS {
				out = append(out, h)
			}
		}
	}
	if p.full {
		add(p.ring[p.next:])
	}
	add(p.ring[:p.next])
	return out
}
