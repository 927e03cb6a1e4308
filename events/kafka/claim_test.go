package kafka

import (
	"context"
	"fmt"
	"reflect"
	"sync"
	"testing"

	"github.com/IBM/sarama"
)

type fakeSession struct{ ctx context.Context }

func (fakeSession) Claims() map[string][]int32                  { return nil }
func (fakeSession) MemberID() string                            { return "m" }
func (fakeSession) GenerationID() int32                         { return 1 }
func (fakeSession) MarkOffset(string, int32, int64, string)     {}
func (fakeSession) Commit()                                     {}
func (fakeSession) ResetOffset(string, int32, int64, string)    {}
func (fakeSession) MarkMessage(*sarama.ConsumerMessage, string) {}
func (s fakeSession) Context() context.Context                  { return s.ctx }

type fakeClaim struct{ msgs chan *sarama.ConsumerMessage }

func (fakeClaim) Topic() string                              { return "ev" }
func (fakeClaim) Partition() int32                           { return 3 }
func (fakeClaim) InitialOffset() int64                       { return 0 }
func (fakeClaim) HighWaterMarkOffset() int64                 { return 1000 }
func (c fakeClaim) Messages() <-chan *sarama.ConsumerMessage { return c.msgs }

// recFeed records what it is fed; batchFeed also takes batches.
type recFeed struct {
	mu      sync.Mutex
	got     []Message
	batches []int
}

func (f *recFeed) Enqueue(_ context.Context, m Message) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.got = append(f.got, m)
	return nil
}
func (f *recFeed) Sync(context.Context, bool) (map[TopicPartition]int64, error) { return nil, nil }
func (f *recFeed) Assigned(map[string][]int32)                                  {}
func (f *recFeed) Claimed(TopicPartition, int64, int64)                         {}
func (f *recFeed) Released(TopicPartition)                                      {}

type batchFeed struct{ recFeed }

func (f *batchFeed) EnqueueBatch(_ context.Context, ms []Message) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.got = append(f.got, ms...)
	f.batches = append(f.batches, len(ms))
	return nil
}

type recDead struct {
	mu   sync.Mutex
	offs []int64
}

func (d *recDead) Send(_ context.Context, m *sarama.ConsumerMessage, _ error) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.offs = append(d.offs, m.Offset)
	return nil
}

// TestConsumeClaimBatches: a feed that takes batches gets the same messages,
// in the same order, as one fed message by message, in batches of at most
// MaxBatch; malformed records reach the dead-letter topic either way.
func TestConsumeClaimBatches(t *testing.T) {
	const n = 3*MaxBatch + 17
	var records []*sarama.ConsumerMessage
	for i := range n {
		v := fmt.Sprintf(`{"v":1,"id":"e%d","type":"task.progress","ts":%d,"app":"a","task":"t","attempt":"t_0","progress":0.5,"phase":"map"}`, i, 1000+i)
		if i%50 == 7 {
			v = `{"v":1,"type":` // malformed
		}
		records = append(records, &sarama.ConsumerMessage{Topic: "ev", Partition: 3, Offset: int64(i), Key: []byte("a"), Value: []byte(v)})
	}
	consume := func(t *testing.T, feed Feed) ([]Message, []int64) {
		dead := &recDead{}
		h := &groupHandler{g: NewGroupConsumer(nil, GroupOptions{Feed: feed, DeadLetters: dead})}
		ch := make(chan *sarama.ConsumerMessage, n) // all waiting: batches fill up
		for _, r := range records {
			ch <- r
		}
		close(ch)
		if err := h.ConsumeClaim(fakeSession{context.Background()}, fakeClaim{ch}); err != nil {
			t.Fatal(err)
		}
		var got []Message
		switch f := feed.(type) {
		case *batchFeed:
			got = f.got
			for _, b := range f.batches {
				if b < 1 || b > MaxBatch {
					t.Errorf("batch of %d", b)
				}
			}
			if len(f.batches) < n/MaxBatch {
				t.Errorf("%d batches for %d waiting messages", len(f.batches), n)
			}
		case *recFeed:
			got = f.got
		}
		return got, dead.offs
	}
	single, singleDead := consume(t, &recFeed{})
	batched, batchedDead := consume(t, &batchFeed{})
	if len(single) != n || len(batched) != n {
		t.Fatalf("fed %d one by one and %d batched, want %d", len(single), len(batched), n)
	}
	if len(singleDead) == 0 || !reflect.DeepEqual(singleDead, batchedDead) {
		t.Fatalf("dead letters %v one by one, %v batched", singleDead, batchedDead)
	}
	for i := range n {
		s, b := single[i], batched[i]
		if s.Offset != int64(i) || b.Offset != s.Offset || b.Topic != s.Topic || b.Partition != s.Partition ||
			b.HighWater != s.HighWater || string(b.Key) != string(s.Key) || (b.Err == nil) != (s.Err == nil) {
			t.Fatalf("message %d: batched %+v, one by one %+v", i, b, s)
		}
		if (s.Event == nil) != (s.Err != nil) || !reflect.DeepEqual(s.Event, b.Event) {
			t.Fatalf("message %d: events %+v and %+v", i, s.Event, b.Event)
		}
	}
}
