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

// releaseFeed copies each batch's messages and events, then releases the
// batch, as the live loop does once it has applied one.
type releaseFeed struct {
	recFeed
	bufs   map[*batchBuf]int // batches seen per buffer
	reused int
}

func (f *releaseFeed) EnqueueBatch(_ context.Context, ms []Message) error {
	for _, m := range ms {
		if m.Event != nil {
			ev := *m.Event
			m.Event = &ev
		}
		f.got = append(f.got, m)
	}
	f.batches = append(f.batches, len(ms))
	if f.bufs[ms[0].buf] > 0 {
		f.reused++
	}
	f.bufs[ms[0].buf]++
	Release(ms)
	return nil
}

// TestConsumeClaimRecyclesReleasedBatches: batches a feed releases are
// reused for later ones, and what the feed read before releasing is what a
// feed fed one by one gets.
func TestConsumeClaimRecyclesReleasedBatches(t *testing.T) {
	const n = 8*MaxBatch + 5
	var records []*sarama.ConsumerMessage
	for i := range n {
		v := fmt.Sprintf(`{"v":1,"id":"e%d","type":"task.progress","ts":%d,"app":"a%d","task":"t%d","attempt":"t%d_0","progress":0.%d,"phase":"map"}`,
			i, 1000+i, i%7, i%13, i%13, i%10)
		if i%100 == 3 {
			v = `{"v":1,"type":"no.such"}`
		}
		records = append(records, &sarama.ConsumerMessage{Topic: "ev", Partition: 3, Offset: int64(i), Key: []byte(fmt.Sprint(i)), Value: []byte(v)})
	}
	run := func(feed Feed) {
		t.Helper()
		h := &groupHandler{g: NewGroupConsumer(nil, GroupOptions{Feed: feed, DeadLetters: &recDead{}})}
		for off := 0; off < n; off += MaxBatch {
			ch := make(chan *sarama.ConsumerMessage, n)
			for _, r := range records[off:min(n, off+MaxBatch)] {
				ch <- r
			}
			close(ch)
			if err := h.ConsumeClaim(fakeSession{context.Background()}, fakeClaim{ch}); err != nil {
				t.Fatal(err)
			}
		}
	}
	single := &recFeed{}
	run(single)
	rel := &releaseFeed{bufs: map[*batchBuf]int{}}
	run(rel)
	if len(rel.got) != n || len(single.got) != n {
		t.Fatalf("released feed got %d, one by one %d, want %d", len(rel.got), len(single.got), n)
	}
	decoded := 0
	for i := range n {
		s, r := single.got[i], rel.got[i]
		if r.Event != nil {
			decoded++
		}
		if r.Offset != s.Offset || string(r.Key) != string(s.Key) || (r.Err == nil) != (s.Err == nil) || !reflect.DeepEqual(r.Event, s.Event) {
			t.Fatalf("message %d: released feed %+v (%+v), one by one %+v (%+v)", i, r, r.Event, s, s.Event)
		}
	}
	if want := n - (n+96)/100; decoded != want {
		t.Errorf("%d events decoded, want %d (one in 100 is invalid)", decoded, want)
	}
	// sync.Pool may drop a released buffer (the race detector drops some on
	// purpose), but not all of eight in a row.
	if rel.reused == 0 {
		t.Errorf("no buffer reused over %d released batches", len(rel.bufs))
	}
}

// TestReleaseIgnoresForeignSlices: Release leaves alone slices that are not
// a whole consumer batch (a feed's own slice, a later part of a batch).
func TestReleaseIgnoresForeignSlices(t *testing.T) {
	g := NewGroupConsumer(nil, GroupOptions{})
	buf := g.bufs.Get().(*batchBuf)
	ms := buf.msgs[:4]
	for i := range ms {
		ms[i] = Message{Offset: int64(i), Key: []byte("k"), buf: buf}
	}
	for _, tc := range []struct {
		name string
		ms   []Message
	}{
		{"empty", nil},
		{"feed's own", []Message{{Offset: 1}}},
		{"copied out of a batch", append([]Message(nil), ms...)},
		{"tail of a batch", ms[1:]},
	} {
		Release(tc.ms)
		if ms[1].Key == nil {
			t.Fatalf("%s: Release cleared a batch it was not given", tc.name)
		}
	}
	Release(ms)
	if ms[1].Key != nil || ms[1].buf != nil {
		t.Error("Release kept the keys of a released batch")
	}
}
