package actuate

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

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
type Log struct {
	Log zerolog.Logger
	// Short logs a line a person reads at a console (kind, target, policy,
	// reason) instead of the hint's JSON.
	Short bool
}

// Name implements Actuator.
func (Log) Name() string { return "log" }

// Deliver implements Actuator.
func (l Log) Deliver(_ context.Context, h policy.Hint) error {
	if l.Short {
		l.Log.Info().Msg(ShortLine(h))
		return nil
	}
	b, err := json.Marshal(h)
	if err != nil {
		return fmt.Errorf("encode hint %s: %w", h.ID, err)
	}
	l.Log.Info().Str("policy", h.Policy).Str("kind", string(h.Kind)).RawJSON("hint", b).Msg("hint (dry run)")
	return nil
}

// maxReason bounds the reason in a short line; the full hint is in
// /v1/hints and the JSON log.
const maxReason = 100

// ShortLine is one hint as a person reads it: "hint KIND TARGET (POLICY): REASON".
func ShortLine(h policy.Hint) string {
	var target []string
	for _, s := range []string{h.App, h.Queue} {
		if s != "" {
			target = append(target, s)
		}
	}
	// The most specific of task, attempt, container names the subject.
	for _, s := range []string{h.Attempt, h.Container, h.Task} {
		if s != "" {
			target = append(target, s)
			break
		}
	}
	switch {
	case h.Kind == policy.KindReduceBinding:
		target = append(target, fmt.Sprintf("partition %d -> %s", h.Partition, h.Node))
	case h.Node != "" && len(target) > 0:
		target = append(target, "-> "+h.Node)
	case h.Node != "":
		target = append(target, h.Node)
	case len(h.Nodes) > 0:
		target = append(target, "-> "+h.Nodes[0].Node)
	}
	reason := h.Reason
	if r := []rune(reason); len(r) > maxReason {
		reason = string(r[:maxReason-1]) + "…"
	}
	return fmt.Sprintf("hint %s %s (%s): %s", h.Kind, strings.Join(target, " "), h.Policy, reason)
}
