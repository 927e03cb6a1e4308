package sidecar

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rs/zerolog"
	"github.com/twmb/franz-go/pkg/kfake"

	"github.com/rmsidecar/rmsidecar/actuate"
	"github.com/rmsidecar/rmsidecar/cluster"
	"github.com/rmsidecar/rmsidecar/config"
	"github.com/rmsidecar/rmsidecar/engine"
	"github.com/rmsidecar/rmsidecar/events/kafka"
	"github.com/rmsidecar/rmsidecar/policy"
	"github.com/rmsidecar/rmsidecar/profiles"
	"github.com/rmsidecar/rmsidecar/yarnclient"
)

// killer asks the RM to kill every running attempt, so every container
// allocation ends up as an RM write.
type killer struct{}

func (killer) Name() string { return "killer" }
func (killer) Speculate(_ context.Context, v cluster.View) ([]policy.Hint, *policy.Status) {
	var hs []policy.Hint
	for _, a := range v.Apps() {
		for _, t := range a.Tasks {
			for _, at := range t.Attempts {
				if at.Running() && at.Container != "" {
					hs = append(hs, policy.Hint{Kind: policy.KindKill, App: a.ID, Task: t.ID, Attempt: at.ID,
						Container: at.Container, Reason: "test"})
				}
			}
		}
	}
	return hs, nil
}

// badRM is a ResourceManager that hangs on every request (until the test
// ends) or refuses connections; it counts the requests that reached it.
func badRM(t *testing.T, mode string) (url string, hits *atomic.Int64) {
	t.Helper()
	hits = &atomic.Int64{}
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		select {
		case <-release:
		case <-r.Context().Done():
		}
		http.Error(w, "gone", http.StatusServiceUnavailable)
	}))
	t.Cleanup(func() {
		close(release)
		srv.Close()
	})
	if mode == "refuses" {
		url = srv.URL
		l := srv.Listener
		_ = l.Close() // connections to it are refused now
		return url, hits
	}
	return srv.URL, hits
}

func rmWriter(t *testing.T, url string) *yarnclient.HintWriter {
	t.Helper()
	// A long timeout: the hang must be cut by the dispatcher, not the client.
	c, err := yarnclient.New(yarnclient.Config{RMURLs: []string{url}, User: "yarn", Timeout: time.Minute, MaxAttempts: 1})
	if err != nil {
		t.Fatal(err)
	}
	return yarnclient.NewHintWriter(c)
}

// TestRMOutageDoesNotStallIngestion: with the ResourceManager hanging or
// refusing, events keep being applied and checkpoints keep being written
// (their outbox holds the undelivered RM hints), and the loop and the
// dispatcher stop within a deadline. Before, the checkpoint barrier waited
// for the RM actuator, so the first barrier never answered.
func TestRMOutageDoesNotStallIngestion(t *testing.T) {
	for _, mode := range []string{"hangs", "refuses"} {
		t.Run(mode, func(t *testing.T) {
			url, hits := badRM(t, mode)
			m := NewMetrics()
			disp := actuate.NewDispatcher(actuate.Options{Actuators: []actuate.Actuator{actuate.RM{W: rmWriter(t, url)}},
				Backoff: 50 * time.Millisecond, MaxBackoff: 200 * time.Millisecond, MaxAttempts: 1000,
				AttemptTimeout: 30 * time.Second, DrainTimeout: time.Second, Metrics: m, Log: zerolog.Nop()})
			dctx, dcancel := context.WithCancel(context.Background())
			defer dcancel()
			disp.Start(dctx)
			ck := &memCheckpoints{}
			eng := engine.New(policy.NewStack(killer{}), engine.Options{Log: zerolog.Nop()})
			l := NewLoop(eng, LoopOptions{QueueSize: 8, Checkpoints: ck, Sink: disp, EventsTopic: "ev", Log: zerolog.Nop(), Metrics: m})
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error, 1)
			go func() { done <- l.Run(ctx) }()

			evs := readLog(t)
			half := len(evs) / 2
			feed := func(from, to int) {
				t.Helper()
				fctx, fcancel := context.WithTimeout(context.Background(), 10*time.Second)
				defer fcancel()
				for i := from; i < to; i++ {
					if err := l.Enqueue(fctx, kafka.Message{Topic: "ev", Offset: int64(i), Event: &evs[i]}); err != nil {
						t.Fatalf("event %d not taken while the RM %s: %v", i, mode, err)
					}
				}
			}
			sync := func(final bool, want int) {
				t.Helper()
				sctx, scancel := context.WithTimeout(context.Background(), 5*time.Second)
				defer scancel()
				pos, err := l.Sync(sctx, final)
				if err != nil {
					t.Fatalf("checkpoint barrier while the RM %s: %v", mode, err)
				}
				if got := pos[kafka.TopicPartition{Topic: "ev"}]; got != int64(want) {
					t.Fatalf("barrier at %d, want %d", got, want)
				}
			}
			feed(0, half)
			sync(true, half)
			feed(half, len(evs))
			sync(true, len(evs))

			if l.Applied() != uint64(len(evs)) {
				t.Errorf("applied %d of %d events", l.Applied(), len(evs))
			}
			if ck.count() < 2 {
				t.Errorf("%d checkpoints, want 2", ck.count())
			}
			ck.mu.Lock()
			last := ck.saved[len(ck.saved)-1]
			ck.mu.Unlock()
			if len(last.Outbox) == 0 {
				t.Error("the checkpoint does not keep the undelivered RM hints")
			}
			for _, h := range last.Outbox {
				if h.Kind != policy.KindKill {
					t.Errorf("outbox holds a %s hint", h.Kind)
				}
			}
			if mode == "hangs" {
				// The worker takes its first hint on its own goroutine.
				waitFor(t, 5*time.Second, "a request to reach the RM (else the test does not exercise it)",
					func() bool { return hits.Load() > 0 })
			}
			deadline := time.Now().Add(5 * time.Second)
			for len(disp.Degraded()) == 0 && mode == "refuses" && time.Now().Before(deadline) {
				time.Sleep(10 * time.Millisecond)
			}
			if mode == "refuses" && len(disp.Degraded()) != 1 {
				t.Errorf("degraded actuators %v, want [rm]", disp.Degraded())
			}

			start := time.Now()
			cancel()
			if err := <-done; err != nil {
				t.Fatal(err)
			}
			disp.Close()
			if took := time.Since(start); took > 3*time.Second {
				t.Errorf("stopping took %v while the RM %s", took, mode)
			}
		})
	}
}

// TestSidecarRMHangBrokerDownAndShutdown runs the whole sidecar on an
// embedded broker with the ResourceManager hanging: events are applied and
// checkpointed; /readyz turns 503 once the broker goes away; and the
// sidecar stops within 10 s of the signal with the RM still hanging and the
// broker gone.
func TestSidecarRMHangBrokerDownAndShutdown(t *testing.T) {
	url, hits := badRM(t, "hangs")
	cfg, err := config.Load("", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	kc, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(2, cfg.Kafka.EventsTopic),
		kfake.SeedTopics(1, cfg.Kafka.NodeTopic, cfg.Kafka.HintsTopic, cfg.Kafka.DeadLetterTopic))
	if err != nil {
		t.Fatal(err)
	}
	closeBroker := sync1(kc.Close)
	defer closeBroker()
	cfg.Kafka.Brokers = kc.ListenAddrs()
	cfg.Kafka.CommitInterval = 50 * time.Millisecond
	cfg.Actuators.Enabled = []string{"rm"}
	cfg.Actuators.Journal = filepath.Join(t.TempDir(), "j.jsonl")
	cfg.RM.Timeout = time.Minute // the hang outlasts any test deadline
	cfg.HTTP.Addr = "127.0.0.1:0"
	reg := policy.Registry{}
	if err := reg.Register("killer", func(context.Context, policy.Handle) (policy.Plugin, error) { return killer{}, nil }); err != nil {
		t.Fatal(err)
	}
	cfg.Policies.Stack = "killer"
	store := profiles.NewMemory()
	defer store.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sc, err := New(ctx, Options{Config: cfg, Registry: reg, Profiles: store, Log: zerolog.Nop(), RM: rmWriter(t, url),
		DeterministicTicks: true, HealthInterval: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- sc.Run(ctx) }()
	addr, err := sc.HTTPAddr(ctx)
	if err != nil {
		t.Fatal(err)
	}

	p, err := kafka.NewProducer(kafka.Client{Brokers: cfg.Kafka.Brokers, Version: cfg.Kafka.Version})
	if err != nil {
		t.Fatal(err)
	}
	lines := recordedLog(t)
	st, err := kafka.ProduceLog(context.Background(), p, bytes.NewReader(lines), kafka.ProduceOptions{Topic: cfg.Kafka.EventsTopic})
	_ = p.Close()
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, 20*time.Second, "every event applied while the RM hangs", func() bool {
		return sc.Loop().Applied() >= uint64(st.Produced)
	})
	waitFor(t, 5*time.Second, "an RM write (else the test does not exercise the hang)", func() bool { return hits.Load() > 0 })
	// The RM hangs from its first write on, yet a checkpoint covers every
	// event, with the RM's hints in its outbox.
	waitFor(t, 10*time.Second, "a checkpoint of every event while the RM hangs", func() bool {
		ck, err := ProfileCheckpoints{Store: store}.Load(context.Background())
		if err != nil || ck == nil || len(ck.Outbox) == 0 {
			return false
		}
		var next int64
		for _, p := range ck.Positions {
			if p.Topic == cfg.Kafka.EventsTopic {
				next += p.Next
			}
		}
		return next >= int64(st.Produced)
	})
	waitFor(t, 10*time.Second, "/readyz 200 once caught up", func() bool { return status(t, addr, "/readyz") == 200 })

	closeBroker()
	waitFor(t, 10*time.Second, "/readyz 503 with the broker down", func() bool { return status(t, addr, "/readyz") == 503 })

	start := time.Now()
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Run: %v", err)
		}
		t.Logf("stopped %v after the signal (RM hanging, broker down)", time.Since(start).Round(time.Millisecond))
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not stop within 10 s of the signal with the RM hanging and the broker down")
	}
}

func sync1(f func()) func() {
	var once atomic.Bool
	return func() {
		if once.CompareAndSwap(false, true) {
			f()
		}
	}
}

func waitFor(t *testing.T, d time.Duration, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func status(t *testing.T, addr, path string) int {
	t.Helper()
	c := http.Client{Timeout: 2 * time.Second}
	resp, err := c.Get("http://" + addr + path)
	if err != nil {
		return 0
	}
	resp.Body.Close()
	return resp.StatusCode
}

// recordingRM is a ResourceManager writer that works and records the
// containers it was asked to signal.
type recordingRM struct {
	mu         sync.Mutex
	containers []string
}

func (r *recordingRM) SetNodeResource(context.Context, string, int, int) error { return nil }
func (r *recordingRM) SetNodeClass(context.Context, string, bool, bool) error  { return nil }
func (r *recordingRM) SetAppPriority(context.Context, string, int) error       { return nil }
func (r *recordingRM) SignalContainer(_ context.Context, c string) error {
	r.mu.Lock()
	r.containers = append(r.containers, c)
	r.mu.Unlock()
	return nil
}
func (r *recordingRM) count() int { r.mu.Lock(); defer r.mu.Unlock(); return len(r.containers) }

// TestOutboxDeliveredAfterRestart: hints the RM did not take before a stop
// are in the final checkpoint and reach the RM after the restart, although
// no new event arrives (at-least-once actuation without waiting for the RM).
func TestOutboxDeliveredAfterRestart(t *testing.T) {
	url, _ := badRM(t, "hangs")
	cfg, err := config.Load("", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	kc, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(2, cfg.Kafka.EventsTopic),
		kfake.SeedTopics(1, cfg.Kafka.NodeTopic, cfg.Kafka.HintsTopic, cfg.Kafka.DeadLetterTopic))
	if err != nil {
		t.Fatal(err)
	}
	defer kc.Close()
	cfg.Kafka.Brokers = kc.ListenAddrs()
	cfg.Actuators.Enabled = []string{"rm"}
	cfg.Actuators.Journal = filepath.Join(t.TempDir(), "j.jsonl")
	cfg.Policies.Stack = "killer"
	reg := policy.Registry{}
	if err := reg.Register("killer", func(context.Context, policy.Handle) (policy.Plugin, error) { return killer{}, nil }); err != nil {
		t.Fatal(err)
	}
	store := profiles.NewMemory()
	defer store.Close()
	run := func(rm actuate.RMWriter, until func(sc *Sidecar) bool, what string) {
		t.Helper()
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		// The sidecar's log goes to the test's: a stall says where it was.
		log := zerolog.New(zerolog.NewTestWriter(t)).Level(zerolog.InfoLevel)
		sc, err := New(ctx, Options{Config: cfg, Registry: reg, Profiles: store, Log: log, RM: rm,
			DeterministicTicks: true, HealthInterval: 50 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- sc.Run(ctx) }()
		// 60 s: under make test's load (every package with -race on 2 cores) a
		// consumer-group join can take far longer than the 3 s it takes alone.
		waitFor(t, 60*time.Second, what, func() bool { return until(sc) })
		cancel()
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
	p, err := kafka.NewProducer(kafka.Client{Brokers: cfg.Kafka.Brokers, Version: cfg.Kafka.Version})
	if err != nil {
		t.Fatal(err)
	}
	st, err := kafka.ProduceLog(context.Background(), p, bytes.NewReader(recordedLog(t)), kafka.ProduceOptions{Topic: cfg.Kafka.EventsTopic})
	_ = p.Close()
	if err != nil {
		t.Fatal(err)
	}
	run(rmWriter(t, url), func(sc *Sidecar) bool { return sc.Loop().Applied() >= uint64(st.Produced) },
		"every event applied with the RM hanging")
	ck, err := ProfileCheckpoints{Store: store}.Load(context.Background())
	if err != nil || ck == nil || len(ck.Outbox) == 0 {
		t.Fatalf("final checkpoint %v (err %v) keeps no undelivered hints", ck != nil, err)
	}
	want := len(ck.Outbox)
	rm := &recordingRM{}
	run(rm, func(*Sidecar) bool { return rm.count() >= want }, "the outbox delivered after the restart")
}

// recordedLog is the embedded demo's recorded event log.
func recordedLog(t *testing.T) []byte {
	t.Helper()
	b, err := os.ReadFile("../demo/recorded.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	return b
}
