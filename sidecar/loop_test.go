package sidecar

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/rmsidecar/rmsidecar/actuate"
	"github.com/rmsidecar/rmsidecar/cluster"
	"github.com/rmsidecar/rmsidecar/engine"
	"github.com/rmsidecar/rmsidecar/events"
	"github.com/rmsidecar/rmsidecar/events/kafka"
	"github.com/rmsidecar/rmsidecar/policy"
	"github.com/rmsidecar/rmsidecar/profiles"
)

// kinder places every pending task on n1, so each task.pending yields a hint.
type kinder struct{}

func (kinder) Name() string { return "kinder" }
func (kinder) Place(context.Context, cluster.View, *cluster.Task) ([]policy.NodeScore, *policy.Status) {
	return []policy.NodeScore{{Node: "n1", Score: 1}}, nil
}

type sink struct {
	mu sync.Mutex
	hs []policy.Hint
}

func (s *sink) Dispatch(_ context.Context, hs []policy.Hint) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.hs = append(s.hs, hs...)
	return len(hs), nil
}

type memCheckpoints struct {
	mu    sync.Mutex
	saved []*Checkpoint
}

func (m *memCheckpoints) Save(_ context.Context, c *Checkpoint) error {
	m.mu.Lock()
	m.saved = append(m.saved, c)
	m.mu.Unlock()
	return nil
}
func (m *memCheckpoints) Load(context.Context) (*Checkpoint, error) { return nil, nil }
func (m *memCheckpoints) count() int                                { m.mu.Lock(); defer m.mu.Unlock(); return len(m.saved) }

func readLog(t *testing.T) []events.Event {
	t.Helper()
	f, err := os.Open("../demo/recorded.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := events.NewReader(f)
	var out []events.Event
	for {
		ev, err := r.Next()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, ev)
	}
}

func startLoop(t *testing.T, ck Checkpointer) (*Loop, *sink, func()) {
	t.Helper()
	s := &sink{}
	eng := engine.New(policy.NewStack(kinder{}), engine.Options{Log: zerolog.Nop()})
	l := NewLoop(eng, LoopOptions{QueueSize: 8, Checkpoints: ck, Sink: s, EventsTopic: "ev", Log: zerolog.Nop()})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- l.Run(ctx) }()
	return l, s, func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
	}
}

func TestLoopAppliesInOrderAndReportsPositions(t *testing.T) {
	ck := &memCheckpoints{}
	l, s, stop := startLoop(t, ck)
	evs := readLog(t)
	ctx := context.Background()
	for i := range evs {
		m := kafka.Message{Topic: "ev", Partition: int32(i % 2), Offset: int64(i / 2), Event: &evs[i], Received: time.Now()}
		if err := l.Enqueue(ctx, m); err != nil {
			t.Fatal(err)
		}
	}
	if err := l.Enqueue(ctx, kafka.Message{Topic: "ev", Partition: 1, Offset: 100, Err: errors.New("bad"), Received: time.Now()}); err != nil {
		t.Fatal(err)
	}
	pos, err := l.Sync(ctx, true)
	if err != nil {
		t.Fatal(err)
	}
	want := map[kafka.TopicPartition]int64{{Topic: "ev", Partition: 0}: int64((len(evs) + 1) / 2), {Topic: "ev", Partition: 1}: 101}
	for tp, off := range want {
		if pos[tp] != off {
			t.Errorf("position %v = %d, want %d", tp, pos[tp], off)
		}
	}
	if l.Applied() != uint64(len(evs)) || l.Rejected() != 1 {
		t.Errorf("applied %d rejected %d", l.Applied(), l.Rejected())
	}
	if ck.count() != 1 {
		t.Fatalf("%d checkpoints, want 1 at the final sync", ck.count())
	}
	// A periodic sync right after a checkpoint answers from it, no new save.
	if _, err := l.Sync(ctx, false); err != nil {
		t.Fatal(err)
	}
	if ck.count() != 1 {
		t.Errorf("a periodic sync just after a checkpoint wrote another (%d)", ck.count())
	}
	s.mu.Lock()
	places := len(s.hs)
	s.mu.Unlock()
	pending := 0
	for _, ev := range evs {
		if ev.Type == events.TaskPending {
			pending++
		}
	}
	if places != pending {
		t.Errorf("%d place hints for %d pending tasks", places, pending)
	}
	stop()
	if ck.count() != 1 {
		t.Errorf("stopping with nothing new wrote a checkpoint (%d)", ck.count())
	}
}

func TestCheckpointRestoresAndResumes(t *testing.T) {
	store := profiles.NewMemory()
	defer store.Close()
	ckpts := ProfileCheckpoints{Store: store}
	l, _, stop := startLoop(t, ckpts)
	evs := readLog(t)
	half := len(evs) / 2
	for i := range evs[:half] {
		_ = l.Enqueue(context.Background(), kafka.Message{Topic: "ev", Offset: int64(i), Event: &evs[i]})
	}
	stop()
	c, err := ckpts.Load(context.Background())
	if err != nil || c == nil {
		t.Fatalf("checkpoint %v, %v", c, err)
	}
	if len(c.Positions) != 1 || c.Positions[0].Next != int64(half) {
		t.Fatalf("positions %+v, want ev/0 at %d", c.Positions, half)
	}
	st, err := cluster.Restore(c.Cluster)
	if err != nil {
		t.Fatal(err)
	}
	ref := cluster.New()
	for i := range evs[:half] {
		ref.Apply(&evs[i])
	}
	if st.Summarize() != ref.Summarize() {
		t.Errorf("restored %+v, want %+v", st.Summarize(), ref.Summarize())
	}
}

func TestReadinessAndLeadership(t *testing.T) {
	l, _, stop := startLoop(t, nil)
	defer stop()
	if ok, _ := l.Ready(); ok {
		t.Fatal("ready before any assignment")
	}
	l.Assigned(map[string][]int32{"ev": {0, 1}})
	l.Claimed(kafka.TopicPartition{Topic: "ev", Partition: 0}, 5, 5)
	l.Claimed(kafka.TopicPartition{Topic: "ev", Partition: 1}, 0, 3)
	if ok, why := l.Ready(); ok || !strings.Contains(why, "ev/1") {
		t.Fatalf("ready=%v (%s) while ev/1 is 3 behind", ok, why)
	}
	ev := events.Event{V: 1, ID: "x", Type: events.NodeLost, TS: 1, Node: "n", Reason: "r"}
	_ = l.Enqueue(context.Background(), kafka.Message{Topic: "ev", Partition: 1, Offset: 2, HighWater: 3, Event: &ev})
	if _, err := l.Sync(context.Background(), true); err != nil {
		t.Fatal(err)
	}
	if ok, why := l.Ready(); !ok {
		t.Fatalf("not ready after catching up: %s", why)
	}
	if !l.Leader() {
		t.Error("owner of ev/0 is not the leader")
	}
	l.Assigned(map[string][]int32{"nodes": {0}})
	if !l.Leader() {
		t.Error("the node-topic group's assignment changed leadership")
	}
	l.Assigned(map[string][]int32{"ev": {1}})
	if l.Leader() {
		t.Error("still leader after losing ev/0")
	}
}

func TestHTTPAPI(t *testing.T) {
	l, _, stop := startLoop(t, nil)
	defer stop()
	pull := actuate.NewPull(10)
	srv := httptest.NewServer(Handler(l, pull, NewMetrics()))
	defer srv.Close()
	evs := readLog(t)
	for i := range evs {
		_ = l.Enqueue(context.Background(), kafka.Message{Event: &evs[i], Received: time.Now()})
	}
	if _, err := l.Sync(context.Background(), true); err != nil {
		t.Fatal(err)
	}
	_ = pull.Deliver(context.Background(), policy.Hint{ID: "h1", Kind: policy.KindPlace, App: "a"})
	_ = pull.Deliver(context.Background(), policy.Hint{ID: "h2", Kind: policy.KindPlace, App: "a"})

	get := func(path string) (int, string) {
		resp, err := http.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	for _, tc := range []struct {
		path     string
		code     int
		contains string
	}{
		{"/healthz", 200, "ok"},
		{"/readyz", 503, "no partitions"},
		{"/v1/hints", 200, `"id": "h2"`},
		{"/v1/nodes", 200, `"id": "nm1.example:8041"`},
		{"/v1/apps/application_1763719200000_0001", 200, `"tasks"`},
		{"/v1/apps/nope", 404, "no such app"},
		{"/metrics", 200, "rmsidecar_hint_latency_seconds"},
		{"/debug/pprof/", 404, "not found"}, // only with http.pprof
	} {
		code, body := get(tc.path)
		if code != tc.code || !strings.Contains(body, tc.contains) {
			t.Errorf("GET %s: %d %.200q, want %d containing %q", tc.path, code, body, tc.code, tc.contains)
		}
	}
	_, body := get("/v1/hints")
	var hs []map[string]any
	if err := json.Unmarshal([]byte(body), &hs); err != nil || len(hs) != 2 || hs[1]["id"] != "h2" {
		t.Errorf("/v1/hints: %v %v, want [h1 h2] newest last", hs, err)
	}
}

// TestLoopBatchesMatchSingleMessages: the same messages handed over one by
// one (Enqueue) and in batches of every size (EnqueueBatch, as the consumer
// does) give the same state, hints, positions, counts, lag and readiness.
func TestLoopBatchesMatchSingleMessages(t *testing.T) {
	evs := readLog(t)
	msgs := func() []kafka.Message {
		var out []kafka.Message
		for i := range evs {
			ev := evs[i]
			m := kafka.Message{Topic: "ev", Partition: int32(i % 3 / 2), Offset: int64(i), HighWater: int64(len(evs) + 5), Event: &ev, Received: time.Now()}
			if i%17 == 5 {
				m.Event, m.Err = nil, errors.New("bad") // a rejected message keeps its place
			}
			out = append(out, m)
		}
		// Partition 1's last message catches it up; partition 0 catches up at
		// its last but one, then its high-water mark moves on.
		for p, skip := range []int{1, 0} {
			for i := len(out) - 1; i >= 0; i-- {
				if out[i].Partition != int32(p) {
					continue
				}
				if skip > 0 {
					skip--
					continue
				}
				out[i].HighWater = out[i].Offset + 1
				break
			}
		}
		return out
	}
	type outcome struct {
		state             string
		hints             []string
		pos               map[kafka.TopicPartition]int64
		applied, rejected uint64
		ready             bool
	}
	run := func(t *testing.T, batch int) outcome {
		l, s, stop := startLoop(t, nil)
		defer stop()
		ctx := context.Background()
		l.Assigned(map[string][]int32{"ev": {0, 1}})
		l.Claimed(kafka.TopicPartition{Topic: "ev", Partition: 0}, 0, int64(len(evs)+5))
		l.Claimed(kafka.TopicPartition{Topic: "ev", Partition: 1}, 0, int64(len(evs)+5))
		ms := msgs()
		for len(ms) > 0 {
			n := min(batch, len(ms))
			var err error
			if batch == 1 {
				err = l.Enqueue(ctx, ms[0])
			} else {
				err = l.EnqueueBatch(ctx, ms[:n:n])
			}
			if err != nil {
				t.Fatal(err)
			}
			ms = ms[n:]
		}
		pos, err := l.Sync(ctx, true)
		if err != nil {
			t.Fatal(err)
		}
		var o outcome
		l.View(func(st *cluster.State, _ map[string]policy.Hint) {
			b, err := json.Marshal(st.Snapshot())
			if err != nil {
				t.Fatal(err)
			}
			o.state = string(b)
		})
		s.mu.Lock()
		for _, h := range s.hs {
			o.hints = append(o.hints, h.ID+" "+h.Target()+" "+h.Content())
		}
		s.mu.Unlock()
		o.pos, o.applied, o.rejected = pos, l.Applied(), l.Rejected()
		o.ready, _ = l.Ready()
		return o
	}
	want := run(t, 1)
	if want.applied == 0 || want.rejected == 0 || len(want.hints) == 0 || !want.ready {
		t.Fatalf("the reference run is too thin: %d applied, %d rejected, %d hints, ready %v",
			want.applied, want.rejected, len(want.hints), want.ready)
	}
	for _, batch := range []int{2, 7, 64, kafka.MaxBatch, 3 * kafka.MaxBatch} {
		t.Run(strconv.Itoa(batch), func(t *testing.T) {
			got := run(t, batch)
			if got.state != want.state {
				t.Error("the state differs from applying one message at a time")
			}
			if !slices.Equal(got.hints, want.hints) {
				t.Errorf("hints differ: %d vs %d", len(got.hints), len(want.hints))
			}
			if !maps.Equal(got.pos, want.pos) || got.applied != want.applied || got.rejected != want.rejected || got.ready != want.ready {
				t.Errorf("positions %v applied %d rejected %d ready %v, want %v %d %d %v",
					got.pos, got.applied, got.rejected, got.ready, want.pos, want.applied, want.rejected, want.ready)
			}
		})
	}
}

// TestRestoreSpacesTheFirstCheckpoint: after a restart the first periodic
// barrier follows the checkpointShare rule with the restore's duration as
// the last save's, and answers from the resumed positions meanwhile; a
// final barrier checkpoints regardless.
func TestRestoreSpacesTheFirstCheckpoint(t *testing.T) {
	tp := kafka.TopicPartition{Topic: "ev", Partition: 0}
	for _, tc := range []struct {
		name      string
		restored  time.Duration // 0: Restored not called (a fresh start)
		wantSaves int           // after the periodic barrier
		wantPos   int64         // the periodic barrier's answer for ev/0
	}{
		{name: "fresh start checkpoints at the first barrier", wantSaves: 1, wantPos: 13},
		{name: "quick restore checkpoints at the first barrier", restored: time.Nanosecond, wantSaves: 1, wantPos: 13},
		{name: "slow restore waits, answering from the checkpoint", restored: time.Hour, wantSaves: 0, wantPos: 10},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ck := &memCheckpoints{}
			eng := engine.New(policy.NewStack(kinder{}), engine.Options{Log: zerolog.Nop()})
			l := NewLoop(eng, LoopOptions{QueueSize: 8, Checkpoints: ck, Sink: &sink{}, EventsTopic: "ev", Log: zerolog.Nop()})
			l.Resume([]Position{{Topic: "ev", Partition: 0, Next: 10}})
			if tc.restored > 0 {
				l.Restored(tc.restored)
			}
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error, 1)
			go func() { done <- l.Run(ctx) }()
			defer func() {
				cancel()
				if err := <-done; err != nil {
					t.Error(err)
				}
			}()
			for off := int64(10); off < 13; off++ {
				ev := events.Event{V: 1, ID: "e" + strconv.FormatInt(off, 10), Type: events.NodeRegistered, TS: 1,
					Node: "n" + strconv.FormatInt(off, 10), VCores: 8, MemoryMB: 8192}
				if err := l.Enqueue(ctx, kafka.Message{Topic: "ev", Offset: off, Event: &ev, Received: time.Now()}); err != nil {
					t.Fatal(err)
				}
			}
			pos, err := l.Sync(ctx, false)
			if err != nil {
				t.Fatal(err)
			}
			if ck.count() != tc.wantSaves || l.CheckpointsBegun() != uint64(tc.wantSaves) {
				t.Errorf("%d checkpoints (%d begun) after the periodic barrier, want %d", ck.count(), l.CheckpointsBegun(), tc.wantSaves)
			}
			if pos[tp] != tc.wantPos {
				t.Errorf("periodic barrier answered ev/0 at %d, want %d (commits must not run ahead of a checkpoint)", pos[tp], tc.wantPos)
			}
			pos, err = l.Sync(ctx, true)
			if err != nil {
				t.Fatal(err)
			}
			if pos[tp] != 13 {
				t.Errorf("final barrier answered ev/0 at %d, want 13", pos[tp])
			}
			if ck.count() != 1 {
				t.Errorf("%d checkpoints after the final barrier, want 1", ck.count())
			}
		})
	}
}
