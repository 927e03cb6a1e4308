//go:build cluster

package clustertest

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/IBM/sarama"
)

// loadCluster loads cluster.json or skips the test when no cluster was started.
func loadCluster(t *testing.T) *Cluster {
	t.Helper()
	c, err := LoadFromEnv()
	if errors.Is(err, ErrNoCluster) {
		t.Skip(err.Error())
	}
	if err != nil {
		t.Fatalf("load cluster: %v", err)
	}
	return c
}

type rmNodes struct {
	Nodes struct {
		Node []struct {
			ID           string `json:"id"`
			State        string `json:"state"`
			NodeHostName string `json:"nodeHostName"`
			Rack         string `json:"rack"`
		} `json:"node"`
	} `json:"nodes"`
}

func TestRMListsTwoRunningNodes(t *testing.T) {
	c := loadCluster(t)
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()

	var info struct {
		ClusterInfo struct {
			State string `json:"state"`
		} `json:"clusterInfo"`
	}
	if err := c.RMGetJSON(ctx, "/ws/v1/cluster/info", &info); err != nil {
		t.Fatal(err)
	}
	if info.ClusterInfo.State != "STARTED" {
		t.Fatalf("RM state = %q, want STARTED", info.ClusterInfo.State)
	}

	var nodes rmNodes
	if err := c.RMGetJSON(ctx, "/ws/v1/cluster/nodes", &nodes); err != nil {
		t.Fatal(err)
	}
	var running []string
	for _, n := range nodes.Nodes.Node {
		if n.State == "RUNNING" {
			running = append(running, n.ID)
		}
	}
	sort.Strings(running)
	var want []string
	for _, nm := range c.NodeManagers {
		want = append(want, nm.ID)
	}
	sort.Strings(want)
	if len(running) != 2 || !slices.Equal(running, want) {
		t.Fatalf("RUNNING nodes = %v, want the 2 NodeManagers of cluster.json %v", running, want)
	}
}

func TestWebHDFSBlockLocationsNameDistinctDatanodes(t *testing.T) {
	c := loadCluster(t)
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()

	client, err := c.HDFSClient("rmsidecar")
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()

	dir := fmt.Sprintf("/smoke/blocks-%d", time.Now().UnixNano())
	if err := client.MkdirAll(dir, 0o755); err != nil {
		t.Fatalf("mkdir %s: %v", dir, err)
	}
	path := dir + "/data.bin"
	const blockSize = 1 << 20
	w, err := client.CreateFile(path, 3, blockSize, 0o644)
	if err != nil {
		t.Fatalf("create %s: %v", path, err)
	}
	rnd := rand.New(rand.NewPCG(1, 2))
	buf := make([]byte, 64<<10)
	for written := 0; written < 3*blockSize; written += len(buf) {
		for i := range buf {
			buf[i] = byte(rnd.Uint32())
		}
		if _, err := w.Write(buf); err != nil {
			t.Fatalf("write %s: %v", path, err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatalf("close %s: %v", path, err)
	}

	// A datanode reports a finished replica to the NameNode asynchronously
	// (incremental block report), and the close returns once one replica
	// is reported: under load a block may list fewer hosts for a moment.
	// Wait until every block lists all three, as HDFS itself converges.
	var locs []BlockLocation
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		var err error
		if locs, err = c.BlockLocations(ctx, path); err != nil {
			t.Fatal(err)
		}
		if allReplicated(locs, 3) || time.Now().After(deadline) {
			break
		}
	}
	if len(locs) != 3 {
		t.Fatalf("got %d blocks, want 3: %+v", len(locs), locs)
	}
	wantHosts := map[string]string{}
	for _, d := range c.DataNodes {
		wantHosts[d.Host] = d.Rack
	}
	if len(wantHosts) != 3 {
		t.Fatalf("cluster.json lists %d distinct datanode hosts, want 3: %+v", len(wantHosts), c.DataNodes)
	}
	for i, l := range locs {
		if l.Offset != int64(i)*blockSize || l.Length != blockSize {
			t.Errorf("block %d: offset %d length %d, want %d %d", i, l.Offset, l.Length, int64(i)*blockSize, blockSize)
		}
		hosts := slices.Clone(l.Hosts)
		sort.Strings(hosts)
		if len(hosts) != 3 || len(slices.Compact(hosts)) != 3 {
			t.Errorf("block %d: hosts %v, want 3 distinct", i, l.Hosts)
		}
		for _, h := range hosts {
			if _, ok := wantHosts[h]; !ok {
				t.Errorf("block %d: host %q is not a harness datanode", i, h)
			}
		}
		for j, tp := range l.TopologyPaths {
			if j < len(l.Hosts) {
				wantPrefix := wantHosts[l.Hosts[j]] + "/"
				if !strings.HasPrefix(tp, wantPrefix) {
					t.Errorf("block %d: topology path %q, want prefix %q", i, tp, wantPrefix)
				}
			}
		}
	}
	t.Logf("block 0 hosts %v topology %v", locs[0].Hosts, locs[0].TopologyPaths)
	if err := client.RemoveAll(dir); err != nil {
		t.Logf("cleanup %s: %v", dir, err)
	}
}

func kafkaConfig() *sarama.Config {
	cfg := sarama.NewConfig()
	cfg.Version = sarama.V3_9_0_0
	cfg.ClientID = "rmsidecar-smoke"
	cfg.Producer.Return.Successes = true
	cfg.Producer.RequiredAcks = sarama.WaitForAll
	cfg.Producer.Retry.Max = 10
	cfg.Producer.Retry.Backoff = 250 * time.Millisecond
	cfg.Metadata.Retry.Max = 20
	cfg.Metadata.Retry.Backoff = 250 * time.Millisecond
	cfg.Consumer.Offsets.Initial = sarama.OffsetOldest
	cfg.Consumer.Offsets.AutoCommit.Enable = false
	// A synchronous Commit queues behind the fetch long-poll on the same broker connection
	// (coordinator == leader on one broker): it costs up to ~2x MaxWaitTime (~1 s at the
	// 500 ms default, ~200 ms here).
	cfg.Consumer.MaxWaitTime = 100 * time.Millisecond
	return cfg
}

// collector is a sarama consumer group handler that forwards messages to a channel. It marks
// every message and commits every commitEvery messages and in Cleanup (autocommit is off),
// recording how long the synchronous commits take.
type collector struct {
	msgs        chan *sarama.ConsumerMessage
	commitEvery int
	commits     []time.Duration
}

func (h *collector) Setup(sarama.ConsumerGroupSession) error { return nil }

func (h *collector) Cleanup(sess sarama.ConsumerGroupSession) error {
	h.commit(sess)
	return nil
}

func (h *collector) commit(sess sarama.ConsumerGroupSession) {
	start := time.Now()
	sess.Commit()
	h.commits = append(h.commits, time.Since(start).Round(time.Millisecond))
}

func (h *collector) ConsumeClaim(sess sarama.ConsumerGroupSession, claim sarama.ConsumerGroupClaim) error {
	marked := 0
	for {
		select {
		case m, ok := <-claim.Messages():
			if !ok {
				return nil
			}
			sess.MarkMessage(m, "")
			marked++
			if marked%h.commitEvery == 0 {
				h.commit(sess)
			}
			select {
			case h.msgs <- m:
			case <-sess.Context().Done():
				return nil
			}
		case <-sess.Context().Done():
			return nil
		}
	}
}

// kafkaRoundTrip produces n keyed messages to a fresh topic and reads them back through a
// consumer group.
func kafkaRoundTrip(ctx context.Context, t *testing.T, bootstrap string, n int) {
	t.Helper()
	topic := fmt.Sprintf("smoke-%d", time.Now().UnixNano())
	cfg := kafkaConfig()
	start := time.Now()

	producer, err := sarama.NewSyncProducer([]string{bootstrap}, cfg)
	if err != nil {
		t.Fatalf("producer: %v", err)
	}
	defer producer.Close()
	for i := range n {
		msg := &sarama.ProducerMessage{
			Topic: topic,
			Key:   sarama.StringEncoder(fmt.Sprintf("app-%d", i%3)),
			Value: sarama.StringEncoder(fmt.Sprintf(`{"v":1,"id":"e%d","type":"node.heartbeat","ts":%d}`, i, time.Now().UnixMilli())),
		}
		if _, _, err := producer.SendMessage(msg); err != nil {
			t.Fatalf("send %d to %s: %v", i, topic, err)
		}
	}
	produced := time.Now()

	group, err := sarama.NewConsumerGroup([]string{bootstrap}, topic+"-group", cfg)
	if err != nil {
		t.Fatalf("consumer group: %v", err)
	}
	defer group.Close()
	h := &collector{msgs: make(chan *sarama.ConsumerMessage, n), commitEvery: 25}
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	done := make(chan error, 1)
	go func() {
		for cctx.Err() == nil {
			if err := group.Consume(cctx, []string{topic}, h); err != nil {
				done <- err
				return
			}
		}
		done <- nil
	}()
	seen := map[string]bool{}
	for len(seen) < n {
		select {
		case m := <-h.msgs:
			seen[string(m.Value)] = true
		case err := <-done:
			t.Fatalf("consume %s: %v (got %d of %d)", topic, err, len(seen), n)
		case <-ctx.Done():
			t.Fatalf("consume %s: %v (got %d of %d)", topic, ctx.Err(), len(seen), n)
		}
	}
	consumed := time.Now()
	cancel()
	<-done
	t.Logf("kafka %s: produced %d in %s, consumed in %s, commit latencies %v",
		topic, n, produced.Sub(start).Round(time.Millisecond), consumed.Sub(produced).Round(time.Millisecond), h.commits)
}

func TestKafkaProduceConsumeRoundTrip(t *testing.T) {
	c := loadCluster(t)
	ctx, cancel := context.WithTimeout(t.Context(), 90*time.Second)
	defer cancel()
	kafkaRoundTrip(ctx, t, c.KafkaBootstrap, 100)
}

// TestWordCountWatchedThroughAMREST submits a wordcount without waiting and watches it the
// way the sidecar's bridge does: RM app state plus the MR AM REST API through the RM proxy
// (jobs, tasks, task attempts with their nodes) while it runs; the job succeeds, the RM says
// so, and its output in HDFS holds the generated words. (One job for what were two smoke
// tests: the suite's time goes to MapReduce jobs.)
func TestWordCountWatchedThroughAMREST(t *testing.T) {
	c := loadCluster(t)
	ctx, cancel := context.WithTimeout(t.Context(), 8*time.Minute)
	defer cancel()

	base := fmt.Sprintf("/user/rmsidecar/watch-%d", time.Now().UnixNano())
	res, err := c.SubmitWordCount(ctx, "--generate-files", "2", "--generate-lines", "40000", "--no-wait",
		base+"/in", base+"/out")
	if err != nil || res.AppID == "" {
		t.Fatalf("submit: err=%v app=%q\n%s", err, res.AppID, tail(res.Output, 40))
	}
	jobID := "job_" + strings.TrimPrefix(res.AppID, "application_")

	type attempt struct {
		ID              string `json:"id"`
		State           string `json:"state"`
		Type            string `json:"type"`
		NodeHTTPAddress string `json:"nodeHttpAddress"`
		Container       string `json:"assignedContainerId"`
	}
	var sawJob bool
	attemptNodes := map[string]string{}
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		st, err := c.App(ctx, res.AppID)
		if err != nil {
			t.Fatalf("app state: %v", err)
		}
		if st.State == "FINISHED" || st.State == "FAILED" || st.State == "KILLED" {
			if st.FinalStatus != "SUCCEEDED" {
				t.Fatalf("app %s ended %s/%s", res.AppID, st.State, st.FinalStatus)
			}
			break
		}
		if st.State == "RUNNING" {
			var jobs struct {
				Jobs struct {
					Job []struct {
						ID        string `json:"id"`
						State     string `json:"state"`
						MapsTotal int    `json:"mapsTotal"`
					} `json:"job"`
				} `json:"jobs"`
			}
			err := c.AMGetJSON(ctx, res.AppID, "/jobs", &jobs)
			if err == nil && len(jobs.Jobs.Job) == 1 && jobs.Jobs.Job[0].ID == jobID {
				sawJob = true
				var tasks struct {
					Tasks struct {
						Task []struct {
							ID string `json:"id"`
						} `json:"task"`
					} `json:"tasks"`
				}
				if err := c.AMGetJSON(ctx, res.AppID, "/jobs/"+jobID+"/tasks", &tasks); err == nil {
					for _, tk := range tasks.Tasks.Task {
						var atts struct {
							TaskAttempts struct {
								TaskAttempt []attempt `json:"taskAttempt"`
							} `json:"taskAttempts"`
						}
						if err := c.AMGetJSON(ctx, res.AppID, "/jobs/"+jobID+"/tasks/"+tk.ID+"/attempts", &atts); err != nil {
							continue
						}
						for _, a := range atts.TaskAttempts.TaskAttempt {
							if a.NodeHTTPAddress != "" {
								attemptNodes[a.ID] = a.NodeHTTPAddress
							}
						}
					}
				}
			} else if err != nil && !errors.Is(err, ErrAMNotRunning) {
				t.Logf("AM REST: %v", err)
			}
		}
		select {
		case <-ctx.Done():
			t.Fatalf("job %s did not finish: %v", res.AppID, ctx.Err())
		case <-tick.C:
		}
	}
	if !sawJob {
		t.Fatalf("never saw job %s through the AM REST API while it ran", jobID)
	}
	if len(attemptNodes) == 0 {
		t.Fatalf("saw no task attempt with a node through the AM REST API")
	}
	nmHTTP := map[string]bool{}
	for _, nm := range c.NodeManagers {
		nmHTTP[nm.HTTP] = true
	}
	for id, node := range attemptNodes {
		if !nmHTTP[node] {
			t.Errorf("attempt %s on %q, not a harness NodeManager %v", id, node, nmHTTP)
		}
	}
	t.Logf("watched %s: %d task attempts seen with nodes", res.AppID, len(attemptNodes))

	var app struct {
		App struct {
			State       string `json:"state"`
			FinalStatus string `json:"finalStatus"`
		} `json:"app"`
	}
	if err := c.RMGetJSON(ctx, "/ws/v1/cluster/apps/"+res.AppID, &app); err != nil {
		t.Fatal(err)
	}
	if app.App.State != "FINISHED" || app.App.FinalStatus != "SUCCEEDED" {
		t.Fatalf("RM says app %s state %s final %s", res.AppID, app.App.State, app.App.FinalStatus)
	}
	client, err := c.HDFSClient("rmsidecar")
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	out, err := client.ReadFile(base + "/out/part-r-00000")
	if err != nil {
		t.Fatalf("read wordcount output: %v", err)
	}
	if !strings.Contains(string(out), "yarn\t") || !strings.Contains(string(out), "sidecar\t") {
		t.Fatalf("wordcount output lacks expected words:\n%.500s", out)
	}
}

func TestNameNodeRestartKeepsAddress(t *testing.T) {
	c := loadCluster(t)
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	start := time.Now()
	if err := c.RestartNameNode(ctx, 2*time.Second); err != nil {
		t.Fatal(err)
	}
	t.Logf("namenode restarted in %s", time.Since(start).Round(100*time.Millisecond))
	var st struct {
		FileStatus struct {
			Type string `json:"type"`
		} `json:"FileStatus"`
	}
	if err := c.getJSON(ctx, c.WebHDFS+"/?op=GETFILESTATUS&user.name=rmsidecar", &st); err != nil {
		t.Fatal(err)
	}
	if st.FileStatus.Type != "DIRECTORY" {
		t.Fatalf("root status after restart: %+v", st)
	}
	client, err := c.HDFSClient("rmsidecar")
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	if _, err := client.Stat("/"); err != nil {
		t.Fatalf("native client after restart: %v", err)
	}
}

func TestKafkaRestartKeepsAddress(t *testing.T) {
	c := loadCluster(t)
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	start := time.Now()
	if err := c.RestartKafka(ctx, time.Second); err != nil {
		t.Fatal(err)
	}
	t.Logf("kafka restarted in %s", time.Since(start).Round(100*time.Millisecond))
	kafkaRoundTrip(ctx, t, c.KafkaBootstrap, 10)
}

func tail(s string, lines int) string {
	parts := strings.Split(s, "\n")
	if len(parts) > lines {
		parts = parts[len(parts)-lines:]
	}
	return strings.Join(parts, "\n")
}

// allReplicated reports whether every block lists n distinct hosts.
func allReplicated(locs []BlockLocation, n int) bool {
	for _, l := range locs {
		hosts := slices.Clone(l.Hosts)
		sort.Strings(hosts)
		if len(slices.Compact(hosts)) != n {
			return false
		}
	}
	return len(locs) > 0
}
