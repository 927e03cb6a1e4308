//go:build cluster

package clustertest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"os"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/IBM/sarama"
	"github.com/colinmarc/hdfs/v2"

	"github.com/rmsidecar/rmsidecar/actuate"
	"github.com/rmsidecar/rmsidecar/events"
	"github.com/rmsidecar/rmsidecar/hdfslocality"
	"github.com/rmsidecar/rmsidecar/policy"
	"github.com/rmsidecar/rmsidecar/yarnclient"
)

// writeHDFSFile writes size bytes to path on the real HDFS (1 MiB blocks:
// a 3 MiB file has 3 blocks, each on 3 datanodes).
func writeHDFSFile(t *testing.T, c *Cluster, path string, size int) {
	t.Helper()
	fs, err := c.HDFSClient("rmsidecar")
	if err != nil {
		t.Fatal(err)
	}
	defer fs.Close()
	if err := fs.MkdirAll(path[:strings.LastIndex(path, "/")], 0o755); err != nil {
		t.Fatalf("mkdir for %s: %v", path, err)
	}
	w, err := fs.Create(path)
	if err != nil {
		t.Fatalf("create %s: %v", path, err)
	}
	buf := make([]byte, 64<<10)
	for i := range buf {
		buf[i] = byte('a' + i%26)
	}
	for n := 0; n < size; n += len(buf) {
		if _, err := w.Write(buf[:min(len(buf), size-n)]); err != nil {
			t.Fatalf("write %s: %v", path, err)
		}
	}
	// Close fails with ErrReplicating while the last block has fewer
	// replicas than required; it is safe to call again.
	eventually(t, time.Minute, 200*time.Millisecond, "close "+path, func() (bool, string) {
		err := w.Close()
		if errors.Is(err, hdfs.ErrReplicating) {
			return false, err.Error()
		}
		if err != nil {
			t.Fatalf("close %s: %v", path, err)
		}
		return true, ""
	})
}

// checkLocality asserts that the resolver's answer for dir names, block by
// block, the datanode hosts (and racks) the NameNode reports for each file.
func checkLocality(ctx context.Context, t *testing.T, c *Cluster, res hdfslocality.Result, files []string) {
	t.Helper()
	if res.Err != nil {
		t.Fatalf("resolve %s: %v", res.Path, res.Err)
	}
	rackOf := map[string]string{}
	for _, d := range c.DataNodes {
		rackOf[d.Host] = d.Rack
	}
	var got []string
	for _, f := range res.Files {
		got = append(got, f.Path)
	}
	sort.Strings(got)
	if !slices.Equal(got, files) {
		t.Fatalf("resolved files %v, want %v", got, files)
	}
	for _, f := range res.Files {
		want, err := c.BlockLocations(ctx, f.Path)
		if err != nil {
			t.Fatal(err)
		}
		if len(f.Blocks) != len(want) || len(want) != 3 {
			t.Fatalf("%s: %d blocks, NameNode says %d (want 3)", f.Path, len(f.Blocks), len(want))
		}
		for i, b := range f.Blocks {
			gotHosts, wantHosts := slices.Sorted(slices.Values(b.Hosts)), slices.Sorted(slices.Values(want[i].Hosts))
			if !slices.Equal(gotHosts, wantHosts) || len(gotHosts) != 3 {
				t.Errorf("%s block %d: hosts %v, NameNode %v (want 3 distinct datanodes)", f.Path, i, gotHosts, wantHosts)
			}
			for j, h := range b.Hosts {
				if rackOf[h] == "" {
					t.Errorf("%s block %d: host %q is not a datanode of the harness", f.Path, i, h)
				} else if b.Racks[j] != rackOf[h] {
					t.Errorf("%s block %d: host %s on rack %q, harness says %q", f.Path, i, h, b.Racks[j], rackOf[h])
				}
			}
		}
	}
}

// TestLocalityOfFilesOnRealHDFS: files written with colinmarc/hdfs; the
// resolver built from the harness conf dir names their blocks' real
// datanode hosts and racks.
func TestLocalityOfFilesOnRealHDFS(t *testing.T) {
	c := loadCluster(t)
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	dir := "/user/rmsidecar/" + uniq("loc-")
	files := []string{dir + "/part-0", dir + "/part-1"}
	for _, f := range files {
		writeHDFSFile(t, c, f, 3<<20)
	}
	r, err := hdfslocality.NewFromConfDir(c.ConfDir, hdfslocality.Options{User: "rmsidecar"})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	res, err := r.Resolve(ctx, []string{dir})
	if err != nil {
		t.Fatal(err)
	}
	checkLocality(ctx, t, c, res[0], files)
	hb := res[0].HostBytes()
	if len(hb) != 3 {
		t.Errorf("host bytes %v: want all 3 datanodes (replication 3)", hb)
	}
	for h, n := range hb {
		if n != 6<<20 {
			t.Errorf("host %s holds %d bytes, want every block (6 MiB)", h, n)
		}
	}
}

// TestLocalityRecoversAfterNameNodeRestart: while the NameNode is down a
// lookup fails with an error (no invented answer); once it is back, the
// same resolver answers again, for old and new files.
func TestLocalityRecoversAfterNameNodeRestart(t *testing.T) {
	c := loadCluster(t)
	ctx, cancel := context.WithTimeout(t.Context(), 6*time.Minute)
	defer cancel()
	dir := "/user/rmsidecar/" + uniq("nnr-")
	writeHDFSFile(t, c, dir+"/a", 3<<20)
	r, err := hdfslocality.NewFromConfDir(c.ConfDir, hdfslocality.Options{User: "rmsidecar",
		TTL: time.Second, RetryBackoff: 500 * time.Millisecond, HTTPTimeout: 5 * time.Second, DialTimeout: 3 * time.Second,
		FetchTimeout: 20 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	res, err := r.Resolve(ctx, []string{dir})
	if err != nil {
		t.Fatal(err)
	}
	checkLocality(ctx, t, c, res[0], []string{dir + "/a"})

	if _, err := c.Control(ctx, "stop-namenode"); err != nil {
		t.Fatal(err)
	}
	restarted := false
	defer func() {
		if !restarted {
			_, _ = c.Control(context.Background(), "start-namenode")
		}
	}()
	time.Sleep(1500 * time.Millisecond) // past the 1 s TTL: the next lookup must ask the NameNode
	down, err := r.Resolve(ctx, []string{dir, dir + "-never-written"})
	if err != nil {
		t.Fatal(err)
	}
	if down[1].Err == nil {
		t.Errorf("lookup of an uncached path with the NameNode down: no error, %d files", len(down[1].Files))
	}
	if down[0].Err == nil && !down[0].Stale {
		t.Errorf("cached path with the NameNode down: fresh answer without error")
	}
	t.Logf("NameNode down: cached path stale=%v err=%v; uncached path err=%v", down[0].Stale, down[0].Err, down[1].Err)

	if _, err := c.Control(ctx, "start-namenode"); err != nil {
		t.Fatal(err)
	}
	restarted = true
	// Let HDFS leave safe mode and take writes again, then check a file
	// written after the restart as well.
	eventually(t, 3*time.Minute, 2*time.Second, "write after NameNode restart", func() (bool, string) {
		fs, err := c.HDFSClient("rmsidecar")
		if err != nil {
			return false, err.Error()
		}
		defer fs.Close()
		if err := fs.MkdirAll(dir, 0o755); err != nil {
			return false, err.Error()
		}
		return true, ""
	})
	writeHDFSFile(t, c, dir+"/b", 3<<20)
	eventually(t, 2*time.Minute, time.Second, "locality after NameNode restart", func() (bool, string) {
		res, err := r.Resolve(ctx, []string{dir})
		if err != nil {
			return false, err.Error()
		}
		if res[0].Err != nil || res[0].Stale || len(res[0].Files) != 2 {
			return false, fmt.Sprintf("err=%v stale=%v files=%d", res[0].Err, res[0].Stale, len(res[0].Files))
		}
		return true, ""
	})
	res, err = r.Resolve(ctx, []string{dir})
	if err != nil {
		t.Fatal(err)
	}
	checkLocality(ctx, t, c, res[0], []string{dir + "/a", dir + "/b"})
}

// TestHintsChangeTheRealRM: yarnclient reads the real nodes and apps, and
// each hint the stock RM can take, delivered by the rm actuator through
// yarnclient.HintWriter, changes what the RM reports.
func TestHintsChangeTheRealRM(t *testing.T) {
	c := loadCluster(t)
	ctx, cancel := context.WithTimeout(t.Context(), 8*time.Minute)
	defer cancel()
	rc := rmClient(t, c)
	act := actuate.RM{W: yarnclient.NewHintWriter(rc)}

	// Reads: the two NodeManagers with their configured capacity.
	nodes, err := rc.Nodes(ctx, yarnclient.NodesFilter{States: []string{yarnclient.NodeRunning}})
	if err != nil {
		t.Fatal(err)
	}
	var ids, want []string
	for _, n := range nodes {
		ids = append(ids, n.ID)
		if capa := n.Capacity(); capa.MemoryMB != 4096 || capa.VCores != 4 {
			t.Errorf("node %s capacity %+v, harness gives 4096 MB / 4 vcores", n.ID, capa)
		}
	}
	for _, nm := range c.NodeManagers {
		want = append(want, nm.ID)
	}
	sort.Strings(ids)
	sort.Strings(want)
	if !slices.Equal(ids, want) {
		t.Fatalf("RUNNING nodes %v, want %v", ids, want)
	}
	node := ids[0]

	// node-capacity -> POST nodes/{id}/resource; reading the node back
	// shows the new capacity. Restored afterwards.
	t.Cleanup(func() {
		if err := act.Deliver(context.Background(), policy.Hint{ID: "restore", Kind: policy.KindNodeCapacity, Node: node, VCores: 4, MemoryMB: 4096}); err != nil {
			t.Errorf("restore capacity of %s: %v", node, err)
		}
	})
	if err := act.Deliver(ctx, policy.Hint{ID: "cap", Kind: policy.KindNodeCapacity, Node: node, VCores: 3, MemoryMB: 3072}); err != nil {
		t.Fatal(err)
	}
	eventually(t, 30*time.Second, 500*time.Millisecond, "new capacity of "+node, func() (bool, string) {
		n, err := rc.Node(ctx, node)
		if err != nil {
			return false, err.Error()
		}
		capa := n.Capacity()
		return capa.VCores == 3 && capa.MemoryMB == 3072, fmt.Sprintf("%+v", capa)
	})

	// node-class -> add-node-labels (once) + replace-node-to-labels; the
	// node reads back with the label. Cleared afterwards.
	t.Cleanup(func() {
		if err := act.Deliver(context.Background(), policy.Hint{ID: "unlabel", Kind: policy.KindNodeClass, Node: node}); err != nil {
			t.Errorf("clear label of %s: %v", node, err)
		}
	})
	if err := act.Deliver(ctx, policy.Hint{ID: "class", Kind: policy.KindNodeClass, Node: node, MapSlow: true}); err != nil {
		t.Fatal(err)
	}
	labels, err := rc.ClusterNodeLabels(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range []string{yarnclient.LabelMapSlow, yarnclient.LabelReduceSlow, yarnclient.LabelMapReduceSlow} {
		if !slices.ContainsFunc(labels, func(x yarnclient.NodeLabel) bool { return x.Name == l && !x.Exclusivity }) {
			t.Errorf("cluster labels %+v lack non-exclusive %s", labels, l)
		}
	}
	n, err := rc.Node(ctx, node)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal([]string(n.NodeLabels), []string{yarnclient.LabelMapSlow}) {
		t.Errorf("node %s labels %v, want [%s]", node, n.NodeLabels, yarnclient.LabelMapSlow)
	}
	if err := act.Deliver(ctx, policy.Hint{ID: "unclass", Kind: policy.KindNodeClass, Node: node}); err != nil {
		t.Fatal(err)
	}
	if n, err = rc.Node(ctx, node); err != nil || len(n.NodeLabels) != 0 {
		t.Errorf("node %s labels after clearing: %v (err %v)", node, n.NodeLabels, err)
	}
	if err := act.Deliver(ctx, policy.Hint{ID: "cap-back", Kind: policy.KindNodeCapacity, Node: node, VCores: 4, MemoryMB: 4096}); err != nil {
		t.Fatal(err)
	}

	// A running app: priority and kill hints.
	// One ~30 MB file read by one map (split.minsize above the file size,
	// the harness's blocks are 1 MiB): a map that runs for seconds, so a
	// kill hint lands while it works. Maps of 1 MiB splits finish within
	// a second of starting on an idle machine and often beat the signal.
	base := "/user/rmsidecar/" + uniq("hints-")
	sub, err := c.SubmitWordCount(ctx, "--generate-files", "1", "--generate-lines", "600000",
		"-D", "mapreduce.input.fileinputformat.split.minsize=1073741824", "--no-wait", base+"/in", base+"/out")
	if err != nil || sub.AppID == "" {
		t.Fatalf("submit: %v\n%s", err, tail(sub.Output, 30))
	}
	defer killApp(t, rc, sub.AppID)
	waitRunning(ctx, t, rc, sub.AppID)
	apps, err := rc.Apps(ctx, yarnclient.AppsFilter{States: []string{yarnclient.AppRunning}})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(apps, func(a yarnclient.App) bool { return a.ID == sub.AppID && a.IsMapReduce() }) {
		t.Errorf("running apps %v lack MapReduce app %s", apps, sub.AppID)
	}

	// priority -> PUT apps/{id}/priority.
	if err := act.Deliver(ctx, policy.Hint{ID: "prio", Kind: policy.KindPriority, App: sub.AppID, Priority: 7}); err != nil {
		t.Fatal(err)
	}
	if p, err := rc.AppPriority(ctx, sub.AppID); err != nil || p != 7 {
		t.Errorf("priority of %s = %d (err %v), want 7", sub.AppID, p, err)
	}

	// kill -> POST containers/{id}/signal/GRACEFUL_SHUTDOWN on a task
	// container (not the AM's, ..._000001) whose attempt the AM reports
	// running: the attempt ends FAILED or KILLED and the AM runs the task
	// again. A task can still finish before the signal lands; such a
	// container is logged and the next one tried.
	jobID := "job_" + strings.TrimPrefix(sub.AppID, "application_")
	tried := map[string]bool{}
	attemptIn := func(container string) (string, string, error) {
		tasks, err := rc.MRTasks(ctx, sub.AppID, jobID, "")
		if err != nil {
			return "", "", err
		}
		for _, tk := range tasks {
			atts, err := rc.MRTaskAttempts(ctx, sub.AppID, jobID, tk.ID)
			if err != nil {
				return "", "", err
			}
			for _, at := range atts {
				if at.AssignedContainerID == container {
					return at.ID, at.State, nil
				}
			}
		}
		return "", "", nil
	}
	killed := false
	deadline := time.Now().Add(4 * time.Minute)
	for !killed && time.Now().Before(deadline) {
		if a, err := rc.App(ctx, sub.AppID); err == nil && a.Finished() {
			break
		}
		atts, err := rc.AppAttempts(ctx, sub.AppID)
		if err != nil || len(atts) == 0 {
			time.Sleep(300 * time.Millisecond)
			continue
		}
		cs, err := rc.Containers(ctx, sub.AppID, atts[len(atts)-1].AppAttemptID)
		if err != nil {
			t.Fatal(err)
		}
		// Prefer a reduce (MR asks reduces at priority 10, maps at 20): it
		// runs from the first map's end to the last one's and beyond.
		target, reduce := "", false
		for _, ct := range cs {
			if !strings.HasSuffix(ct.ContainerID, "_000001") && ct.ContainerState == "RUNNING" && !tried[ct.ContainerID] && !reduce {
				target, reduce = ct.ContainerID, ct.Priority == 10
			}
		}
		if target == "" {
			time.Sleep(300 * time.Millisecond)
			continue
		}
		tried[target] = true
		// The NM ignores a signal for a container it has not launched yet
		// (the RM reports RUNNING earlier): wait until the AM reports the
		// task attempt in it RUNNING, i.e. its JVM is up.
		eventually(t, time.Minute, 200*time.Millisecond, "the attempt in "+target+" to run", func() (bool, string) {
			_, state, err := attemptIn(target)
			if err != nil {
				return false, err.Error()
			}
			return state != "" && state != "NEW" && state != "STARTING", state
		})
		if err := act.Deliver(ctx, policy.Hint{ID: "kill", Kind: policy.KindKill, App: sub.AppID, Attempt: "?", Container: target}); err != nil {
			t.Fatal(err)
		}
		eventually(t, 3*time.Minute, time.Second, "the attempt in "+target+" to end", func() (bool, string) {
			id, state, err := attemptIn(target)
			if err != nil {
				if a, aerr := rc.App(ctx, sub.AppID); aerr == nil && a.Finished() {
					t.Fatalf("%s finished before the attempt in %s was seen to end (AM gone: %v)", sub.AppID, target, err)
				}
				return false, err.Error()
			}
			switch state {
			case "KILLED", "FAILED":
				t.Logf("%s in %s ended %s after the kill hint", id, target, state)
				killed = true
				return true, ""
			case "SUCCEEDED":
				t.Logf("%s in %s SUCCEEDED: it finished before the signal reached it; trying another container", id, target)
				return true, ""
			}
			return false, id + " " + state
		})
	}
	if !killed {
		t.Fatalf("no task attempt ended FAILED or KILLED after kill hints on %d running containers of %s", len(tried), sub.AppID)
	}
}

// switchableSource is the bridge's RM: the real one, or (while down) a
// client of an address nobody listens on, so calls go through the real
// retry path and fail.
type switchableSource struct {
	mu   sync.Mutex
	up   yarnclient.Source
	dead yarnclient.Source
	down bool
}

func (s *switchableSource) cur() yarnclient.Source {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.down {
		return s.dead
	}
	return s.up
}

func (s *switchableSource) setDown(d bool) { s.mu.Lock(); s.down = d; s.mu.Unlock() }

func (s *switchableSource) Nodes(ctx context.Context, f yarnclient.NodesFilter) ([]yarnclient.Node, error) {
	return s.cur().Nodes(ctx, f)
}
func (s *switchableSource) Apps(ctx context.Context, f yarnclient.AppsFilter) ([]yarnclient.App, error) {
	return s.cur().Apps(ctx, f)
}
func (s *switchableSource) App(ctx context.Context, id string) (*yarnclient.App, error) {
	return s.cur().App(ctx, id)
}
func (s *switchableSource) AppAttempts(ctx context.Context, id string) ([]yarnclient.AppAttempt, error) {
	return s.cur().AppAttempts(ctx, id)
}
func (s *switchableSource) Containers(ctx context.Context, id, att string) ([]yarnclient.Container, error) {
	return s.cur().Containers(ctx, id, att)
}
func (s *switchableSource) MRJobs(ctx context.Context, id string) ([]yarnclient.MRJob, error) {
	return s.cur().MRJobs(ctx, id)
}
func (s *switchableSource) MRTasks(ctx context.Context, id, job, typ string) ([]yarnclient.MRTask, error) {
	return s.cur().MRTasks(ctx, id, job, typ)
}
func (s *switchableSource) MRTaskAttempts(ctx context.Context, id, job, task string) ([]yarnclient.MRTaskAttempt, error) {
	return s.cur().MRTaskAttempts(ctx, id, job, task)
}
func (s *switchableSource) MRJobConf(ctx context.Context, id, job string) (*yarnclient.JobConf, error) {
	return s.cur().MRJobConf(ctx, id, job)
}

// recordingPublisher keeps what it publishes; it fails while failing is set.
type recordingPublisher struct {
	mu      sync.Mutex
	failing bool
	evs     []events.Event
}

func (p *recordingPublisher) Publish(_ context.Context, _ string, value []byte) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.failing {
		return errors.New("publisher down")
	}
	ev, err := events.Decode(value)
	if err != nil {
		return err
	}
	p.evs = append(p.evs, ev)
	return nil
}

func (p *recordingPublisher) snapshot() []events.Event {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.evs)
}

// TestBridgeLosesNothingWhileRMUnreachable: with the RM unreachable a poll
// retries, then fails with an error naming the call and the attempts; a
// job submitted meanwhile is reported once the RM is back. With the
// publisher down the events wait, in order, for the next poll.
func TestBridgeLosesNothingWhileRMUnreachable(t *testing.T) {
	c := loadCluster(t)
	ctx, cancel := context.WithTimeout(t.Context(), 8*time.Minute)
	defer cancel()
	rc := rmClient(t, c)
	deadAddr := freePort(t)
	dead, err := yarnclient.New(yarnclient.Config{RMURLs: []string{"http://" + deadAddr}, User: "rmsidecar",
		Timeout: 2 * time.Second, MaxAttempts: 3, BaseBackoff: 100 * time.Millisecond, MaxBackoff: 500 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	src := &switchableSource{up: rc, dead: dead}
	pub := &recordingPublisher{failing: true}
	b, err := yarnclient.NewBridge(yarnclient.BridgeConfig{Source: src, Publisher: pub})
	if err != nil {
		t.Fatal(err)
	}

	// Publisher down: the first poll's events are kept.
	if _, err := b.Poll(ctx); err == nil || !strings.Contains(err.Error(), "publisher down") {
		t.Fatalf("poll with the publisher down: err = %v", err)
	}
	backlog := b.Pending()
	if backlog < 2*len(c.NodeManagers) {
		t.Fatalf("backlog %d, want at least node.registered + node.heartbeat per node", backlog)
	}

	// RM down: the poll fails after its retries with a clear error.
	src.setDown(true)
	start := time.Now()
	_, err = b.Poll(ctx)
	if err == nil || !strings.Contains(err.Error(), "giving up after 3 attempts") || !strings.Contains(err.Error(), deadAddr) {
		t.Fatalf("poll with the RM unreachable: err = %v; want the call, the address and the attempts", err)
	}
	t.Logf("RM unreachable: poll failed after %v: %v", time.Since(start).Round(time.Millisecond), err)
	if b.Pending() != backlog {
		t.Fatalf("backlog %d after the RM failure, want %d kept", b.Pending(), backlog)
	}

	// A job submitted while the RM is unreachable for the bridge.
	base := "/user/rmsidecar/" + uniq("outage-")
	sub, err := c.SubmitWordCount(ctx, "--generate-files", "1", "--generate-lines", "20000", "--no-wait", base+"/in", base+"/out")
	if err != nil || sub.AppID == "" {
		t.Fatalf("submit: %v\n%s", err, tail(sub.Output, 30))
	}
	defer killApp(t, rc, sub.AppID)
	waitRunning(ctx, t, rc, sub.AppID)
	if _, err := b.Poll(ctx); err == nil {
		t.Fatal("poll succeeded with the RM unreachable")
	}

	// Both back: the backlog goes out first, in order, then the job.
	src.setDown(false)
	pub.mu.Lock()
	pub.failing = false
	pub.mu.Unlock()
	eventually(t, 3*time.Minute, time.Second, "app.submitted of "+sub.AppID, func() (bool, string) {
		if _, err := b.Poll(ctx); err != nil {
			return false, err.Error()
		}
		for _, ev := range pub.snapshot() {
			if ev.Type == events.AppSubmitted && ev.App == sub.AppID {
				return true, ""
			}
		}
		return false, fmt.Sprintf("%d events", len(pub.snapshot()))
	})
	evs := pub.snapshot()
	for i := range backlog {
		if evs[i].Type != events.NodeRegistered && evs[i].Type != events.NodeHeartbeat {
			t.Errorf("event %d = %s, want the kept node events first", i, evs[i].Type)
		}
	}
	for i := 1; i < len(evs); i++ {
		if evs[i].TS < evs[i-1].TS {
			t.Errorf("event %d (%s) at %d before event %d at %d: out of order", i, evs[i].Type, evs[i].TS, i-1, evs[i-1].TS)
		}
	}
}

// TestBridgeAndRunOnRealWordCount: a real wordcount runs while `rmsidecar
// bridge` publishes its events to the real Kafka broker; `rmsidecar run`
// consumes them from that broker and emits hints that name the job's app
// (actuators log, kafka and rm).
func TestBridgeAndRunOnRealWordCount(t *testing.T) {
	c := loadCluster(t)
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Minute)
	defer cancel()
	evTopic, nodeTopic, hintsTopic := uniq("it.events."), uniq("it.nodes."), uniq("it.hints.")
	httpAddr := freePort(t)
	cfg := sidecarConfig(t, c, httpAddr, uniq("it-group-"), evTopic, nodeTopic, hintsTopic,
		"  stack: dhsa-pi\n  dhsa-pi:\n    scope: app", true)
	run := startRMSidecar(t, "run", "run", "--config", cfg)
	bridgeHTTP := freePort(t)
	bridge := startRMSidecar(t, "bridge", "bridge", "--rm", c.RMWeb, "--kafka", c.KafkaBootstrap,
		"--topic", evTopic, "--node-topic", nodeTopic, "--interval", "2s", "--log-format", "json", "--http", bridgeHTTP, "--hdfs-conf", c.ConfDir)
	// The bridge's own endpoints reflect the real RM: ready once a poll reached it.
	eventually(t, time.Minute, 500*time.Millisecond, "bridge /readyz", func() (bool, string) {
		resp, err := http.Get("http://" + bridgeHTTP + "/readyz")
		if err != nil {
			return false, err.Error()
		}
		resp.Body.Close()
		return resp.StatusCode == 200, resp.Status
	})
	if v, err := metricSum(ctx, bridgeHTTP, "rmsidecar_bridge_rm_up"); err != nil || v != 1 {
		t.Errorf("bridge rmsidecar_bridge_rm_up = %v (%v), want 1", v, err)
	}

	base := "/user/rmsidecar/" + uniq("e2e-")
	sub, err := c.SubmitWordCount(ctx, "--generate-files", "2", "--generate-lines", "20000", "--no-wait", base+"/in", base+"/out")
	if err != nil || sub.AppID == "" {
		t.Fatalf("submit: %v\n%s", err, tail(sub.Output, 30))
	}

	cons, err := sarama.NewConsumer([]string{c.KafkaBootstrap}, kafkaConfig())
	if err != nil {
		t.Fatal(err)
	}
	defer cons.Close()
	var hintPC sarama.PartitionConsumer
	eventually(t, 2*time.Minute, time.Second, "hints topic "+hintsTopic, func() (bool, string) {
		pc, err := cons.ConsumePartition(hintsTopic, 0, sarama.OffsetOldest)
		if err != nil {
			return false, err.Error()
		}
		hintPC = pc
		return true, ""
	})
	defer hintPC.Close()
	var found map[string]any
	deadline := time.After(5 * time.Minute)
	alive := time.NewTicker(time.Second)
	defer alive.Stop()
	for found == nil {
		select {
		case <-alive.C:
		case m := <-hintPC.Messages():
			var h map[string]any
			if err := json.Unmarshal(m.Value, &h); err != nil {
				t.Fatalf("hint %q: %v", m.Value, err)
			}
			if h["app"] == sub.AppID {
				found = h
			}
		case <-deadline:
			t.Fatalf("no hint naming %s on %s within 5 minutes", sub.AppID, hintsTopic)
		case <-ctx.Done():
			t.Fatal(ctx.Err())
		}
		if run.exited() || bridge.exited() {
			t.Fatalf("a process exited early: run %v, bridge %v", run.exited(), bridge.exited())
		}
	}
	t.Logf("hint for %s: kind=%v policy=%v reason=%v", sub.AppID, found["kind"], found["policy"], found["reason"])

	st, err := c.WaitApp(ctx, sub.AppID, time.Second)
	if err != nil || st.FinalStatus != "SUCCEEDED" {
		t.Fatalf("wordcount %s: %+v, %v", sub.AppID, st, err)
	}
	// The bridge resolved the job's input through the real NameNode: each map's task.pending
	// carried its split with the block hosts, and the sidecar's model holds them.
	checkSplitHosts(ctx, t, c, httpAddr, sub.AppID, base+"/in", nil)
	if v, err := metricSum(ctx, bridgeHTTP, `rmsidecar_bridge_splits_total{result="ok"}`); err != nil || v < 1 {
		t.Errorf("bridge split lookups ok = %v (%v), want >= 1", v, err)
	}
	// The bridge saw the job through to its end: app.finished reaches the
	// sidecar, and the bridge logged each poll's cost.
	// The wordcount has 2 maps and 1 reduce: the job, its tasks, their
	// containers and finishes went through the bridge, Kafka and the
	// sidecar. Not necessarily every finish: a task that ends between the
	// last poll of a running app and its end is not seen (the AM is gone,
	// and the bridge does not invent), typically the reduce.
	want := map[string]float64{"app.submitted": 1, "app.finished": 1, "task.pending": 3, "container.allocated": 2, "task.finished": 1}
	eventually(t, time.Minute, time.Second, "the job's events consumed", func() (bool, string) {
		var short []string
		for _, typ := range slices.Sorted(maps.Keys(want)) {
			v, err := metricSum(ctx, httpAddr, `rmsidecar_events_consumed_total{type="`+typ+`"}`)
			if err != nil {
				return false, err.Error()
			}
			if v < want[typ] {
				short = append(short, fmt.Sprintf("%s %v < %v", typ, v, want[typ]))
			}
		}
		return len(short) == 0, strings.Join(short, ", ")
	})
	// The rm actuator (built by run from rm.*) was on: ratio hints are for
	// the AM side, it passes them by without an error.
	if v, err := metricSum(ctx, httpAddr, "rmsidecar_actuation_errors_total"); err != nil || v != 0 {
		t.Errorf("actuation errors %v (err %v), want 0", v, err)
	}
	reportBridgeCost(t, bridge)
	if err := bridge.stop(30 * time.Second); err != nil {
		t.Errorf("bridge: %v", err)
	}
	if err := run.stop(60 * time.Second); err != nil {
		t.Errorf("run: %v", err)
	}
}

// reportBridgeCost prints the REST calls and latency per poll the bridge
// logged (the figures docs/real-cluster.md quotes).
func reportBridgeCost(t *testing.T, p *proc) {
	t.Helper()
	var calls, ms []float64
	for _, line := range p.logLines(`"bridge: poll"`) {
		var rec struct {
			Calls float64 `json:"rest_calls"`
			MS    float64 `json:"poll_ms"`
		}
		if json.Unmarshal([]byte(line), &rec) == nil {
			calls, ms = append(calls, rec.Calls), append(ms, rec.MS)
		}
	}
	if len(calls) == 0 {
		t.Errorf("bridge logged no polls")
		return
	}
	sorted := slices.Sorted(slices.Values(ms))
	t.Logf("bridge: %d polls; REST calls per poll min %v max %v; poll latency p50 %.0f ms p90 %.0f ms max %.0f ms",
		len(calls), slices.Min(calls), slices.Max(calls), sorted[len(sorted)/2], sorted[len(sorted)*9/10], sorted[len(sorted)-1])
}

// TestRunResumesAfterKafkaRestart: the sidecar consumes a batch and commits
// it; the broker restarts under it; it resumes from its committed position:
// the second batch is consumed, and nothing from the first one again.
func TestRunResumesAfterKafkaRestart(t *testing.T) {
	c := loadCluster(t)
	ctx, cancel := context.WithTimeout(t.Context(), 6*time.Minute)
	defer cancel()
	raw, err := os.ReadFile(repoRoot(t) + "/integration/testdata/sample-2jobs.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	var evs []events.Event
	rd := events.NewReader(strings.NewReader(string(raw)))
	for {
		ev, err := rd.Next()
		if err != nil {
			break
		}
		evs = append(evs, ev)
	}
	if len(evs) < 20 {
		t.Fatalf("sample log has %d events", len(evs))
	}
	half := len(evs) / 2
	topic, group := uniq("it.resume."), uniq("it-resume-")
	httpAddr := freePort(t)
	cfg := sidecarConfig(t, c, httpAddr, group, topic, topic+".nodes", topic+".hints", "  stack: yarn", false)

	produce := func(batch []events.Event) {
		t.Helper()
		prod, err := sarama.NewSyncProducer([]string{c.KafkaBootstrap}, kafkaConfig())
		if err != nil {
			t.Fatal(err)
		}
		defer prod.Close()
		var msgs []*sarama.ProducerMessage
		for i := range batch {
			v, err := events.Encode(&batch[i])
			if err != nil {
				t.Fatal(err)
			}
			msgs = append(msgs, &sarama.ProducerMessage{Topic: topic, Key: sarama.StringEncoder(batch[i].Key()), Value: sarama.ByteEncoder(v)})
		}
		if err := prod.SendMessages(msgs); err != nil {
			t.Fatal(err)
		}
	}
	waitConsumed := func(want int) {
		t.Helper()
		eventually(t, 3*time.Minute, time.Second, fmt.Sprintf("%d events consumed and committed", want), func() (bool, string) {
			off, err := committedOffset(c.KafkaBootstrap, group, topic)
			if err != nil {
				return false, err.Error()
			}
			n, err := metricSum(ctx, httpAddr, "rmsidecar_events_consumed_total")
			if err != nil {
				return false, err.Error()
			}
			if int(n) > want {
				t.Fatalf("consumed %v events, only %d were produced: re-read after the restart", n, want)
			}
			return off == int64(want) && int(n) == want, fmt.Sprintf("committed %d, consumed %v", off, n)
		})
	}

	produce(evs[:half])
	run := startRMSidecar(t, "run", "run", "--config", cfg)
	waitConsumed(half)

	t0 := time.Now()
	if err := c.RestartKafka(ctx, 2*time.Second); err != nil {
		t.Fatal(err)
	}
	t.Logf("Kafka restarted in %v", time.Since(t0).Round(100*time.Millisecond))
	if run.exited() {
		t.Fatalf("run exited during the broker restart:\n%s", tail(run.log(), 30))
	}
	produce(evs[half:])
	waitConsumed(len(evs))
	if err := run.stop(60 * time.Second); err != nil {
		t.Errorf("run: %v", err)
	}
}
