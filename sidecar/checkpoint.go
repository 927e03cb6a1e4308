package sidecar

import (
	"context"
	"fmt"

	"github.com/rmsidecar/rmsidecar/cluster"
	"github.com/rmsidecar/rmsidecar/engine"
	"github.com/rmsidecar/rmsidecar/events/kafka"
	"github.com/rmsidecar/rmsidecar/policy"
)

// Checkpoint is what a restart resumes from: the cluster state, the engine's
// hint sequence and hints in force, and the next offset of every partition
// the state includes. It is written before offsets are committed, so the
// committed offsets never run ahead of it; events between a checkpoint and a
// crash are re-consumed and re-applied, which changes nothing twice.
type Checkpoint struct {
	V         int                 `json:"v"`
	Cluster   *cluster.Checkpoint `json:"cluster"`
	Engine    engine.Checkpoint   `json:"engine"`
	Positions []Position          `json:"positions"`
	// Outbox holds the hints emitted by the events the checkpoint covers
	// that no actuator had delivered yet. Writing them here, not waiting for
	// delivery, is the barrier before offsets are committed: an actuator
	// that is down does not stop ingestion, and after a restart the outbox
	// is dispatched again (the journal skips what was delivered meanwhile).
	Outbox []policy.Hint `json:"outbox,omitempty"`
}

// Position is the next offset to consume of one partition.
type Position struct {
	Topic     string `json:"topic"`
	Partition int32  `json:"partition"`
	Next      int64  `json:"next"`
}

// Checkpoint namespace and key in the profiles store: learned state and the
// state it was learned on live and are saved together.
const (
	checkpointNS  = "rmsidecar"
	checkpointKey = "checkpoint"
)

// ProfileCheckpoints keeps the checkpoint in the profiles store.
type ProfileCheckpoints struct{ Store policy.ProfileStore }

// Save implements Checkpointer.
func (p ProfileCheckpoints) Save(ctx context.Context, c *Checkpoint) error {
	if err := p.Store.Put(ctx, checkpointNS, checkpointKey, c); err != nil {
		return fmt.Errorf("save checkpoint: %w", err)
	}
	return nil
}

// Load implements Checkpointer.
func (p ProfileCheckpoints) Load(ctx context.Context) (*Checkpoint, error) {
	var c Checkpoint
	ok, err := p.Store.Get(ctx, checkpointNS, checkpointKey, &c)
	if err != nil {
		return nil, fmt.Errorf("load checkpoint: %w", err)
	}
	if !ok {
		return nil, nil
	}
	if c.V != 1 {
		return nil, fmt.Errorf("load checkpoint: version %d, want 1", c.V)
	}
	return &c, nil
}

// Checkpointer stores the loop's checkpoint.
type Checkpointer interface {
	Save(ctx context.Context, c *Checkpoint) error
	// Load returns nil, nil when there is no checkpoint.
	Load(ctx context.Context) (*Checkpoint, error)
}

func positionsOf(m map[kafka.TopicPartition]int64) []Position {
	out := make([]Position, 0, len(m))
	for tp, next := range m {
		out = append(out, Position{Topic: tp.Topic, Partition: tp.Partition, Next: next})
	}
	sortPositions(out)
	return out
}
