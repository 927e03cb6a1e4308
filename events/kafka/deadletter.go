package kafka

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/IBM/sarama"
)

// origin identifies a consumed record: topic, partition, offset.
type origin struct {
	topic     string
	partition int32
	offset    int64
}

// DefaultDeadLetterTail is how many of the dead-letter topic's latest records
// per partition Recall reads: at least the bad records consumed since the last
// commit, which is what a restart re-consumes.
const DefaultDeadLetterTail = 10000

// Recall reads the last tail records of every partition of the dead-letter
// topic and remembers where each came from (the origin headers), so Send
// skips a record that is already there: after a crash the records consumed
// since the last commit are consumed again, and a bad one must not be
// dead-lettered twice. It returns how many it remembered; a missing topic
// is no error (nothing was dead-lettered yet).
func (d *DeadLetterProducer) Recall(ctx context.Context, c sarama.Client, tail int) (int, error) {
	if tail <= 0 {
		tail = DefaultDeadLetterTail
	}
	parts, err := c.Partitions(d.topic)
	if err != nil {
		if err == sarama.ErrUnknownTopicOrPartition {
			return 0, nil
		}
		return 0, fmt.Errorf("dead-letter topic %s: %w", d.topic, err)
	}
	cons, err := sarama.NewConsumerFromClient(c)
	if err != nil {
		return 0, fmt.Errorf("dead-letter topic %s: %w", d.topic, err)
	}
	defer cons.Close()
	seen := map[origin]bool{}
	for _, p := range parts {
		newest, err := c.GetOffset(d.topic, p, sarama.OffsetNewest)
		if err != nil {
			return 0, fmt.Errorf("dead-letter topic %s/%d: %w", d.topic, p, err)
		}
		oldest, err := c.GetOffset(d.topic, p, sarama.OffsetOldest)
		if err != nil {
			return 0, fmt.Errorf("dead-letter topic %s/%d: %w", d.topic, p, err)
		}
		from := max(oldest, newest-int64(tail))
		if from >= newest {
			continue
		}
		pc, err := cons.ConsumePartition(d.topic, p, from)
		if err != nil {
			return 0, fmt.Errorf("dead-letter topic %s/%d: %w", d.topic, p, err)
		}
		err = func() error {
			defer pc.Close()
			for {
				select {
				case m := <-pc.Messages():
					if o, ok := originOf(m); ok {
						seen[o] = true
					}
					if m.Offset >= newest-1 {
						return nil
					}
				case e := <-pc.Errors():
					return e
				case <-ctx.Done():
					return ctx.Err()
				case <-time.After(10 * time.Second):
					return fmt.Errorf("no record within 10 s")
				}
			}
		}()
		if err != nil {
			return 0, fmt.Errorf("dead-letter topic %s/%d: %w", d.topic, p, err)
		}
	}
	d.mu.Lock()
	d.sent = seen
	d.mu.Unlock()
	return len(seen), nil
}

func originOf(m *sarama.ConsumerMessage) (origin, bool) {
	var o origin
	var okT, okP, okO bool
	for _, h := range m.Headers {
		switch string(h.Key) {
		case HeaderTopic:
			o.topic, okT = string(h.Value), true
		case HeaderPartition:
			p, err := strconv.ParseInt(string(h.Value), 10, 32)
			o.partition, okP = int32(p), err == nil
		case HeaderOffset:
			off, err := strconv.ParseInt(string(h.Value), 10, 64)
			o.offset, okO = off, err == nil
		}
	}
	return o, okT && okP && okO
}

// already reports (and forgets: the offset is consumed once more at most) a
// record Recall found on the dead-letter topic.
func (d *DeadLetterProducer) already(m *sarama.ConsumerMessage) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	o := origin{m.Topic, m.Partition, m.Offset}
	if d.sent[o] {
		delete(d.sent, o)
		return true
	}
	return false
}

// deadLetterState is the part of DeadLetterProducer Recall fills.
type deadLetterState struct {
	mu   sync.Mutex
	sent map[origin]bool
}
