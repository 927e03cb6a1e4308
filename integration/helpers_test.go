package integration

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/IBM/sarama"
	"github.com/rs/zerolog"
	"github.com/twmb/franz-go/pkg/kfake"

	"github.com/rmsidecar/rmsidecar/actuate"
	"github.com/rmsidecar/rmsidecar/cluster"
	"github.com/rmsidecar/rmsidecar/config"
	"github.com/rmsidecar/rmsidecar/engine"
	"github.com/rmsidecar/rmsidecar/events"
	"github.com/rmsidecar/rmsidecar/events/kafka"
	"github.com/rmsidecar/rmsidecar/policy"
	"github.com/rmsidecar/rmsidecar/policy/plugins"
	"github.com/rmsidecar/rmsidecar/profiles"
	"github.com/rmsidecar/rmsidecar/sidecar"
)

const (
	eventsTopic = "it.events"
	nodeTopic   = "it.nodes"
	dlqTopic    = "it.events.dlq"
	hintsTopic  = "it.hints"
)

// probe is the test policy: deterministic, with every kind of state the
// live path must carry. It learns how many events it has seen (a profile it
// flushes and reloads), places pending tasks on the nodes with the most free
// vcores, and speculates attempts that are below half progress after 10 s.
type probe struct {
	store policy.ProfileStore
	seen  int
}

const probeName = "probe"

func newProbe(_ context.Context, h policy.Handle) (policy.Plugin, error) {
	p := &probe{store: h.Profiles}
	if _, err := h.Profiles.Get(context.Background(), probeName, "seen", &p.seen); err != nil {
		return nil, err
	}
	return p, nil
}

func (p *probe) Name() string { return probeName }

func (p *probe) Observe(context.Context, *events.Event, cluster.View) { p.seen++ }

func (p *probe) Flush(ctx context.Context) error { return p.store.Put(ctx, probeName, "seen", p.seen) }

func (p *probe) Place(_ context.Context, v cluster.View, _ *cluster.Task) ([]policy.NodeScore, *policy.Status) {
	var out []policy.NodeScore
	for _, n := range v.Nodes() {
		if n.State == cluster.NodeRunning {
			out = append(out, policy.NodeScore{Node: n.ID, Score: float64(n.FreeVCores())})
		}
	}
	return out, nil
}

func (p *probe) Speculate(_ context.Context, v cluster.View) ([]policy.Hint, *policy.Status) {
	var hs []policy.Hint
	for _, a := range v.Apps() {
		for _, t := range a.Tasks {
			for _, at := range t.Running() {
				if at.Progress < 0.5 && v.Now()-at.StartTS >= 10_000 {
					hs = append(hs, policy.Hint{Kind: policy.KindSpeculate, App: a.ID, Task: t.ID, Attempt: at.ID,
						Node: freest(v, at.Node), Reason: "probe: under half done after 10 s"})
				}
			}
		}
	}
	return hs, nil
}

// freest is the running node with the most free vcores other than not.
func freest(v cluster.View, not string) string {
	best, free := "", -1
	for _, n := range v.Nodes() {
		if n.ID != not && n.State == cluster.NodeRunning && n.FreeVCores() > free {
			best, free = n.ID, n.FreeVCores()
		}
	}
	return best
}

func registry(t *testing.T) policy.Registry {
	t.Helper()
	r := plugins.NewRegistry()
	if err := r.Register(probeName, newProbe); err != nil {
		t.Fatal(err)
	}
	return r
}

// recorder is an actuator that keeps what it was given, in order.
type recorder struct {
	mu    sync.Mutex
	hints []policy.Hint
}

func (r *recorder) Name() string { return "recorder" }
func (r *recorder) Deliver(_ context.Context, h policy.Hint) error {
	r.mu.Lock()
	r.hints = append(r.hints, h)
	r.mu.Unlock()
	return nil
}
func (r *recorder) all() []policy.Hint {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.hints)
}

// startKafka starts an in-process broker with the test topics.
func startKafka(t *testing.T, eventPartitions int32) []string {
	t.Helper()
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(eventPartitions, eventsTopic),
		kfake.SeedTopics(1, nodeTopic, dlqTopic, hintsTopic))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c.ListenAddrs()
}

// testConfig is the default config pointed at brokers, with its files in dir.
func testConfig(t *testing.T, brokers []string, dir, instance string) *config.Config {
	t.Helper()
	cfg, err := config.Load("", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Kafka.Brokers = brokers
	cfg.Kafka.EventsTopic, cfg.Kafka.NodeTopic = eventsTopic, nodeTopic
	cfg.Kafka.DeadLetterTopic, cfg.Kafka.HintsTopic = dlqTopic, hintsTopic
	cfg.Kafka.Instance = instance
	cfg.Kafka.CommitInterval = time.Hour // commits at rebalance and shutdown only: deterministic
	cfg.Policies.Stack = probeName
	cfg.Actuators.Enabled = []string{"http"}
	cfg.Actuators.Journal = filepath.Join(dir, "actuated.jsonl")
	cfg.Profiles.Path = filepath.Join(dir, "profiles.db")
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	cfg.HTTP.Addr = "127.0.0.1:0" // any free port; config validation asks for a real one
	return cfg
}

// instance is one running sidecar.
type instance struct {
	sc     *sidecar.Sidecar
	cancel context.CancelFunc
	done   chan error
}

func start(t *testing.T, cfg *config.Config, rec *recorder) *instance {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	sc, err := sidecar.New(ctx, sidecar.Options{Config: cfg, Registry: registry(t), Actuators: []actuate.Actuator{rec},
		Log: testLog(t), DeterministicTicks: true})
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	in := &instance{sc: sc, cancel: cancel, done: make(chan error, 1)}
	go func() { in.done <- sc.Run(ctx) }()
	t.Cleanup(func() { in.stop(t) })
	return in
}

// stop shuts the instance down gracefully (SIGTERM): commit, checkpoint.
func (in *instance) stop(t *testing.T) {
	t.Helper()
	if in.cancel == nil {
		return
	}
	in.cancel()
	in.cancel = nil
	select {
	case err := <-in.done:
		if err != nil {
			t.Errorf("sidecar stopped with %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("sidecar did not stop within 30s")
	}
}

// kill stops the instance as a killed process would: no final checkpoint,
// no commit, queued hints lost.
func (in *instance) kill(t *testing.T) {
	t.Helper()
	in.sc.Abort()
	in.stop(t)
}

func testLog(t *testing.T) zerolog.Logger {
	if testing.Verbose() {
		return zerolog.New(zerolog.NewTestWriter(t)).Level(zerolog.InfoLevel)
	}
	return zerolog.Nop()
}

// waitFor polls cond until it holds or the deadline passes.
func waitFor(t *testing.T, what string, d time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s", d, what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// produce writes raw JSONL lines to Kafka as `rmsidecar replay --kafka` does.
func produce(t *testing.T, brokers []string, lines []byte, routeNodes bool) kafka.ProduceStats {
	t.Helper()
	cfg, _ := config.Load("", nil, nil)
	p, err := kafka.NewProducer(kafka.Client{Brokers: brokers, Version: cfg.Kafka.Version})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	o := kafka.ProduceOptions{Topic: eventsTopic}
	if routeNodes {
		o.NodeTopic = nodeTopic
	}
	st, err := kafka.ProduceLog(context.Background(), p, bytes.NewReader(lines), o)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// readLines returns the non-blank lines of a file.
func readLines(t *testing.T, path string) [][]byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out [][]byte
	for _, l := range bytes.Split(b, []byte("\n")) {
		if len(bytes.TrimSpace(l)) > 0 {
			out = append(out, l)
		}
	}
	return out
}

func join(lines [][]byte) []byte { return append(bytes.Join(lines, []byte("\n")), '\n') }

// reference replays lines through an in-process engine with the same stack
// and ids, the way `rmsidecar replay` does: the live path must agree with it.
type referenceRun struct {
	hints []policy.Hint
	state *cluster.State
	seen  int
	valid int
}

func reference(t *testing.T, lines []byte, instance string) referenceRun {
	t.Helper()
	store := profiles.NewMemory()
	defer store.Close()
	st, err := registry(t).Build(context.Background(), probeName, policy.Handle{Profiles: store, Log: zerolog.Nop(), Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	eng := engine.New(st, engine.Options{TickMS: 1000, IDPrefix: instance + "-", Log: zerolog.Nop()})
	r := events.NewReader(bytes.NewReader(lines))
	var run referenceRun
	for {
		ev, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		var le *events.LineError
		if errors.As(err, &le) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		run.valid++
		for _, h := range eng.Apply(context.Background(), &ev) {
			h.Nodes = slices.Clone(h.Nodes)
			run.hints = append(run.hints, h)
		}
	}
	if err := eng.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := store.Get(context.Background(), probeName, "seen", &run.seen); err != nil {
		t.Fatal(err)
	}
	run.state = eng.State()
	return run
}

func hintsJSONL(t *testing.T, hs []policy.Hint) []byte {
	t.Helper()
	var b bytes.Buffer
	for _, h := range hs {
		j, err := json.Marshal(h)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(j)
		b.WriteByte('\n')
	}
	return b.Bytes()
}

func snapshotJSON(t *testing.T, s *cluster.State) string {
	t.Helper()
	b, err := json.Marshal(s.Snapshot())
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// liveSnapshot reads a running instance's state.
func liveSnapshot(t *testing.T, in *instance) string {
	t.Helper()
	var out string
	in.sc.Loop().View(func(s *cluster.State, _ map[string]policy.Hint) { out = snapshotJSON(t, s) })
	return out
}

// consumeAll reads every message of a topic's partition 0 up to its end.
func consumeAll(t *testing.T, brokers []string, topic string) []*sarama.ConsumerMessage {
	t.Helper()
	cfg := sarama.NewConfig()
	cfg.Version = sarama.V3_0_0_0
	c, err := sarama.NewConsumer(brokers, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	client, err := sarama.NewClient(brokers, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	hw, err := client.GetOffset(topic, 0, sarama.OffsetNewest)
	if err != nil {
		t.Fatal(err)
	}
	if hw == 0 {
		return nil
	}
	pc, err := c.ConsumePartition(topic, 0, sarama.OffsetOldest)
	if err != nil {
		t.Fatal(err)
	}
	defer pc.Close()
	var out []*sarama.ConsumerMessage
	for int64(len(out)) < hw {
		select {
		case m := <-pc.Messages():
			out = append(out, m)
		case <-time.After(10 * time.Second):
			t.Fatalf("reading %s: got %d of %d messages", topic, len(out), hw)
		}
	}
	return out
}

func header(m *sarama.ConsumerMessage, key string) string {
	for _, h := range m.Headers {
		if string(h.Key) == key {
			return string(h.Value)
		}
	}
	return fmt.Sprintf("<no %s header>", key)
}
