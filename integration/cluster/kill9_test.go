//go:build cluster

package clustertest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/IBM/sarama"

	"github.com/rmsidecar/rmsidecar/events/kafka"
	"github.com/rmsidecar/rmsidecar/policy"
)

// TestSidecarSurvivesKill9: a simulated five-job batch (14k events, with bad
// lines among them) flows through the real broker over about 25 s while the
// sidecar process is killed with SIGKILL three times and restarted. In the
// end: every event applied (the model holds every app with all its tasks),
// every bad event on the dead-letter topic once, no hint delivered twice to
// the hints topic, no hint id given to two different hints.
func TestSidecarSurvivesKill9(t *testing.T) {
	c := loadCluster(t)
	dir := t.TempDir()
	log := filepath.Join(dir, "events.jsonl")
	sim := startRMSidecar(t, "sim", "sim", "--scenario", filepath.Join(repoRoot(t), "scenarios", "sepb-batch-5.yaml"),
		"--policies", "yarn", "--emit-events", log, "--out", filepath.Join(dir, "sim"), "--quiet")
	eventually(t, time.Minute, 200*time.Millisecond, "simulated events", func() (bool, string) { return sim.exited(), "running" })
	lines := readJSONL(t, log)
	// Every 200th line made bad: an unknown type, not JSON, a value out of range.
	var withBad []string
	bad := 0
	for i, l := range lines {
		withBad = append(withBad, l)
		if i%200 == 199 {
			withBad = append(withBad, []string{`{"v":1,"id":"bad-x","type":"node.exploded","ts":1}`, `not json`,
				`{"v":1,"id":"bad-y","type":"task.progress","ts":1,"app":"a","task":"t","attempt":"x","progress":7,"phase":"map"}`}[bad%3])
			bad++
		}
	}
	if err := os.WriteFile(log, []byte(strings.Join(withBad, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	apps := map[string]map[string]bool{} // app -> tasks
	for _, l := range lines {
		var e struct{ App, Task string }
		_ = json.Unmarshal([]byte(l), &e)
		if e.App != "" {
			if apps[e.App] == nil {
				apps[e.App] = map[string]bool{}
			}
			if e.Task != "" {
				apps[e.App][e.Task] = true
			}
		}
	}

	evTopic, nodeTopic, hintsTopic := uniq("it.k9.events."), uniq("it.k9.nodes."), uniq("it.k9.hints.")
	httpAddr := freePort(t)
	cfg := sidecarConfig(t, c, httpAddr, uniq("it-k9-"), evTopic, nodeTopic, hintsTopic, "  stack: yarn+sepb+samr", false)
	b, err := os.ReadFile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	// Keep finished apps for the final check.
	// Commits every 5 s: each kill lands with thousands of events, dozens of them bad, consumed
	// and not committed, which the next run consumes again.
	y := strings.Replace(string(b), "commit_interval: 500ms", "commit_interval: 5s", 1) + "model:\n  retain_finished: 48h\n"
	if err := os.WriteFile(cfg, []byte(y), 0o600); err != nil {
		t.Fatal(err)
	}
	run := startRMSidecar(t, "run-k9-0", "run", "--config", cfg)
	waitReady(t, httpAddr, run)
	replay := startRMSidecar(t, "replay", "replay", "--events", log, "--kafka", c.KafkaBootstrap, "--topic", evTopic,
		"--node-topic", nodeTopic, "--speed", "25")
	for i := 1; i <= 3; i++ {
		time.Sleep(6 * time.Second)
		run.kill()
		t.Logf("kill -9 #%d", i)
		run = startRMSidecar(t, fmt.Sprintf("run-k9-%d", i), "run", "--config", cfg)
		waitReady(t, httpAddr, run)
	}
	eventually(t, 2*time.Minute, 500*time.Millisecond, "the replay produced everything", func() (bool, string) { return replay.exited(), "producing" })
	// Everything consumed: every app with every task in the model.
	eventually(t, 2*time.Minute, time.Second, "every app and task in the model", func() (bool, string) {
		for app, tasks := range apps {
			var v struct {
				Tasks []struct{ ID string } `json:"tasks"`
			}
			resp, err := http.Get("http://" + httpAddr + "/v1/apps/" + app)
			if err != nil {
				return false, err.Error()
			}
			err = json.NewDecoder(resp.Body).Decode(&v)
			resp.Body.Close()
			if err != nil || len(v.Tasks) != len(tasks) {
				return false, fmt.Sprintf("%s: %d of %d tasks (%v)", app, len(v.Tasks), len(tasks), err)
			}
		}
		return true, ""
	})
	if err := run.stop(30 * time.Second); err != nil {
		t.Error(err)
	}

	dead := readTopic(t, c.KafkaBootstrap, evTopic+".dlq")
	offsets := map[string]int{}
	for _, m := range dead {
		offsets[header(m, kafka.HeaderTopic)+"@"+header(m, kafka.HeaderOffset)]++
	}
	twice := 0
	for _, n := range offsets {
		if n > 1 {
			twice++
		}
	}
	hints := readTopic(t, c.KafkaBootstrap, hintsTopic)
	byKey, byID := map[string]int{}, map[string]string{}
	dup, reused := 0, 0
	for _, m := range hints {
		var h policy.Hint
		if err := json.Unmarshal(m.Value, &h); err != nil {
			t.Fatalf("hint %s: %v", m.Value, err)
		}
		key := h.Target() + "|" + h.Content() + "|" + fmt.Sprint(h.TS)
		byKey[key]++
		if byKey[key] == 2 {
			dup++
		}
		if prev, ok := byID[h.ID]; ok && prev != key {
			reused++
		}
		byID[h.ID] = key
	}
	t.Logf("events %d (bad %d); dead letters %d (%d distinct, %d written twice); hints on the topic %d, delivered twice %d, ids reused %d",
		len(withBad), bad, len(dead), len(offsets), twice, len(hints), dup, reused)
	if len(offsets) != bad || twice != 0 {
		t.Errorf("dead letters: %d distinct of %d bad events, %d written twice", len(offsets), bad, twice)
	}
	if dup != 0 {
		t.Errorf("%d hints delivered twice to the hints topic", dup)
	}
	if reused != 0 {
		t.Errorf("%d hint ids given to two different hints", reused)
	}
}

func waitReady(t *testing.T, httpAddr string, p *proc) {
	t.Helper()
	eventually(t, time.Minute, 200*time.Millisecond, p.name+" ready", func() (bool, string) {
		if p.exited() {
			t.Fatalf("%s exited:\n%s", p.name, tail(p.log(), 30))
		}
		resp, err := http.Get("http://" + httpAddr + "/readyz")
		if err != nil {
			return false, err.Error()
		}
		resp.Body.Close()
		return resp.StatusCode == 200, resp.Status
	})
}

func readJSONL(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 0, 1<<20), 1<<22)
	for sc.Scan() {
		if l := strings.TrimSpace(sc.Text()); l != "" {
			out = append(out, l)
		}
	}
	return out
}

// readTopic reads every record of every partition of topic.
func readTopic(t *testing.T, bootstrap, topic string) []*sarama.ConsumerMessage {
	t.Helper()
	client, err := sarama.NewClient([]string{bootstrap}, kafkaConfig())
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	parts, err := client.Partitions(topic)
	if err != nil {
		t.Fatalf("%s: %v", topic, err)
	}
	cons, err := sarama.NewConsumerFromClient(client)
	if err != nil {
		t.Fatal(err)
	}
	defer cons.Close()
	var out []*sarama.ConsumerMessage
	for _, p := range parts {
		newest, err := client.GetOffset(topic, p, sarama.OffsetNewest)
		if err != nil {
			t.Fatal(err)
		}
		oldest, _ := client.GetOffset(topic, p, sarama.OffsetOldest)
		if newest <= oldest {
			continue
		}
		pc, err := cons.ConsumePartition(topic, p, oldest)
		if err != nil {
			t.Fatal(err)
		}
		for m := range pc.Messages() {
			out = append(out, m)
			if m.Offset >= newest-1 {
				break
			}
		}
		pc.Close()
	}
	return out
}

func header(m *sarama.ConsumerMessage, key string) string {
	for _, h := range m.Headers {
		if string(h.Key) == key {
			return string(h.Value)
		}
	}
	return ""
}
