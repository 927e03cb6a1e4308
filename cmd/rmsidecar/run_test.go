package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"net/http"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/IBM/sarama"
	"github.com/twmb/franz-go/pkg/kfake"
)

// syncBuffer is a bytes.Buffer safe for the command's goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// TestRunEmbeddedDemo: `rmsidecar run` with no configuration says it is in
// demo mode, prints hints within seconds, and exits 0 on SIGINT (the
// cancelled context main.go derives from the signal).
func TestRunEmbeddedDemo(t *testing.T) {
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out, errb syncBuffer
	env := []string{"RMSIDECAR_PROFILES_PATH=" + filepath.Join(dir, "p.db"),
		"RMSIDECAR_ACTUATORS_JOURNAL=" + filepath.Join(dir, "j.jsonl")}
	code := make(chan int, 1)
	addr := freeAddr(t)
	go func() {
		code <- execute(ctx, []string{"run", "--http", addr, "--log-format", "json", "--demo-speed", "20"},
			stdio{in: strings.NewReader(""), out: &out, err: &errb}, env)
	}()
	// The demo runs several papers' policies: wait for hints of two of them.
	deadline := time.Now().Add(60 * time.Second)
	for len(hintPolicies(errb.String())) < 2 {
		if time.Now().After(deadline) {
			cancel()
			t.Fatalf("no hints of two policies within 60 s (%v):\n%s", hintPolicies(errb.String()), errb.String())
		}
		select {
		case c := <-code:
			t.Fatalf("run exited %d early:\n%s", c, errb.String())
		case <-time.After(20 * time.Millisecond):
		}
	}
	// The dry run's hints are on the pull API too. The log and the pull API
	// are two actuators, each on its own worker: the pull API may get a hint
	// a moment after the log line.
	var hints []map[string]any
	for pull := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		resp, err := http.Get("http://" + addr + "/v1/hints")
		if err != nil {
			t.Fatal(err)
		}
		hints = nil
		err = json.NewDecoder(resp.Body).Decode(&hints)
		resp.Body.Close()
		if err != nil || len(hints) > 0 || time.Now().After(pull) {
			if err != nil || len(hints) == 0 || hints[0]["v"] != 1.0 {
				t.Errorf("/v1/hints: %d hints, %v", len(hints), err)
			}
			break
		}
	}
	cancel()
	select {
	case c := <-code:
		if c != exitOK {
			t.Fatalf("exit %d after SIGINT:\n%s", c, errb.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatal("run did not stop within 30 s of SIGINT")
	}
	logs := errb.String()
	if n := strings.Count(logs, "EMBEDDED DEMO MODE"); n != 1 {
		t.Errorf("%d demo-mode lines, want exactly one", n)
	}
	if !strings.Contains(logs, `"message":"stopped"`) {
		t.Error("no orderly stop logged")
	}
}

// hintPolicies are the policies of the dry-run hint lines in a JSON log.
func hintPolicies(log string) map[string]bool {
	out := map[string]bool{}
	for _, line := range strings.Split(log, "\n") {
		var l struct{ Message, Policy string }
		if json.Unmarshal([]byte(line), &l) == nil && l.Message == "hint (dry run)" {
			out[l.Policy] = true
		}
	}
	return out
}

// TestRunConsole: `run --policies ... --log-format console` prints one short
// line per hint and a periodic status line, not the hints' JSON.
func TestRunConsole(t *testing.T) {
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out, errb syncBuffer
	env := []string{"RMSIDECAR_PROFILES_PATH=" + filepath.Join(dir, "p.db"),
		"RMSIDECAR_ACTUATORS_JOURNAL=" + filepath.Join(dir, "j.jsonl"), "RMSIDECAR_LOG_STATUS_INTERVAL=1s"}
	code := make(chan int, 1)
	go func() {
		code <- execute(ctx, []string{"run", "--http", freeAddr(t), "--log-format", "console", "--demo-speed", "20",
			"--policies", "samr,dhsa-pi"}, stdio{in: strings.NewReader(""), out: &out, err: &errb}, env)
	}()
	hint := regexp.MustCompile(`(?m) hint (ratio|speculate|node-class) \S.* \((samr|dhsa-pi)\): `)
	deadline := time.Now().Add(60 * time.Second)
	for !hint.MatchString(errb.String()) || !strings.Contains(errb.String(), "status: ") {
		if time.Now().After(deadline) {
			cancel()
			t.Fatalf("no short hint line and status line within 60 s:\n%s", errb.String())
		}
		select {
		case c := <-code:
			t.Fatalf("run exited %d early:\n%s", c, errb.String())
		case <-time.After(20 * time.Millisecond):
		}
	}
	cancel()
	if c := <-code; c != exitOK {
		t.Fatalf("exit %d:\n%s", c, errb.String())
	}
	logs := errb.String()
	if strings.Contains(logs, `"expires_ts"`) || !strings.Contains(logs, "stack=samr+dhsa-pi") {
		t.Errorf("console log carries hint JSON, or not the --policies stack:\n%s", logs)
	}
	if !regexp.MustCompile(`status: \d+ events/s, [\d.]+ hints/s, lag \d+, dead letters \d+`).MatchString(logs) {
		t.Errorf("no well-formed status line:\n%s", logs)
	}
}

func TestRunBadConfigExitsTwo(t *testing.T) {
	var out, errb bytes.Buffer
	c := execute(context.Background(), []string{"run"}, stdio{in: strings.NewReader(""), out: &out, err: &errb},
		[]string{"RMSIDECAR_POLICIES_STACK=no-such-policy"})
	if c != exitBadUse || !strings.Contains(errb.String(), "policies.stack") {
		t.Fatalf("exit %d, %q; want 2 naming policies.stack", c, errb.String())
	}
}

// TestReplayIntoKafka: `replay --kafka` produces every line, keyed by app
// (else node), node events to --node-topic, invalid lines unchanged.
func TestReplayIntoKafka(t *testing.T) {
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(1, "ev", "nodes"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	brokers := strings.Join(c.ListenAddrs(), ",")
	code, _, errOut := run(t, "replay", "--kafka", brokers, "--topic", "ev", "--node-topic", "nodes",
		"--events", "../../integration/testdata/malformed-3bad.jsonl", "--log-level", "error")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(errOut, "86 messages (3 not valid events v1)") {
		t.Errorf("summary %q", errOut)
	}
	cfg := sarama.NewConfig()
	cfg.Version = sarama.V3_0_0_0
	cons, err := sarama.NewConsumer(c.ListenAddrs(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer cons.Close()
	count := func(topic string, want int, check func(m *sarama.ConsumerMessage)) {
		pc, err := cons.ConsumePartition(topic, 0, sarama.OffsetOldest)
		if err != nil {
			t.Fatal(err)
		}
		defer pc.Close()
		for range want {
			select {
			case m := <-pc.Messages():
				check(m)
			case <-time.After(10 * time.Second):
				t.Fatalf("%s: fewer than %d messages", topic, want)
			}
		}
	}
	count("nodes", 32, func(m *sarama.ConsumerMessage) {
		if !strings.HasPrefix(string(m.Key), "nm") {
			t.Errorf("node event keyed %q", m.Key)
		}
	})
	unkeyed := 0
	count("ev", 54, func(m *sarama.ConsumerMessage) {
		var v struct {
			App string `json:"app"`
		}
		if m.Key == nil {
			unkeyed++
			return
		}
		if err := json.Unmarshal(m.Value, &v); err != nil || string(m.Key) != v.App {
			t.Errorf("message keyed %q, app %q", m.Key, v.App)
		}
	})
	if unkeyed != 3 {
		t.Errorf("%d unkeyed messages, want the 3 invalid lines", unkeyed)
	}
}

// TestBenchJSONHasTheContractFields runs a small bench and checks the
// contract's object.
func TestBenchJSONHasTheContractFields(t *testing.T) {
	if testing.Short() {
		t.Skip("bench takes seconds")
	}
	code, out, errOut := run(t, "bench", "--quick", "--json", "--nodes", "50", "--containers", "500",
		"--engine-events", "20000", "--kafka-events", "5000", "--latency-for", "300ms")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var got map[string]any
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("not one JSON object: %v\n%s", err, out)
	}
	for _, k := range []string{"engine_events_per_s", "e2e_events_per_s", "raw_consume_per_s", "decode_events_per_s",
		"hint_p50_ms", "hint_p99_ms", "hint_p999_ms", "rss_mb", "rss_offered_mb", "e2e_to_raw", "decode_to_raw", "engine_to_raw"} {
		v, ok := got[k].(float64)
		if !ok || v < 0 {
			t.Errorf("%s = %v", k, got[k])
		}
	}
	for _, k := range []string{"engine_events_per_s", "e2e_events_per_s", "raw_consume_per_s", "decode_events_per_s", "rss_mb", "e2e_to_raw"} {
		if got[k].(float64) <= 0 {
			t.Errorf("%s = %v, want a measurement", k, got[k])
		}
	}
	if got["v"] != 1.0 || got["nodes"] != 50.0 || got["containers"] != 500.0 {
		t.Errorf("v, nodes, containers = %v %v %v", got["v"], got["nodes"], got["containers"])
	}
}

// TestRunWithRMActuatorNeedsRMURLs: the rm actuator without rm.urls is a
// config error (exit 2) naming the key.
func TestRunWithRMActuatorNeedsRMURLs(t *testing.T) {
	var out, errb bytes.Buffer
	c := execute(context.Background(), []string{"run"}, stdio{in: strings.NewReader(""), out: &out, err: &errb},
		[]string{"RMSIDECAR_ACTUATORS_ENABLED=rm"})
	if c != exitBadUse || !strings.Contains(errb.String(), "rm.urls") {
		t.Fatalf("exit %d, %q; want 2 naming rm.urls", c, errb.String())
	}
}
