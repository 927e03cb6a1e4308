//go:build cluster

package clustertest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rmsidecar/rmsidecar/yarnclient"
)

// The Hadoop plug-ins (yarn-plugin/) in the harness: HintAllocationProcessor in the RM's
// ApplicationMasterService chain and HintSpeculator as every MR AM's speculator, both calling
// the sidecar at cluster.json's sidecar_http. These tests start the real `rmsidecar run` there
// (real Kafka), run sleep jobs with stragglers on the real MiniMRYarnCluster and read what the
// AM did through its REST API.

// pluginCluster skips when the harness runs without the plug-ins.
func pluginCluster(t *testing.T) *Cluster {
	c := loadCluster(t)
	if c.SidecarHTTP == "" {
		t.Skip("the harness was started without yarn-plugin/target/rmsidecar-yarn-plugin.jar (make yarn-plugin)")
	}
	return c
}

// startPluginSidecar runs `rmsidecar run` on the plug-ins' port, with operator hints on.
func startPluginSidecar(t *testing.T, c *Cluster, name, stackYAML string) (p *proc, evTopic, nodeTopic string) {
	t.Helper()
	evTopic, nodeTopic = uniq("it.plug.events."), uniq("it.plug.nodes.")
	cfg := sidecarConfig(t, c, c.SidecarHTTP, uniq("it-plug-"), evTopic, nodeTopic,
		uniq("it.plug.hints."), stackYAML, false)
	b, err := os.ReadFile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	y := strings.Replace(string(b), "http:\n", "http:\n  operator_hints: true\n", 1)
	y = strings.Replace(y, "enabled: [log, kafka]", "enabled: [log, kafka, http]", 1)
	if err := os.WriteFile(cfg, []byte(y), 0o600); err != nil {
		t.Fatal(err)
	}
	p = startRMSidecar(t, name, "run", "--config", cfg)
	eventually(t, 2*time.Minute, 500*time.Millisecond, name+" HTTP up", func() (bool, string) {
		if p.exited() {
			t.Fatalf("%s exited before its HTTP server was up", name) // its log follows
		}
		resp, err := http.Get("http://" + c.SidecarHTTP + "/healthz")
		if err != nil {
			return false, err.Error()
		}
		resp.Body.Close()
		return resp.StatusCode == 200, resp.Status
	})
	return p, evTopic, nodeTopic
}

// postHints sends operator hints (hints v1 objects) to the sidecar.
func postHints(t *testing.T, c *Cluster, hints ...map[string]any) {
	t.Helper()
	for _, h := range hints {
		h["v"] = 1
		if _, ok := h["reason"]; !ok {
			h["reason"] = "test"
		}
	}
	b, _ := json.Marshal(hints)
	resp, err := http.Post("http://"+c.SidecarHTTP+"/v1/hints", "application/json", bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("POST /v1/hints: %s", resp.Status)
	}
}

// attemptRec is what the watcher saw of one task attempt.
type attemptRec struct {
	ID, Task, Type, State, Node string
	First                       time.Time
}

// jobWatch polls the MR AM REST API (through the RM proxy) every 500 ms while the job runs.
type jobWatch struct {
	mu       sync.Mutex
	attempts map[string]*attemptRec
	// maxReducesInMapPhase is the most reduce attempts seen RUNNING while a map was not done.
	maxReducesInMapPhase int
	polls                int
	stop                 chan struct{}
	done                 chan struct{}
}

func watchJob(ctx context.Context, c *Cluster, rc *yarnclient.Client, appID, jobID string) *jobWatch {
	w := &jobWatch{attempts: map[string]*attemptRec{}, stop: make(chan struct{}), done: make(chan struct{})}
	nodeOf := map[string]string{}
	for _, nm := range c.NodeManagers {
		nodeOf[nm.HTTP] = nm.ID
	}
	go func() {
		defer close(w.done)
		tick := time.NewTicker(500 * time.Millisecond)
		defer tick.Stop()
		for {
			w.poll(ctx, rc, appID, jobID, nodeOf)
			select {
			case <-w.stop:
				return
			case <-ctx.Done():
				return
			case <-tick.C:
			}
		}
	}()
	return w
}

func (w *jobWatch) poll(ctx context.Context, rc *yarnclient.Client, appID, jobID string, nodeOf map[string]string) {
	tasks, err := rc.MRTasks(ctx, appID, jobID, "")
	if err != nil {
		return // the AM is not up yet, or gone
	}
	mapsLeft, reducesRunning := 0, 0
	var seen []attemptRec
	for _, tk := range tasks {
		if strings.EqualFold(tk.Type, "MAP") && tk.State != "SUCCEEDED" {
			mapsLeft++
		}
		ats, err := rc.MRTaskAttempts(ctx, appID, jobID, tk.ID)
		if err != nil {
			continue
		}
		for _, a := range ats {
			node := nodeOf[a.NodeHTTPAddress]
			if node == "" {
				node = a.NodeHTTPAddress
			}
			seen = append(seen, attemptRec{ID: a.ID, Task: tk.ID, Type: tk.Type, State: a.State, Node: node})
			if a.IsReduce() && a.State == "RUNNING" {
				reducesRunning++
			}
		}
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.polls++
	for _, a := range seen {
		if old, ok := w.attempts[a.ID]; ok {
			old.State = a.State
			if a.Node != "" {
				old.Node = a.Node
			}
			continue
		}
		a.First = time.Now()
		w.attempts[a.ID] = &a
	}
	if mapsLeft > 0 && reducesRunning > w.maxReducesInMapPhase {
		w.maxReducesInMapPhase = reducesRunning
	}
}

func (w *jobWatch) finish() {
	close(w.stop)
	<-w.done
}

// byTask returns the attempts of each task, in id order.
func (w *jobWatch) byTask() map[string][]attemptRec {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := map[string][]attemptRec{}
	for _, a := range w.attempts {
		out[a.Task] = append(out[a.Task], *a)
	}
	for _, as := range out {
		sort.Slice(as, func(i, j int) bool { return as[i].ID < as[j].ID })
	}
	return out
}

// backups counts the tasks that got a second attempt.
func (w *jobWatch) backups(typ string) (n int, tasks []string) {
	for task, as := range w.byTask() {
		if len(as) > 1 && strings.EqualFold(as[0].Type, typ) {
			n++
			tasks = append(tasks, task)
		}
	}
	sort.Strings(tasks)
	return n, tasks
}

// taskID is the MR id of task i of type t ("m" or "r") of job jobID.
func taskID(jobID, t string, i int) string {
	return fmt.Sprintf("task_%s_%s_%06d", strings.TrimPrefix(jobID, "job_"), t, i)
}

// taskSpan is how long task ran by the AM's syslog: from SCHEDULED to RUNNING until RUNNING
// to SUCCEEDED (zero if either line is missing).
func taskSpan(syslog, task string) time.Duration {
	at := func(transition string) time.Time {
		i := strings.Index(syslog, task+" Task Transitioned from "+transition)
		if i < 0 {
			return time.Time{}
		}
		start := strings.LastIndex(syslog[:i], "\n") + 1
		ts, err := time.Parse("2006-01-02 15:04:05,000", syslog[start:min(start+23, len(syslog))])
		if err != nil {
			return time.Time{}
		}
		return ts
	}
	from, to := at("SCHEDULED to RUNNING"), at("RUNNING to SUCCEEDED")
	if from.IsZero() || to.IsZero() {
		return 0
	}
	return to.Sub(from)
}

// amSyslog returns the MR AM's syslog (container 1 of the app's first attempt).
func amSyslog(c *Cluster, appID string) string {
	id := strings.TrimPrefix(appID, "application_")
	// container_[eEPOCH_]CLUSTERTS_APP_01_000001 under the NodeManagers' log dirs.
	matches, _ := filepath.Glob(filepath.Join(c.RunDir, "data", "*", "*", "*", appID, "container_*"+id+"_01_000001", "syslog"))
	var b strings.Builder
	for _, m := range matches {
		data, _ := os.ReadFile(m)
		b.Write(data)
	}
	return b.String()
}

type jobRun struct {
	sub     WordCountResult
	watch   *jobWatch
	elapsed time.Duration
	state   AppState
}

// runSleepJob submits a sleep job, watches it to its end and returns what happened.
// waitIdle waits (up to a minute) until no NodeManager runs a container, so
// the containers of an earlier test, still being cleaned up, do not take
// the room a test's placement counts on.
func waitIdle(ctx context.Context, t *testing.T, rc *yarnclient.Client) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		nodes, err := rc.Nodes(ctx, yarnclient.NodesFilter{})
		busy := 0
		for _, n := range nodes {
			busy += int(n.NumContainers)
		}
		if err == nil && busy == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Logf("cluster not idle after a minute (%d containers, %v): going on", busy, err)
			return
		}
		time.Sleep(500 * time.Millisecond)
	}
}

func runSleepJob(ctx context.Context, t *testing.T, c *Cluster, onSubmit func(WordCountResult), args ...string) jobRun {
	t.Helper()
	rc := rmClient(t, c)
	waitIdle(ctx, t, rc)
	start := time.Now()
	sub, err := c.SubmitSleepJob(ctx, append(args, "--no-wait")...)
	if err != nil || sub.AppID == "" {
		t.Fatalf("submit: %v\n%s", err, tail(sub.Output, 30))
	}
	if onSubmit != nil {
		onSubmit(sub)
	}
	w := watchJob(ctx, c, rc, sub.AppID, sub.JobID)
	st, err := c.WaitApp(ctx, sub.AppID, 500*time.Millisecond)
	w.finish()
	if err != nil {
		t.Fatalf("%s: %v", sub.AppID, err)
	}
	return jobRun{sub: sub, watch: w, elapsed: time.Since(start), state: st}
}

// TestPluginStragglerBackedUpByLATE: two sleep jobs at once, four 10 s maps each, the first
// attempt of map 0 sleeping 70 s. One job turns speculation off; the other runs HintSpeculator
// taking only the sidecar's backups (rmsidecar.am.speculator.stock=false). The LATE policy
// decides from live events (the AM plug-ins' reports and the bridge, through real Kafka): it
// hints the stragglers of both jobs; the job with speculation off takes none, the other backs
// up exactly its straggler, the backup wins and the straggling task ends sooner.
func TestPluginStragglerBackedUpByLATE(t *testing.T) {
	c := pluginCluster(t)
	ctx, cancel := context.WithTimeout(t.Context(), 8*time.Minute)
	defer cancel()
	// LATE's settings for a two-NodeManager cluster running 10 s tasks: judge tasks after 30 s
	// (not Hadoop's 60 s; a task JVM takes up to 20 s to start on a loaded two-core machine,
	// at progress 0 all that time); a cap of half the slots, as the job with speculation off takes up
	// its share of LATE's copies (the sidecar does not know that setting); no slow-node cut,
	// which on two nodes always marks one of them slow.
	run, evTopic, nodeTopic := startPluginSidecar(t, c, "run-straggler",
		"  stack: late\n  late:\n    min_runtime_ms: 30000\n    speculative_cap: 0.5\n    slow_node_threshold: 0")
	startRMSidecar(t, "bridge", "bridge", "--rm", c.RMWeb, "--kafka", c.KafkaBootstrap,
		"--topic", evTopic, "--node-topic", nodeTopic, "--interval", "2s", "--log-format", "json", "--http", freePort(t))
	job := []string{"--maps", "4", "--reduces", "0", "--map-ms", "10000", "--slow-task", "0", "--slow-ms", "70000"}
	var wg sync.WaitGroup
	var off, hinted jobRun
	wg.Add(2)
	go func() {
		defer wg.Done()
		off = runSleepJob(ctx, t, c, nil, append(job, "--name", "straggler-off", "-D", "mapreduce.map.speculative=false")...)
	}()
	go func() {
		defer wg.Done()
		hinted = runSleepJob(ctx, t, c, nil, append(job, "--name", "straggler-hinted",
			"-D", "mapreduce.map.speculative=true", "-D", "rmsidecar.am.speculator.stock=false")...)
	}()
	wg.Wait()
	for _, r := range []jobRun{off, hinted} {
		if r.state.FinalStatus != "SUCCEEDED" {
			t.Fatalf("%s: %+v", r.sub.AppID, r.state)
		}
	}
	nOff, offTasks := off.watch.backups("MAP")
	nHinted, tasks := hinted.watch.backups("MAP")
	t.Logf("speculation off: %s in %.1f s, %d tasks with a 2nd attempt %v; hints: %s in %.1f s, %d backups %v",
		off.sub.AppID, off.elapsed.Seconds(), nOff, offTasks, hinted.sub.AppID, hinted.elapsed.Seconds(), nHinted, tasks)
	straggler := taskID(hinted.sub.JobID, "m", 0)
	// Every backup is of a task a hint named, and the straggler is one of them. LATE may also
	// judge a sound task slow when the loaded machine starts its JVM late: that is LATE's
	// choice, not the plug-in's, so it is counted, not failed.
	syslog := amSyslog(c, hinted.sub.AppID)
	var named []string
	for _, m := range regexp.MustCompile(`rmsidecar: speculate (task_\S+)`).FindAllStringSubmatch(syslog, -1) {
		named = append(named, m[1])
	}
	sort.Strings(named)
	if !slices.Equal(named, tasks) || !slices.Contains(tasks, straggler) {
		t.Errorf("hints: backups of %v, hinted %v; want the hinted tasks backed up, %s among them", tasks, named, straggler)
	}
	// The backup won: the task succeeded with attempt _1 and the AM killed the straggler,
	// which still had most of its 70 s to go.
	attempt := strings.Replace(straggler, "task_", "attempt_", 1)
	if !strings.Contains(syslog, "Task succeeded with attempt "+attempt+"_1") ||
		!strings.Contains(syslog, "Issuing kill to other attempt "+attempt+"_0") {
		t.Errorf("AM syslog: the backup %s_1 did not win over %s_0", attempt, attempt)
	}
	// The straggling task ends sooner with the hint. The job times are reported, not asserted:
	// on a loaded 2-core machine the container start-up of the two concurrent jobs varies by
	// more than the time the backup saves (a rehearsal saw 108.7 s with the hint against
	// 107.1 s without, the backup having won).
	spanHinted, spanOff := taskSpan(syslog, straggler), taskSpan(amSyslog(c, off.sub.AppID), taskID(off.sub.JobID, "m", 0))
	t.Logf("straggling map: %.1f s with the hint, %.1f s with speculation off; job time: hints %.1f s, speculation off %.1f s",
		spanHinted.Seconds(), spanOff.Seconds(), hinted.elapsed.Seconds(), off.elapsed.Seconds())
	if spanHinted <= 0 || spanOff <= 0 || spanHinted >= spanOff {
		t.Errorf("straggling map: %v with the hint, not shorter than %v with speculation off", spanHinted, spanOff)
	}
	if nOff != 0 {
		t.Errorf("speculation off: backups of %v, want none (a job that turns speculation off gets no backup from hints either)", offTasks)
	}
	if i := strings.Index(syslog, "rmsidecar: speculator summary"); i >= 0 {
		t.Logf("AM: %s", strings.SplitN(syslog[i:], "\n", 2)[0])
	}
	if v, err := metricSum(ctx, c.SidecarHTTP, "rmsidecar_posted_events_total"); err != nil || v == 0 {
		t.Errorf("events from the AM plug-ins: %v (%v), want > 0", v, err)
	} else {
		t.Logf("events posted by the AM plug-ins: %v", v)
	}
	if err := run.stop(30 * time.Second); err != nil {
		t.Error(err)
	}
}

// TestPluginDenySpeculation (SEPB): the stock speculator on in both jobs; a deny-speculation
// hint for every map of one of them leaves it with no backup, the other gets at least one.
func TestPluginDenySpeculation(t *testing.T) {
	c := pluginCluster(t)
	ctx, cancel := context.WithTimeout(t.Context(), 8*time.Minute)
	defer cancel()
	startPluginSidecar(t, c, "run-sepb", "  stack: none")
	job := []string{"--maps", "4", "--reduces", "0", "--map-ms", "2000", "--slow-task", "0", "--slow-ms", "30000",
		"-D", "mapreduce.map.speculative=true", "-D", "rmsidecar.am.speculator.stock=true",
		"-D", "mapreduce.job.speculative.retry-after-no-speculate=500"}
	var wg sync.WaitGroup
	var stock, denied jobRun
	wg.Add(2)
	go func() {
		defer wg.Done()
		stock = runSleepJob(ctx, t, c, nil, append(job, "--name", "stock-spec")...)
	}()
	go func() {
		defer wg.Done()
		denied = runSleepJob(ctx, t, c, func(sub WordCountResult) {
			var hs []map[string]any
			for i := range 4 {
				hs = append(hs, map[string]any{"kind": "deny-speculation", "app": sub.AppID, "task": taskID(sub.JobID, "m", i)})
			}
			postHints(t, c, hs...)
		}, append(job, "--name", "stock-spec-denied")...)
	}()
	wg.Wait()
	nStock, _ := stock.watch.backups("MAP")
	nDenied, tasks := denied.watch.backups("MAP")
	t.Logf("stock speculation: %d backups, %.1f s; with deny-speculation hints: %d backups %v, %.1f s",
		nStock, stock.elapsed.Seconds(), nDenied, tasks, denied.elapsed.Seconds())
	if stock.state.FinalStatus != "SUCCEEDED" || denied.state.FinalStatus != "SUCCEEDED" {
		t.Fatalf("jobs: %+v %+v", stock.state, denied.state)
	}
	if nStock < 1 {
		t.Errorf("stock speculation without hints launched no backup")
	}
	if nDenied != 0 {
		t.Errorf("deny-speculation: %d backups %v, want 0", nDenied, tasks)
	}
	if n := strings.Count(amSyslog(c, denied.sub.AppID), "rmsidecar: denied stock backup"); n == 0 {
		t.Errorf("AM syslog has no 'rmsidecar: denied stock backup' line")
	} else {
		t.Logf("denied stock backups logged by the AM: %d", n)
	}
}

// TestPluginPlaceRatioAndSidecarKill: place hints pin every map to one NodeManager (strict);
// a ratio hint with max_reduces 0 keeps the reduce from starting during the map phase
// (slowstart 0 would start it at once); then the sidecar is killed with SIGKILL: the RM
// plug-in drops its stale hints, the held reduce runs and the job succeeds.
func TestPluginPlaceRatioAndSidecarKill(t *testing.T) {
	c := pluginCluster(t)
	ctx, cancel := context.WithTimeout(t.Context(), 8*time.Minute)
	defer cancel()
	run, _, _ := startPluginSidecar(t, c, "run-place", "  stack: none")
	target := c.NodeManagers[1].ID
	var killed time.Time
	r := runSleepJob(ctx, t, c, func(sub WordCountResult) {
		var hs []map[string]any
		for i := range 6 {
			hs = append(hs, map[string]any{"kind": "place", "app": sub.AppID, "task": taskID(sub.JobID, "m", i),
				"strict": true, "nodes": []map[string]any{{"node": target, "score": 1}}})
		}
		hs = append(hs, map[string]any{"kind": "ratio", "app": sub.AppID, "max_reduces": 0})
		postHints(t, c, hs...)
		go func() {
			// Once every map is done, kill the sidecar: the held reduce must still run.
			rc := rmClient(t, c)
			for ctx.Err() == nil {
				tasks, err := rc.MRTasks(ctx, sub.AppID, sub.JobID, "m")
				done := 0
				for _, tk := range tasks {
					if tk.State == "SUCCEEDED" {
						done++
					}
				}
				if err == nil && done == 6 {
					time.Sleep(3 * time.Second) // the reduce is held, not just late
					run.kill()
					killed = time.Now()
					return
				}
				time.Sleep(500 * time.Millisecond)
			}
		}()
	}, "--maps", "6", "--reduces", "1", "--map-ms", "3000", "--name", "place-ratio",
		"-D", "mapreduce.job.reduce.slowstart.completedmaps=0", "-D", "mapreduce.map.speculative=false")
	if r.state.FinalStatus != "SUCCEEDED" {
		t.Fatalf("%s: %+v", r.sub.AppID, r.state)
	}
	onTarget, maps := 0, 0
	var where []string
	for _, as := range r.watch.byTask() {
		for _, a := range as {
			if strings.EqualFold(a.Type, "MAP") {
				maps++
				if a.Node == target {
					onTarget++
				}
				where = append(where, a.Node)
			}
		}
	}
	t.Logf("maps on the hinted node %s: %d of %d (%v); most reduces running in the map phase: %d; sidecar killed: %v; job %.1f s",
		target, onTarget, maps, where, r.watch.maxReducesInMapPhase, !killed.IsZero(), r.elapsed.Seconds())
	if maps < 6 || onTarget != maps {
		t.Errorf("place: %d of %d map attempts on %s, want all", onTarget, maps, target)
	}
	if r.watch.maxReducesInMapPhase != 0 {
		t.Errorf("ratio max_reduces 0: %d reduces ran during the map phase", r.watch.maxReducesInMapPhase)
	}
	if killed.IsZero() {
		t.Errorf("the sidecar was not killed after the map phase")
	}
	if n := strings.Count(rmLog(c), "rmsidecar: pin"); n == 0 {
		t.Logf("RM log has no 'rmsidecar: pin' line")
	}
}

// TestPluginMalformedHintResponse: something on the sidecar's port answers garbage; a job
// runs through the RM and AM plug-ins unaffected and the RM logs the bad answer.
func TestPluginMalformedHintResponse(t *testing.T) {
	c := pluginCluster(t)
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()
	ln, err := net.Listen("tcp", c.SidecarHTTP)
	if err != nil {
		t.Fatalf("listen on the plug-ins' port: %v", err)
	}
	var calls sync.Map
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n, _ := calls.LoadOrStore(r.URL.Path, new(int))
		*(n.(*int))++
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"cursor": "not a number", "hints": [{"kind": 7}`))
	})}
	go func() { _ = srv.Serve(ln) }()
	defer srv.Close()
	before := strings.Count(rmLog(c), "rmsidecar")
	r := runSleepJob(ctx, t, c, nil, "--maps", "2", "--reduces", "1", "--map-ms", "1000", "--name", "garbage-hints",
		"-D", "mapreduce.map.speculative=true")
	if r.state.FinalStatus != "SUCCEEDED" {
		t.Fatalf("%s with a garbage sidecar: %+v", r.sub.AppID, r.state)
	}
	var paths []string
	calls.Range(func(k, v any) bool { paths = append(paths, fmt.Sprintf("%s x%d", k, *(v.(*int)))); return true })
	t.Logf("job %.1f s; calls to the garbage sidecar: %v", r.elapsed.Seconds(), paths)
	if len(paths) == 0 {
		t.Errorf("the plug-ins never called the sidecar port")
	}
	if after := strings.Count(rmLog(c), "rmsidecar"); after <= before {
		t.Errorf("the RM logged nothing about the bad hint answer")
	}
	if !strings.Contains(amSyslog(c, r.sub.AppID), "rmsidecar") {
		t.Errorf("the AM logged nothing from the plug-in")
	}
}

func rmLog(c *Cluster) string {
	b, _ := os.ReadFile(filepath.Join(c.RunDir, "logs", "hadoop.err"))
	return string(b)
}

// TestPluginPlacesMapsOnBlockHosts: a real wordcount whose six input files each have one
// replica (dfs.replication=1), on DataNodes named dn1..3.rmsidecar.test that the sidecar maps to
// the two NodeManagers (model.host_aliases; on one host the NodeManagers differ by port only).
// The AM plug-in reports each map's split with the NameNode's block hosts (from the job's split
// meta file), the bridge reports the nodes; the learning scheduler picks, at a node's heartbeat,
// a pending map whose block is on that node and sends a place hint that HintAllocationProcessor
// applies to the AM's next map ask (mapreduce.job.running.map.limit=1 keeps maps pending). Every
// node-local place hint must name the NodeManager the NameNode's block host maps to.
func TestPluginPlacesMapsOnBlockHosts(t *testing.T) {
	c := pluginCluster(t)
	if len(c.NodeManagers) < 2 {
		t.Skipf("%d NodeManagers; the test needs two", len(c.NodeManagers))
	}
	ctx, cancel := context.WithTimeout(t.Context(), 6*time.Minute)
	defer cancel()
	alias := map[string]string{
		"dn1.rmsidecar.test": c.NodeManagers[0].ID,
		"dn2.rmsidecar.test": c.NodeManagers[1].ID,
		"dn3.rmsidecar.test": c.NodeManagers[0].ID,
	}
	var aliases strings.Builder
	for _, dn := range slices.Sorted(maps.Keys(alias)) {
		fmt.Fprintf(&aliases, "    - {datanode: %s, nodemanager: %q}\n", dn, alias[dn])
	}
	run, evTopic, nodeTopic := startPluginSidecar(t, c, "run-locality", "  stack: learning-nb\nmodel:\n  host_aliases:\n"+aliases.String())
	bridge := startRMSidecar(t, "bridge-locality", "bridge", "--rm", c.RMWeb, "--kafka", c.KafkaBootstrap,
		"--topic", evTopic, "--node-topic", nodeTopic, "--interval", "1s", "--log-format", "json", "--http", freePort(t), "--hdfs-conf", c.ConfDir)
	rc := rmClient(t, c)
	waitIdle(ctx, t, rc)
	// Where a job's blocks land is the NameNode's choice, and a job whose data sits mostly
	// on the NodeManager that is busier can get every map hinted rack-local to the other
	// one first (a task is placed once per place_hold): then a second job runs.
	const jobs = 2
	for attempt := 1; attempt <= jobs; attempt++ {
		base := "/user/rmsidecar/" + uniq("locality-")
		sub, err := c.SubmitWordCount(ctx, "--generate-files", "6", "--generate-lines", "20000", "--no-wait",
			"-D", "dfs.replication=1", "-D", "mapreduce.job.running.map.limit=1", "-D", "mapreduce.map.speculative=false",
			base+"/in", base+"/out")
		if err != nil || sub.AppID == "" {
			t.Fatalf("submit: %v\n%s", err, tail(sub.Output, 30))
		}
		w := watchJob(ctx, c, rc, sub.AppID, sub.JobID)
		st, err := c.WaitApp(ctx, sub.AppID, 500*time.Millisecond)
		w.finish()
		if err != nil || st.FinalStatus != "SUCCEEDED" {
			t.Fatalf("wordcount %s: %+v, %v", sub.AppID, st, err)
		}
		splits := checkSplitHosts(ctx, t, c, c.SidecarHTTP, sub.AppID, base+"/in", alias)

		// Where the NameNode put each map's block, as a NodeManager.
		want := map[string]string{}
		for task, path := range splits {
			if u, err := url.Parse(path); err == nil && u.Path != "" {
				path = u.Path // hdfs://namenode:port/... as the split names it
			}
			locs, err := c.BlockLocations(ctx, path)
			if err != nil || len(locs) == 0 || len(locs[0].Hosts) != 1 {
				t.Fatalf("%s: block locations %+v, %v; want one replica", path, locs, err)
			}
			want[task] = alias[locs[0].Hosts[0]]
		}
		ranOn := map[string]string{}
		for task, as := range w.byTask() {
			if len(as) > 0 {
				ranOn[task] = as[0].Node
			}
		}
		local, followed := 0, 0
		for _, h := range sidecarHints(t, c.SidecarHTTP) {
			if h.Kind != "place" || h.App != sub.AppID || len(h.Nodes) == 0 || h.Nodes[0].Locality != "node" {
				continue
			}
			local++
			node := h.Nodes[0].Node
			if node != want[h.Task] {
				t.Errorf("place %s on %s (%s): the NameNode has its block on %s", h.Task, node, h.Reason, want[h.Task])
			}
			if ranOn[h.Task] == node {
				followed++
			}
			t.Logf("place %s on %s, its block's NodeManager %s, ran on %s (%s)", h.Task, node, want[h.Task], ranOn[h.Task], h.Reason)
		}
		t.Logf("job %d: %d node-local place hints from the learning scheduler for %d maps, %d run where hinted", attempt, local, len(splits), followed)
		if local > 0 {
			break
		}
		if attempt == jobs {
			t.Errorf("no node-local place hint in %d jobs: the NameNode's block hosts chose nothing", jobs)
		}
	}
	if err := bridge.stop(30 * time.Second); err != nil {
		t.Errorf("bridge: %v", err)
	}
	if err := run.stop(30 * time.Second); err != nil {
		t.Error(err)
	}
}

// hintRec is what a test reads of a hint from GET /v1/hints.
type hintRec struct {
	ID     string `json:"id"`
	Kind   string `json:"kind"`
	Policy string `json:"policy"`
	App    string `json:"app"`
	Task   string `json:"task"`
	Reason string `json:"reason"`
	Nodes  []struct {
		Node     string `json:"node"`
		Locality string `json:"locality"`
	} `json:"nodes"`
}

// sidecarHints lists the hints the sidecar's http actuator holds (the newest 1000).
func sidecarHints(t *testing.T, httpAddr string) []hintRec {
	t.Helper()
	resp, err := http.Get("http://" + httpAddr + "/v1/hints")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out []hintRec
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		t.Fatalf("GET /v1/hints: %v", err)
	}
	return out
}

// TestPluginReduceBinding (TMaR PRB): every partition of a 4-reduce job bound to one
// NodeManager; HintAllocationProcessor places the reduce asks there, so the reduces run on
// the bound node. Which partition runs in which of its containers is the AM's choice (see
// docs/yarn-plugins.md): with every partition bound to the same node the two agree, so the
// test counts partitions on their bound node.
func TestPluginReduceBinding(t *testing.T) {
	c := pluginCluster(t)
	ctx, cancel := context.WithTimeout(t.Context(), 6*time.Minute)
	defer cancel()
	run, _, _ := startPluginSidecar(t, c, "run-binding", "  stack: none")
	bound := c.NodeManagers[1].ID
	const reduces = 4
	r := runSleepJob(ctx, t, c, func(sub WordCountResult) {
		var hs []map[string]any
		for p := range reduces {
			hs = append(hs, map[string]any{"kind": "reduce-binding", "app": sub.AppID, "partition": p,
				"node": bound, "reducers": reduces})
		}
		postHints(t, c, hs...)
	}, "--maps", "2", "--reduces", fmt.Sprint(reduces), "--map-ms", "2000", "--reduce-ms", "2000",
		"--name", "reduce-binding", "-D", "mapreduce.job.reduce.slowstart.completedmaps=1",
		"-D", "mapreduce.map.speculative=false", "-D", "mapreduce.reduce.speculative=false")
	if r.state.FinalStatus != "SUCCEEDED" {
		t.Fatalf("%s: %+v", r.sub.AppID, r.state)
	}
	onBound, total := 0, 0
	var where []string
	for task, as := range r.watch.byTask() {
		for _, a := range as {
			if strings.EqualFold(a.Type, "REDUCE") {
				total++
				if a.Node == bound {
					onBound++
				}
				where = append(where, task[len(task)-1:]+"@"+a.Node)
			}
		}
	}
	sort.Strings(where)
	t.Logf("reduce partitions on their bound node %s: %d of %d (%v); job %.1f s", bound, onBound, total, where, r.elapsed.Seconds())
	if total < reduces || onBound != total {
		t.Errorf("reduce attempts on the bound node: %d of %d, want all %d", onBound, total, reduces)
	}
	if err := run.stop(30 * time.Second); err != nil {
		t.Error(err)
	}
}
