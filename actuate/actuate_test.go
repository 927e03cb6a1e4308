package actuate

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/rmsidecar/rmsidecar/events/kafka"
	"github.com/rmsidecar/rmsidecar/policy"
)

// flaky fails its first n deliveries, then records.
type flaky struct {
	mu    sync.Mutex
	fails int
	got   []string
	tries int
}

func (f *flaky) Name() string { return "flaky" }
func (f *flaky) Deliver(_ context.Context, h policy.Hint) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.tries++
	if f.fails > 0 {
		f.fails--
		return errors.New("rm unavailable")
	}
	f.got = append(f.got, h.ID)
	return nil
}

type countMetrics struct {
	mu                       sync.Mutex
	errors, actuated, gaveUp map[string]int
}

func newCountMetrics() *countMetrics {
	return &countMetrics{errors: map[string]int{}, actuated: map[string]int{}, gaveUp: map[string]int{}}
}
func (m *countMetrics) ActuationError(a string) { m.mu.Lock(); m.errors[a]++; m.mu.Unlock() }
func (m *countMetrics) Actuated(a string)       { m.mu.Lock(); m.actuated[a]++; m.mu.Unlock() }
func (m *countMetrics) GaveUp(a string)         { m.mu.Lock(); m.gaveUp[a]++; m.mu.Unlock() }

func hint(id string, kind policy.HintKind, ts int64) policy.Hint {
	h := policy.Hint{V: 1, ID: id, TS: ts, ExpiresTS: ts + 1000, Policy: "p", Kind: kind, Reason: "r"}
	switch kind {
	case policy.KindNodeCapacity:
		h.Node, h.VCores, h.MemoryMB = "n1", 4, 4096
	case policy.KindRatio:
		h.Queue, h.MaxMaps, h.MaxReduces = "default", 10, 2
	default:
		h.App, h.Task, h.Attempt, h.Node = "app_1", "task_1", "att_"+id, "n2"
	}
	return h
}

func TestDispatcherRetriesAndReports(t *testing.T) {
	for _, tc := range []struct {
		name                   string
		fails, maxAttempts     int
		wantGot                []string
		wantErrors, wantGaveUp int
	}{
		{name: "first try", fails: 0, maxAttempts: 3, wantGot: []string{"h1"}},
		{name: "recovers after two failures", fails: 2, maxAttempts: 3, wantGot: []string{"h1"}, wantErrors: 2},
		{name: "gives up and says so", fails: 5, maxAttempts: 3, wantErrors: 3, wantGaveUp: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := &flaky{fails: tc.fails}
			m := newCountMetrics()
			d := NewDispatcher(Options{Actuators: []Actuator{a}, MaxAttempts: tc.maxAttempts,
				Backoff: time.Millisecond, Metrics: m, Log: zerolog.Nop()})
			d.Start(context.Background())
			if _, err := d.Dispatch(context.Background(), []policy.Hint{hint("h1", policy.KindSpeculate, 100)}); err != nil {
				t.Fatal(err)
			}
			d.Close()
			if !slices.Equal(a.got, tc.wantGot) {
				t.Errorf("delivered %v, want %v", a.got, tc.wantGot)
			}
			if m.errors["flaky"] != tc.wantErrors || m.gaveUp["flaky"] != tc.wantGaveUp {
				t.Errorf("errors %d gave up %d, want %d and %d", m.errors["flaky"], m.gaveUp["flaky"], tc.wantErrors, tc.wantGaveUp)
			}
		})
	}
}

func TestDispatcherLeaderGetsClusterWideHints(t *testing.T) {
	hs := []policy.Hint{hint("h1", policy.KindSpeculate, 1), hint("h2", policy.KindNodeCapacity, 1), hint("h3", policy.KindRatio, 1)}
	for _, tc := range []struct {
		leader bool
		want   []string
	}{{true, []string{"h1", "h2", "h3"}}, {false, []string{"h1"}}} {
		a := &flaky{}
		d := NewDispatcher(Options{Actuators: []Actuator{a}, Leader: func() bool { return tc.leader }})
		d.Start(context.Background())
		if _, err := d.Dispatch(context.Background(), hs); err != nil {
			t.Fatal(err)
		}
		d.Close()
		if !slices.Equal(a.got, tc.want) {
			t.Errorf("leader=%v: delivered %v, want %v", tc.leader, a.got, tc.want)
		}
	}
}

func TestFileJournalSurvivesRestart(t *testing.T) {
	path := filepath.Join(t.TempDir(), "actuated.jsonl")
	run := func(hs ...policy.Hint) []string {
		j, err := OpenFileJournal(path)
		if err != nil {
			t.Fatal(err)
		}
		defer j.Close()
		a := &flaky{}
		d := NewDispatcher(Options{Actuators: []Actuator{a}, Journal: j})
		d.Start(context.Background())
		if _, err := d.Dispatch(context.Background(), hs); err != nil {
			t.Fatal(err)
		}
		d.Close()
		return a.got
	}
	h1 := hint("h1", policy.KindSpeculate, 100)
	if got := run(h1); !slices.Equal(got, []string{"h1"}) {
		t.Fatalf("first run delivered %v", got)
	}
	// After a restart the same decision, re-derived from re-applied events
	// under a new id, is still in force: not actuated again.
	again := h1
	again.ID, again.TS = "h7", 500
	if got := run(again); len(got) != 0 {
		t.Fatalf("second run re-actuated %v", got)
	}
	// Once expired, the same decision is news again.
	later := h1
	later.ID, later.TS, later.ExpiresTS = "h9", 1200, 2200
	if got := run(later); !slices.Equal(got, []string{"h9"}) {
		t.Fatalf("after expiry delivered %v, want [h9]", got)
	}
}

type fakeRM struct{ calls []string }

func (f *fakeRM) SetNodeResource(_ context.Context, n string, v, m int) error {
	f.calls = append(f.calls, "resource "+n)
	return nil
}
func (f *fakeRM) SetNodeClass(_ context.Context, n string, ms, rs bool) error {
	f.calls = append(f.calls, "class "+n)
	return nil
}
func (f *fakeRM) SignalContainer(_ context.Context, c string) error {
	f.calls = append(f.calls, "signal "+c)
	return nil
}
func (f *fakeRM) SetAppPriority(_ context.Context, a string, p int) error {
	f.calls = append(f.calls, "priority "+a)
	return nil
}

func TestRMActuatorMapsKinds(t *testing.T) {
	for _, tc := range []struct {
		h    policy.Hint
		want []string
	}{
		{policy.Hint{Kind: policy.KindNodeCapacity, Node: "n1", VCores: 2}, []string{"resource n1"}},
		{policy.Hint{Kind: policy.KindNodeClass, Node: "n2", MapSlow: true}, []string{"class n2"}},
		{policy.Hint{Kind: policy.KindKill, App: "a", Attempt: "x", Container: "c9"}, []string{"signal c9"}},
		{policy.Hint{Kind: policy.KindPriority, App: "a1", Priority: 3}, []string{"priority a1"}},
		{policy.Hint{Kind: policy.KindSpeculate, App: "a"}, nil},
	} {
		rm := &fakeRM{}
		if err := (RM{W: rm}).Deliver(context.Background(), tc.h); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(rm.calls, tc.want) {
			t.Errorf("%s: calls %v, want %v", tc.h.Kind, rm.calls, tc.want)
		}
	}
}

func TestPullKeepsNewestLast(t *testing.T) {
	p := NewPull(3)
	for i, id := range []string{"a", "b", "c", "d", "e"} {
		_ = p.Deliver(context.Background(), policy.Hint{ID: id, TS: int64(i)})
	}
	var ids []string
	for _, h := range p.Hints(0) {
		ids = append(ids, h.ID)
	}
	if !slices.Equal(ids, []string{"c", "d", "e"}) {
		t.Fatalf("kept %v, want [c d e]", ids)
	}
	if got := p.Hints(4); len(got) != 1 || got[0].ID != "e" {
		t.Fatalf("since 4: %v", got)
	}
}

func TestFileJournalDropsLongExpiredEntriesAtOpen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "actuated.jsonl")
	j, err := OpenFileJournal(path)
	if err != nil {
		t.Fatal(err)
	}
	old := hint("old", policy.KindSpeculate, 1000)
	recent := hint("recent", policy.KindSpeculate, 10_000_000)
	for _, h := range []policy.Hint{old, recent} {
		if err := j.Record("a", &h); err != nil {
			t.Fatal(err)
		}
	}
	j.Close()
	j, err = OpenFileJournal(path)
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	if len(j.expires) != 1 {
		t.Fatalf("%d entries after reopening, want only the recent one", len(j.expires))
	}
	if !j.Seen("a", &recent) {
		t.Error("the recent entry was lost")
	}
}

func TestMemoryJournalForgetsExpiredWhenLarge(t *testing.T) {
	j := NewMemoryJournal()
	for i := range pruneAt + 10 {
		h := hint("h"+strconv.Itoa(i), policy.KindSpeculate, int64(i))
		h.Attempt = "att_" + strconv.Itoa(i)
		_ = j.Record("a", &h)
	}
	if n := len(j.expires); n > pruneAt {
		t.Errorf("%d entries kept, want expired ones forgotten", n)
	}
	last := hint("x", policy.KindSpeculate, int64(pruneAt+9))
	last.Attempt = "att_" + strconv.Itoa(pruneAt+9)
	if !j.Seen("a", &last) {
		t.Error("an entry still in force was forgotten")
	}
}

func TestDispatcherDoesNotActOnExpiredHints(t *testing.T) {
	a := &flaky{fails: 1}
	m := newCountMetrics()
	now := int64(100)
	var mu sync.Mutex
	d := NewDispatcher(Options{Actuators: []Actuator{a}, Backoff: 20 * time.Millisecond, Metrics: m,
		Now: func() int64 { mu.Lock(); defer mu.Unlock(); return now }})
	d.Start(context.Background())
	h := hint("h1", policy.KindSpeculate, 100) // expires at 1100
	if _, err := d.Dispatch(context.Background(), []policy.Hint{h}); err != nil {
		t.Fatal(err)
	}
	// The first attempt fails; event time passes the expiry before the retry.
	waitTries(t, a, 1)
	mu.Lock()
	now = 5000
	mu.Unlock()
	d.Close()
	if len(a.got) != 0 || m.gaveUp["flaky"] != 1 {
		t.Errorf("delivered %v, gave up %d: an expired hint must be reported, not acted on", a.got, m.gaveUp["flaky"])
	}
}

func waitTries(t *testing.T, a *flaky, n int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		a.mu.Lock()
		tries := a.tries
		a.mu.Unlock()
		if tries >= n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d delivery attempts, want %d", tries, n)
		}
		time.Sleep(time.Millisecond)
	}
}

func TestDispatcherDeliversFirstTryEvenIfEventTimeRanAhead(t *testing.T) {
	a := &flaky{}
	d := NewDispatcher(Options{Actuators: []Actuator{a}, Now: func() int64 { return 1 << 50 }})
	d.Start(context.Background())
	if _, err := d.Dispatch(context.Background(), []policy.Hint{hint("h1", policy.KindSpeculate, 100)}); err != nil {
		t.Fatal(err)
	}
	d.Close()
	if !slices.Equal(a.got, []string{"h1"}) {
		t.Errorf("delivered %v: a replayed backlog must not lose its hints", a.got)
	}
}

func TestShortLine(t *testing.T) {
	long := strings.Repeat("x", 300)
	tests := []struct {
		h    policy.Hint
		want string
	}{
		{policy.Hint{Kind: policy.KindSpeculate, Policy: "samr", App: "application_1_0001", Task: "task_1_0001_m_000003",
			Attempt: "attempt_1_0001_m_000003_0", Node: "nm7:8041", Reason: "slow"},
			"hint speculate application_1_0001 attempt_1_0001_m_000003_0 -> nm7:8041 (samr): slow"},
		{policy.Hint{Kind: policy.KindRatio, Policy: "dhsa-pi", Node: "nm1:8041", Reason: "case 1"},
			"hint ratio nm1:8041 (dhsa-pi): case 1"},
		{policy.Hint{Kind: policy.KindRatio, Policy: "dhsa-pi", Queue: "default", Reason: "r"},
			"hint ratio default (dhsa-pi): r"},
		{policy.Hint{Kind: policy.KindPlace, Policy: "tmar", App: "a", Task: "t", Nodes: []policy.NodeScore{{Node: "n2"}, {Node: "n3"}}, Reason: "r"},
			"hint place a t -> n2 (tmar): r"},
		{policy.Hint{Kind: policy.KindReduceBinding, Policy: "tmar", App: "a", Partition: 3, Node: "n4", Reason: "r"},
			"hint reduce-binding a partition 3 -> n4 (tmar): r"},
		{policy.Hint{Kind: policy.KindDenySpeculation, Policy: "sepb", App: "a", Task: "t", Reason: long},
			"hint deny-speculation a t (sepb): " + strings.Repeat("x", 99) + "…"},
	}
	for _, tt := range tests {
		if got := ShortLine(tt.h); got != tt.want {
			t.Errorf("ShortLine(%s) =\n  %q\nwant\n  %q", tt.h.Kind, got, tt.want)
		}
	}
}

// gate blocks every delivery until released (an RM that hangs), recording
// what it was given.
type gate struct {
	mu      sync.Mutex
	got     []string
	release chan struct{}
	started chan struct{}
}

func newGate() *gate { return &gate{release: make(chan struct{}), started: make(chan struct{}, 100)} }

func (g *gate) Name() string { return "gate" }
func (g *gate) Deliver(ctx context.Context, h policy.Hint) error {
	g.started <- struct{}{}
	select {
	case <-g.release:
	case <-ctx.Done():
		return ctx.Err()
	}
	g.mu.Lock()
	g.got = append(g.got, h.ID)
	g.mu.Unlock()
	return nil
}

type queueMetrics struct {
	*countMetrics
	dropped, coalesced map[string]int
	degraded           map[string]bool
}

func newQueueMetrics() *queueMetrics {
	return &queueMetrics{countMetrics: newCountMetrics(), dropped: map[string]int{}, coalesced: map[string]int{},
		degraded: map[string]bool{}}
}
func (m *queueMetrics) Dropped(a, _ string) { m.mu.Lock(); m.dropped[a]++; m.mu.Unlock() }
func (m *queueMetrics) Coalesced(a string)  { m.mu.Lock(); m.coalesced[a]++; m.mu.Unlock() }
func (m *queueMetrics) Degraded(a string, d bool) {
	m.mu.Lock()
	m.degraded[a] = d
	m.mu.Unlock()
}

// capHint is a node-capacity hint for node n (one target per node).
func capHint(id, node string, vcores int) policy.Hint {
	h := hint(id, policy.KindNodeCapacity, 1)
	h.Node, h.VCores = node, vcores
	return h
}

// TestDispatchNeverBlocksCoalescesAndCountsDrops: with the actuator stuck on
// its first hint, Dispatch returns at once; a newer hint for a queued target
// replaces it; a full queue drops its oldest and counts it; Pending lists
// what is undelivered; Close returns within its drain timeout.
func TestDispatchNeverBlocksCoalescesAndCountsDrops(t *testing.T) {
	g := newGate()
	m := newQueueMetrics()
	d := NewDispatcher(Options{Actuators: []Actuator{g}, QueueSize: 3, Metrics: m, DrainTimeout: 100 * time.Millisecond,
		Log: zerolog.Nop()})
	d.Start(context.Background())
	steps := []struct {
		h           policy.Hint
		wantPending []string
	}{
		{capHint("a1", "n1", 1), []string{"a1"}}, // taken by the worker, which hangs
		{capHint("b1", "n2", 1), []string{"a1", "b1"}},
		{capHint("c1", "n3", 1), []string{"a1", "b1", "c1"}},
		{capHint("b2", "n2", 2), []string{"a1", "b2", "c1"}},       // supersedes b1 in place
		{capHint("d1", "n4", 1), []string{"a1", "b2", "c1", "d1"}}, // the queue holds 3: full now
		{capHint("e1", "n5", 1), []string{"a1", "c1", "d1", "e1"}}, // drops b2, the oldest queued
	}
	for i, s := range steps {
		start := time.Now()
		if _, err := d.Dispatch(context.Background(), []policy.Hint{s.h}); err != nil {
			t.Fatal(err)
		}
		if took := time.Since(start); took > 100*time.Millisecond {
			t.Fatalf("step %d: Dispatch blocked %v on a stuck actuator", i, took)
		}
		if i == 0 {
			<-g.started // a1 is in flight
		}
		var ids []string
		for _, h := range d.Pending() {
			ids = append(ids, h.ID)
		}
		if !slices.Equal(ids, s.wantPending) {
			t.Errorf("step %d: pending %v, want %v", i, ids, s.wantPending)
		}
	}
	m.mu.Lock()
	if m.dropped["gate"] != 1 || m.coalesced["gate"] != 1 {
		t.Errorf("dropped %d coalesced %d, want 1 and 1", m.dropped["gate"], m.coalesced["gate"])
	}
	m.mu.Unlock()
	start := time.Now()
	d.Close()
	if took := time.Since(start); took > 2*time.Second {
		t.Errorf("Close took %v with the actuator stuck", took)
	}
}

// TestDispatcherDegradedAfterConsecutiveFailures: the degraded state is set
// after DegradedAfter failed attempts in a row and cleared by a success.
func TestDispatcherDegradedAfterConsecutiveFailures(t *testing.T) {
	for _, tc := range []struct {
		name         string
		fails        int
		wantDegraded bool // while failing
	}{
		{"two failures stay healthy", 2, false},
		{"three failures degrade", 3, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := &flaky{fails: tc.fails}
			m := newQueueMetrics()
			var seen atomic.Bool
			d := NewDispatcher(Options{Actuators: []Actuator{a}, Backoff: 20 * time.Millisecond, MaxAttempts: 10,
				DegradedAfter: 3, Metrics: m, Log: zerolog.Nop()})
			d.Start(context.Background())
			if _, err := d.Dispatch(context.Background(), []policy.Hint{hint("h1", policy.KindSpeculate, 1)}); err != nil {
				t.Fatal(err)
			}
			deadline := time.Now().Add(5 * time.Second)
			for {
				a.mu.Lock()
				delivered := len(a.got) > 0
				a.mu.Unlock()
				if len(d.Degraded()) > 0 {
					seen.Store(true)
				}
				if delivered || time.Now().After(deadline) {
					break
				}
				time.Sleep(time.Millisecond)
			}
			d.Close()
			m.mu.Lock()
			defer m.mu.Unlock()
			if seen.Load() != tc.wantDegraded {
				t.Errorf("degraded seen %v, want %v", seen.Load(), tc.wantDegraded)
			}
			if m.degraded["flaky"] || len(d.Degraded()) != 0 {
				t.Error("still degraded after a successful delivery")
			}
		})
	}
}

// TestFileJournalSkipsACorruptLineAndKeepsTheRest: one bad line in the middle
// of the journal is reported with the file and line, and the valid entries
// after it still count (issue 16: everything after it was dropped silently).
func TestFileJournalSkipsACorruptLineAndKeepsTheRest(t *testing.T) {
	path := filepath.Join(t.TempDir(), "actuated.jsonl")
	h1, h2, h3 := hint("h1", policy.KindSpeculate, 100), hint("h2", policy.KindSpeculate, 100), hint("h3", policy.KindSpeculate, 100)
	line := func(h policy.Hint) string {
		return `{"k":"` + journalKey("a", &h) + `","exp":` + strconv.FormatInt(h.ExpiresTS, 10) + `,"v":2}` + "\n"
	}
	content := line(h1) + "{\"k\":\"0123\x00garbage\n" + line(h2) + "null\n" + line(h3) + `{"k":"` // torn last line
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	j, err := OpenFileJournal(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range []policy.Hint{h1, h2, h3} {
		if !j.Seen("a", &h) {
			t.Errorf("entry %s lost", h.ID)
		}
	}
	var lines []int
	for _, err := range j.Skipped {
		le, ok := errors.AsType[*JournalLineError](err)
		if !ok || le.File != path || !strings.Contains(err.Error(), path) {
			t.Errorf("skipped error %v does not name the file", err)
			continue
		}
		lines = append(lines, le.Line)
	}
	if !slices.Equal(lines, []int{2, 4, 6}) {
		t.Errorf("skipped lines %v, want [2 4 6] (errors %v)", lines, j.Skipped)
	}
	if len(j.Skipped) == 3 && !strings.Contains(j.Skipped[2].Error(), "torn last line") {
		t.Errorf("last: %v", j.Skipped[2])
	}
	j.Close()
	// The rewrite at open keeps the valid entries only: a second open is clean.
	j, err = OpenFileJournal(path)
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	if len(j.Skipped) != 0 || len(j.expires) != 3 {
		t.Errorf("reopened: skipped %v, %d entries, want none and 3", j.Skipped, len(j.expires))
	}
}

// TestFileJournalSkipsAnOverlongLine: a line too long to be an entry is one
// skipped line, not an error that stops the open.
func TestFileJournalSkipsAnOverlongLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "actuated.jsonl")
	h := hint("h1", policy.KindSpeculate, 100)
	good := `{"k":"` + journalKey("a", &h) + `","exp":1100,"v":2}` + "\n"
	if err := os.WriteFile(path, []byte(strings.Repeat("x", 200<<10)+"\n"+good), 0o600); err != nil {
		t.Fatal(err)
	}
	j, err := OpenFileJournal(path)
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	if !j.Seen("a", &h) || len(j.Skipped) != 1 || !strings.Contains(j.Skipped[0].Error(), "line 1: longer than") {
		t.Errorf("seen %v, skipped %v", j.Seen("a", &h), j.Skipped)
	}
}

// TestKafkaConnectsLazily: the kafka actuator is built without a broker;
// a delivery while none answers fails naming the topic (the dispatcher
// retries it), and Close without a producer is a no-op.
func TestKafkaConnectsLazily(t *testing.T) {
	k := NewKafka(kafka.Client{Brokers: []string{"127.0.0.1:1"}, Version: "3.9.0"}, "hints")
	err := k.Deliver(context.Background(), policy.Hint{ID: "h1", Kind: policy.KindSpeculate, App: "a"})
	if err == nil || !strings.Contains(err.Error(), "to hints") {
		t.Fatalf("delivery without a broker: %v", err)
	}
	if err := k.Close(); err != nil {
		t.Fatal(err)
	}
}
