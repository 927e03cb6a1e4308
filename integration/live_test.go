package integration

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rmsidecar/rmsidecar/cluster"
	"github.com/rmsidecar/rmsidecar/events"
	"github.com/rmsidecar/rmsidecar/events/kafka"
	"github.com/rmsidecar/rmsidecar/policy"
	"github.com/rmsidecar/rmsidecar/profiles"
)

var update = flag.Bool("update", false, "rewrite the golden hint files under testdata/golden")

// TestReplayThroughKafkaMatchesGolden replays every recorded log through an
// embedded broker into a running sidecar. The hints must equal the golden
// file and the in-process replay of the same log; the state must equal the
// in-process state; malformed lines must be on the dead-letter topic, with
// their origin, while every valid event is applied.
func TestReplayThroughKafkaMatchesGolden(t *testing.T) {
	logs, err := filepath.Glob("testdata/*.jsonl")
	if err != nil || len(logs) == 0 {
		t.Fatalf("no logs in testdata: %v", err)
	}
	for _, path := range logs {
		name := strings.TrimSuffix(filepath.Base(path), ".jsonl")
		t.Run(name, func(t *testing.T) {
			lines := join(readLines(t, path))
			brokers := startKafka(t, 1)
			rec := &recorder{}
			cfg := testConfig(t, brokers, t.TempDir(), "it")
			cfg.Actuators.Enabled = []string{"http", "kafka"}
			in := start(t, cfg, rec)
			st := produce(t, brokers, lines, false)
			want := reference(t, lines, "it")
			loop := in.sc.Loop()
			waitFor(t, "every message applied or rejected", 20*time.Second, func() bool {
				return loop.Applied()+loop.Rejected() == uint64(st.Produced)
			})
			// The loop counts a batch before it marks its partitions caught up,
			// so readiness may follow the last count by a moment.
			ready, why := loop.Ready()
			for deadline := time.Now().Add(10 * time.Second); !ready && time.Now().Before(deadline); ready, why = loop.Ready() {
				time.Sleep(5 * time.Millisecond)
			}
			if !ready {
				t.Errorf("not ready 10 s after consuming everything: %s", why)
			}
			if got := loop.Applied(); got != uint64(want.valid) {
				t.Errorf("applied %d events, want every valid one: %d", got, want.valid)
			}
			if got := liveSnapshot(t, in); got != snapshotJSON(t, want.state) {
				t.Error("live state differs from the in-process replay of the same log")
			}
			in.stop(t)

			got := hintsJSONL(t, rec.all())
			if ref := hintsJSONL(t, want.hints); !bytes.Equal(got, ref) {
				t.Errorf("live hints differ from the in-process replay:\nlive:\n%s\nin-process:\n%s", got, ref)
			}
			golden := filepath.Join("testdata", "golden", name+".hints.jsonl")
			if *update {
				if err := os.WriteFile(golden, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			wantGolden, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if !bytes.Equal(got, wantGolden) {
				t.Errorf("hints differ from %s (run with -update after checking the change):\n got:\n%s\nwant:\n%s", golden, got, wantGolden)
			}

			// The kafka actuator wrote the same hints, keyed by app, else queue, else node.
			onTopic := consumeAll(t, brokers, hintsTopic)
			if len(onTopic) != len(want.hints) {
				t.Fatalf("%d hints on %s, want %d", len(onTopic), hintsTopic, len(want.hints))
			}
			for i, m := range onTopic {
				if string(m.Key) != want.hints[i].Key() || !bytes.Equal(append(m.Value, '\n'), hintsJSONL(t, want.hints[i:i+1])) {
					t.Errorf("hints topic message %d: key %q value %s, want key %q", i, m.Key, m.Value, want.hints[i].Key())
					break
				}
			}

			dead := consumeAll(t, brokers, dlqTopic)
			if len(dead) != st.Invalid || loop.Rejected() != uint64(st.Invalid) {
				t.Fatalf("%d messages on the dead-letter topic, %d rejected; want the %d invalid lines", len(dead), loop.Rejected(), st.Invalid)
			}
			for _, m := range dead {
				if _, err := events.Decode(m.Value); err == nil {
					t.Errorf("a valid event went to the dead-letter topic: %s", m.Value)
				}
				if header(m, kafka.HeaderTopic) != eventsTopic || header(m, kafka.HeaderPartition) != "0" {
					t.Errorf("dead letter origin %s/%s, want %s/0", header(m, kafka.HeaderTopic), header(m, kafka.HeaderPartition), eventsTopic)
				}
				off, err := strconv.ParseInt(header(m, kafka.HeaderOffset), 10, 64)
				if err != nil || off < 0 || off >= int64(st.Produced) {
					t.Errorf("dead letter offset header %q", header(m, kafka.HeaderOffset))
				}
				if header(m, kafka.HeaderError) == "" {
					t.Error("dead letter without an error header")
				}
			}
		})
	}
}

// TestKillMidStreamAndRestart: a graceful stop, a kill mid-stream (no final
// checkpoint, no commit) and a restart. No event may be lost, no hint
// actuated twice, and the learned profile must count every event once.
func TestKillMidStreamAndRestart(t *testing.T) {
	all := readLines(t, "testdata/sample-2jobs.jsonl")
	n := len(all)
	cut1, cut2 := n/3, 2*n/3
	brokers := startKafka(t, 1)
	dir := t.TempDir()
	cfg := testConfig(t, brokers, dir, "it")
	rec := &recorder{}
	want := reference(t, join(all), "it")

	// Run 1 applies the first third and stops gracefully: checkpoint + commit.
	first := start(t, cfg, rec)
	produce(t, brokers, join(all[:cut1]), false)
	waitFor(t, "run 1 applied its events", 20*time.Second, func() bool { return first.sc.Loop().Applied() == uint64(cut1) })
	first.stop(t)

	// Run 2 resumes, applies the second third and is killed before any commit.
	second := start(t, cfg, rec)
	produce(t, brokers, join(all[cut1:cut2]), false)
	waitFor(t, "run 2 applied its events", 20*time.Second, func() bool { return second.sc.Loop().Applied() == uint64(cut2-cut1) })
	deliveredBeforeKill := len(rec.all())
	second.kill(t)

	// Run 3 restores run 1's checkpoint, re-consumes the second third, and
	// gets the rest.
	third := start(t, cfg, rec)
	produce(t, brokers, join(all[cut2:]), false)
	waitFor(t, "run 3 applied the re-consumed and the new events", 20*time.Second, func() bool {
		return third.sc.Loop().Applied() == uint64(n-cut1)
	})
	if got := liveSnapshot(t, third); got != snapshotJSON(t, want.state) {
		t.Error("state after kill and restart differs from an uninterrupted replay: an event was lost or misapplied")
	}
	third.stop(t)

	got := rec.all()
	if deliveredBeforeKill == 0 || deliveredBeforeKill == len(got) {
		t.Logf("hints before the kill: %d of %d", deliveredBeforeKill, len(got))
	}
	seen := map[string]string{}
	for _, h := range got {
		key := h.Target() + "|" + h.Content() + "|" + strconv.FormatInt(h.TS, 10)
		if id, dup := seen[key]; dup {
			t.Errorf("hint actuated twice: %s and %s (%s)", id, h.ID, key)
		}
		seen[key] = h.ID
	}
	if g, w := hintsJSONL(t, got), hintsJSONL(t, want.hints); !bytes.Equal(g, w) {
		t.Errorf("hints across the restarts differ from an uninterrupted replay:\n got:\n%s\nwant:\n%s", g, w)
	}

	db, err := profiles.Open(cfg.Profiles.Path, profiles.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var learned int
	if _, err := db.Get(context.Background(), probeName, "seen", &learned); err != nil {
		t.Fatal(err)
	}
	if learned != want.seen {
		t.Errorf("learned profile counts %d events, want %d: profiles lost or double-counted across the restart", learned, want.seen)
	}
}

// TestTwoInstancesSplitPartitions: two sidecars in one group split the
// app-keyed partitions and together apply every app event once; both see
// every node event; exactly one leads.
func TestTwoInstancesSplitPartitions(t *testing.T) {
	lines := readLines(t, "testdata/sample-2jobs.jsonl")
	var nodeEvents, appEvents int
	for _, l := range lines {
		ev, err := events.Decode(l)
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasPrefix(string(ev.Type), "node.") {
			nodeEvents++
		} else {
			appEvents++
		}
	}
	brokers := startKafka(t, 4)
	a := start(t, testConfig(t, brokers, t.TempDir(), "a"), &recorder{})
	b := start(t, testConfig(t, brokers, t.TempDir(), "b"), &recorder{})
	for _, in := range []*instance{a, b} {
		waitFor(t, "both instances ready", 30*time.Second, func() bool { ok, _ := in.sc.Loop().Ready(); return ok })
	}
	waitFor(t, "both instances own events partitions", 30*time.Second, func() bool {
		pa, pb := eventsPartitions(a), eventsPartitions(b)
		return len(pa) > 0 && len(pb) > 0 && len(pa)+len(pb) == 4
	})
	pa, pb := eventsPartitions(a), eventsPartitions(b)
	for _, p := range pa {
		if slices.Contains(pb, p) {
			t.Fatalf("partition %d owned by both instances (%v, %v)", p, pa, pb)
		}
	}
	if a.sc.Loop().Leader() == b.sc.Loop().Leader() {
		t.Errorf("leaders: a=%v b=%v, want exactly one", a.sc.Loop().Leader(), b.sc.Loop().Leader())
	}

	produce(t, brokers, join(lines), true)
	want := uint64(appEvents + 2*nodeEvents)
	waitFor(t, "both instances applied their share", 20*time.Second, func() bool {
		return a.sc.Loop().Applied()+b.sc.Loop().Applied() >= want
	})
	time.Sleep(100 * time.Millisecond) // a duplicate would show up now
	if got := a.sc.Loop().Applied() + b.sc.Loop().Applied(); got != want {
		t.Errorf("applied %d events in total, want %d (each app event once, each node event on both)", got, want)
	}
	var appsA, appsB []string
	for _, x := range []struct {
		in   *instance
		apps *[]string
	}{{a, &appsA}, {b, &appsB}} {
		x.in.sc.Loop().View(func(s *cluster.State, _ map[string]policy.Hint) {
			if len(s.Nodes()) != 4 {
				t.Errorf("an instance sees %d nodes, want all 4", len(s.Nodes()))
			}
			for _, app := range s.Apps() {
				*x.apps = append(*x.apps, app.ID)
			}
		})
	}
	for _, id := range appsA {
		if slices.Contains(appsB, id) {
			t.Errorf("app %s applied by both instances", id)
		}
	}
	if len(appsA)+len(appsB) == 0 {
		t.Error("no app reached either instance")
	}
}

func eventsPartitions(in *instance) []int32 {
	var out []int32
	for _, tp := range in.sc.Loop().Partitions() {
		if tp.Topic == eventsTopic {
			out = append(out, tp.Partition)
		}
	}
	return out
}

// TestDeadLettersOnceAcrossKill: bad events consumed by a run that is killed
// before its commit are consumed again by the next run; each must be on the
// dead-letter topic once, not once per run.
func TestDeadLettersOnceAcrossKill(t *testing.T) {
	all := readLines(t, "testdata/sample-2jobs.jsonl")
	n := len(all)
	cut1, cut2 := n/3, 2*n/3
	bad := [][]byte{[]byte(`{"v":1,"id":"bad-1","type":"node.exploded","ts":1}`), []byte(`not json`),
		[]byte(`{"v":1,"id":"bad-3","type":"task.progress","ts":1,"app":"a","task":"t","attempt":"x","progress":7,"phase":"map"}`)}
	middle := append(append([][]byte{}, all[cut1:cut2]...), bad...)
	brokers := startKafka(t, 1)
	dir := t.TempDir()
	cfg := testConfig(t, brokers, dir, "it")
	rec := &recorder{}

	first := start(t, cfg, rec)
	produce(t, brokers, join(all[:cut1]), false)
	waitFor(t, "run 1 applied its events", 20*time.Second, func() bool { return first.sc.Loop().Applied() == uint64(cut1) })
	first.stop(t)

	second := start(t, cfg, rec)
	produce(t, brokers, join(middle), false)
	waitFor(t, "run 2 applied and rejected its events", 20*time.Second, func() bool {
		l := second.sc.Loop()
		return l.Applied() == uint64(cut2-cut1) && l.Rejected() == uint64(len(bad))
	})
	second.kill(t)

	third := start(t, cfg, rec)
	produce(t, brokers, join(all[cut2:]), false)
	waitFor(t, "run 3 consumed the second part again and the rest", 20*time.Second, func() bool {
		return third.sc.Loop().Applied() == uint64(n-cut1)
	})
	third.stop(t)

	dead := consumeAll(t, brokers, cfg.Kafka.DeadLetterTopic)
	offsets := map[string]int{}
	for _, m := range dead {
		offsets[header(m, kafka.HeaderOffset)]++
	}
	if len(dead) != len(bad) {
		t.Errorf("%d dead letters for %d bad events (by origin offset: %v): written again after the kill", len(dead), len(bad), offsets)
	}
	for off, c := range offsets {
		if c != 1 {
			t.Errorf("offset %s dead-lettered %d times", off, c)
		}
	}
}
