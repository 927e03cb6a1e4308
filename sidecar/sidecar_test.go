package sidecar

import (
	"bytes"
	"context"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/rmsidecar/rmsidecar/config"
	"github.com/rmsidecar/rmsidecar/profiles"
)

// TestKafkaOutageDegradesNotCrashes: with the brokers unreachable the
// sidecar keeps retrying, answers /healthz, says why it is not ready, and a
// signal still stops it cleanly.
func TestKafkaOutageDegradesNotCrashes(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := l.Addr().String()
	l.Close() // nothing listens here now
	cfg, err := config.Load("", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Kafka.Brokers = []string{dead}
	cfg.Policies.Stack = "none"
	cfg.Actuators.Journal = filepath.Join(t.TempDir(), "j.jsonl")
	cfg.HTTP.Addr = "127.0.0.1:0"
	store := profiles.NewMemory()
	defer store.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sc, err := New(ctx, Options{Config: cfg, Profiles: store, Log: zerolog.Nop()})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- sc.Run(ctx) }()
	addr, err := sc.HTTPAddr(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]int{"/healthz": 200, "/readyz": 503} {
		resp, err := http.Get("http://" + addr + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("GET %s: %d, want %d", path, resp.StatusCode, want)
		}
	}
	select {
	case err := <-done:
		t.Fatalf("Run returned %v while Kafka was down; it should wait", err)
	case <-time.After(500 * time.Millisecond):
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Run: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not stop within 10 s of the signal")
	}
}

// TestCorruptJournalLineIsLogged: a journal line that is not a valid entry
// is named in a warning when the sidecar opens the journal.
func TestCorruptJournalLineIsLogged(t *testing.T) {
	cfg, err := config.Load("", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Kafka.Brokers = []string{"127.0.0.1:1"} // not the embedded demo: the file journal is opened
	cfg.Policies.Stack = "none"
	cfg.Actuators.Journal = filepath.Join(t.TempDir(), "j.jsonl")
	if err := os.WriteFile(cfg.Actuators.Journal, []byte(`{"k":"00112233445566778899aabbccddeeff","exp":5}`+"\ngarbage\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg.HTTP.Addr = "127.0.0.1:0"
	store := profiles.NewMemory()
	defer store.Close()
	// Run's goroutines (the HTTP server, the broker watch) log concurrently.
	var logs lockedBuffer
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sc, err := New(ctx, Options{Config: cfg, Profiles: store, Log: zerolog.New(&logs)})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- sc.Run(ctx) }()
	cancel()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not stop")
	}
	out := logs.String()
	if !strings.Contains(out, `"level":"warn"`) || !strings.Contains(out, `"line":2`) || !strings.Contains(out, "j.jsonl: line 2") {
		t.Errorf("no warning naming the journal line:\n%s", out)
	}
}

// lockedBuffer is a bytes.Buffer that several goroutines may write.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
