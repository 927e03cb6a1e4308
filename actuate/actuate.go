package actuate

import (
	"context"
	"encoding/json"
	"fmt"

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
