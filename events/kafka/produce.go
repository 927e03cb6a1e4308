package kafka

import (
	"github.com/rmsidecar/rmsidecar/events"

	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/IBM/sarama"
)

// ProduceOptions configure ProduceLog.
type ProduceOptions struct {
	// Topic receives every message (required).
	Topic string
	// NodeTopic, when set, receives node.* events instead of Topic, so every
	// instance of a group can read them (see docs/operations.md).
	NodeTopic string
	// Speed keeps the log's relative timing divided by Speed: 1 is real
	// time, 10 ten times faster; 0 produces as fast as possible.
	Speed float64
	// Rewrite, when set, may change each valid event before it is produced
	// (the demo source loops a recorded log with fresh ids and times).
	Rewrite func(*events.Event)
	// Batch is how many messages go in one produce call when Speed is 0
	// (default 500).
	Batch int
	// OnInvalid, when set, learns of each line that is not a valid event
	// (it is still produced, for the consumer's dead-letter path).
	OnInvalid func(*events.LineError)
}

// TopicFor is the topic an event of type t is produced to: nodeTopic for
// node.* events when it is set, so every instance of a group reads every
// node event (docs/operations.md), else topic. Every producer of events
// (replay, the bridge, the demo, POST /v1/events) routes through it.
func TopicFor(t events.Type, topic, nodeTopic string) string {
	if nodeTopic != "" && t.IsNode() {
		return nodeTopic
	}
	return topic
}

// ProduceStats count what ProduceLog did.
type ProduceStats struct {
	Lines    int // non-blank lines read
	Produced int // messages written
	Invalid  int // lines that are not valid events v1, produced unchanged without a key
}

// ProduceLog writes an events v1 JSONL log to Kafka, one message per line,
// keyed by Event.Key (app, else node). Lines that do not decode are produced
// unchanged without a key and counted: the consumer's dead-letter path is
// where they are judged, as in production.
func ProduceLog(ctx context.Context, p sarama.SyncProducer, r io.Reader, o ProduceOptions) (ProduceStats, error) {
	var st ProduceStats
	if o.Topic == "" {
		return st, errors.New("produce: no topic")
	}
	if o.Batch <= 0 {
		o.Batch = 500
	}
	rd := events.NewReader(r)
	var (
		batch   []*sarama.ProducerMessage
		start   time.Time
		firstTS int64
	)
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		if err := p.SendMessages(batch); err != nil {
			return fmt.Errorf("produce to %s: %w", o.Topic, err)
		}
		st.Produced += len(batch)
		batch = batch[:0]
		return nil
	}
	for {
		if err := ctx.Err(); err != nil {
			return st, err
		}
		ev, err := rd.Next()
		if errors.Is(err, io.EOF) {
			return st, flush()
		}
		msg := &sarama.ProducerMessage{Topic: o.Topic}
		var le *events.LineError
		switch {
		case errors.As(err, &le):
			if le.Raw == nil {
				return st, fmt.Errorf("produce: %w", le)
			}
			st.Lines++
			st.Invalid++
			if o.OnInvalid != nil {
				o.OnInvalid(le)
			}
			msg.Value = sarama.ByteEncoder(le.Raw)
		case err != nil:
			return st, fmt.Errorf("produce: %w", err)
		default:
			st.Lines++
			if o.Rewrite != nil {
				o.Rewrite(&ev)
			}
			b, err := events.Encode(&ev)
			if err != nil {
				return st, fmt.Errorf("produce line %d: %w", rd.Line(), err)
			}
			msg.Value = sarama.ByteEncoder(b)
			msg.Key = sarama.StringEncoder(ev.Key())
			msg.Topic = TopicFor(ev.Type, o.Topic, o.NodeTopic)
			if o.Speed > 0 {
				if start.IsZero() {
					start, firstTS = time.Now(), ev.TS
				}
				due := start.Add(time.Duration(float64(ev.TS-firstTS)/o.Speed) * time.Millisecond)
				if d := time.Until(due); d > 0 {
					if err := flush(); err != nil {
						return st, err
					}
					select {
					case <-ctx.Done():
						return st, ctx.Err()
					case <-time.After(d):
					}
				}
			}
		}
		batch = append(batch, msg)
		if len(batch) >= o.Batch {
			if err := flush(); err != nil {
				return st, err
			}
		}
	}
}

// NewProducer opens a synchronous producer with the shared client settings.
func NewProducer(c Client) (sarama.SyncProducer, error) {
	cfg, err := SaramaConfig(c)
	if err != nil {
		return nil, err
	}
	p, err := sarama.NewSyncProducer(c.Brokers, cfg)
	if err != nil {
		return nil, fmt.Errorf("kafka producer %v: %w", c.Brokers, err)
	}
	return p, nil
}

// NewGroup opens a sarama consumer group.
func NewGroup(c Client, group string) (sarama.ConsumerGroup, error) {
	cfg, err := SaramaConfig(c)
	if err != nil {
		return nil, err
	}
	g, err := sarama.NewConsumerGroup(c.Brokers, group, cfg)
	if err != nil {
		return nil, fmt.Errorf("kafka consumer group %s at %v: %w", group, c.Brokers, err)
	}
	return g, nil
}
