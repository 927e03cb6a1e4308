package sidecar

import (
	"context"
	"fmt"

	"github.com/rmsidecar/rmsidecar/cluster"
	"github.com/rmsidecar/rmsidecar/engine"
	"github.com/rmsidecar/rmsidecar/events/kafka"
	"github.com/rmsidecar/rmsidecar/policy"
	"github.com/rmsidecar/rmsidecar/profiles"
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

// ProfileCheckpoints keeps the checkpoint in the profiles store: in chunks
// (format 2, see ckFormatChunked) when the store is a *profiles.DB, as one
// record (format 1) otherwise. Load reads both formats. Saves must not run
// concurrently (the loop saves one at a time).
type ProfileCheckpoints struct {
	Store policy.ProfileStore
	// chunkBytes is the size a chunk is cut at (0: defaultChunkBytes); tests
	// set it small to get many chunks.
	chunkBytes int
	// afterChunk (tests) runs after each chunk is committed; its error
	// stops the save there.
	afterChunk func(ns string) error
}

// Save implements Checkpointer.
func (p ProfileCheckpoints) Save(ctx context.Context, c *Checkpoint) error {
	cs, ok := p.Store.(chunkStore)
	if !ok {
		if c.Cluster != nil {
			c.Cluster.FillHistories() // one record of JSON: the histories as slices
		}
		if err := p.Store.Put(ctx, checkpointNS, checkpointKey, c); err != nil {
			return fmt.Errorf("save checkpoint: %w", err)
		}
		return nil
	}
	limit := p.chunkBytes
	if limit <= 0 {
		limit = defaultChunkBytes
	}
	if err := saveChunked(ctx, cs, c, limit, p.afterChunk); err != nil {
		return fmt.Errorf("save checkpoint: %w", err)
	}
	return nil
}

// Load implements Checkpointer.
func (p ProfileCheckpoints) Load(ctx context.Context) (*Checkpoint, error) {
	var (
		c   *Checkpoint
		err error
	)
	if cs, ok := p.Store.(chunkStore); ok {
		// One read view: the header and the chunks it names are of the
		// same save even if a save commits meanwhile.
		err = cs.View(ctx, func(tx *profiles.ReadTx) error {
			var err error
			c, err = loadCheckpoint(tx.Get)
			return err
		})
	} else {
		c, err = loadCheckpoint(func(ns, key string, v any) (bool, error) { return p.Store.Get(ctx, ns, key, v) })
	}
	if err != nil {
		return nil, fmt.Errorf("load checkpoint: %w", err)
	}
	return c, nil
}

// loadCheckpoint reads the checkpoint in either format; nil, nil when there
// is none.
func loadCheckpoint(get getFunc) (*Checkpoint, error) {
	var s storedCheckpoint
	ok, err := get(checkpointNS, checkpointKey, &s)
	if err != nil || !ok {
		return nil, err
	}
	switch s.V {
	case ckFormatSingle:
		return &s.Checkpoint, nil
	case ckFormatChunked:
		c, err := loadChunks(get, &s)
		if err != nil {
			return nil, fmt.Errorf("generation %d: %w", s.Gen, err)
		}
		if c.V != 1 {
			return nil, fmt.Errorf("version %d, want 1", c.V)
		}
		return c, nil
	default:
		return nil, fmt.Errorf("version %d, want 1 or %d", s.V, ckFormatChunked)
	}
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
