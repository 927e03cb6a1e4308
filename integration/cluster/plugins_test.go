//go:build cluster

package clustertest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
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
func runSleepJob(ctx context.Context, t *testing.T, c *Cluster, onSubmit func(WordCountResult), args ...string) jobRun {
	t.Helper()
	rc := rmClient(t, c)
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

// TestPluginStragglerBackedUpByHint: four 10 s maps, the first attempt of one sleeps 40 s.
// With speculation off the job waits for it. The other job runs HintSpeculator taking only the
// sidecar's backups (rmsidecar.am.speculator.stock=false): a speculate hint for the straggler
// (posted once it runs, as a policy would decide) starts the backup of exactly that task, the
// backup wins and the job ends sooner. Both jobs run at once.
func TestPluginStragglerBackedUpByHint(t *testing.T) {
	testStraggler(t, false)
}

// TestPluginStragglerBackedUpByLATEHints is the same with the LATE policy deciding from live
// events (the AM plug-in's reports and the bridge, through real Kafka). Opt-in
// (RMSIDECAR_PLUGIN_LATE=1): on this 2-core machine, two jobs at once, LATE's hint went to
// the other job's straggler in 2 runs of 2 (see docs/yarn-plugins.md).
func TestPluginStragglerBackedUpByLATEHints(t *testing.T) {
	if os.Getenv("RMSIDECAR_PLUGIN_LATE") == "" {
		t.Skip("opt-in: RMSIDECAR_PLUGIN_LATE=1 (LATE on live events; see docs/yarn-plugins.md)")
	}
	testStraggler(t, true)
}

func testStraggler(t *testing.T, late bool) {
	c := pluginCluster(t)
	ctx, cancel := context.WithTimeout(t.Context(), 8*time.Minute)
	defer cancel()
	stack := "  stack: none"
	if late {
		stack = "  stack: late\n  late:\n    min_runtime_ms: 4000\n    speculative_cap: 0.5\n    slow_node_threshold: 0\n    slow_task_threshold: 0.5"
	}
	run, evTopic, nodeTopic := startPluginSidecar(t, c, "run-straggler", stack)
	if late {
		startRMSidecar(t, "bridge", "bridge", "--rm", c.RMWeb, "--kafka", c.KafkaBootstrap,
			"--topic", evTopic, "--node-topic", nodeTopic, "--interval", "2s", "--log-format", "json")
	}
	job := []string{"--maps", "4", "--reduces", "0", "--map-ms", "10000", "--slow-task", "0", "--slow-ms", "40000"}
	var wg sync.WaitGroup
	var off, hinted jobRun
	wg.Add(2)
	go func() {
		defer wg.Done()
		off = runSleepJob(ctx, t, c, nil, append(job, "--name", "straggler-off", "-D", "mapreduce.map.speculative=false")...)
	}()
	go func() {
		defer wg.Done()
		hinted = runSleepJob(ctx, t, c, func(sub WordCountResult) {
			if late {
				return
			}
			go func() {
				// As a policy would: once the straggler has run a while and the others are done.
				rc := rmClient(t, c)
				for ctx.Err() == nil {
					tasks, err := rc.MRTasks(ctx, sub.AppID, sub.JobID, "m")
					done, straggling := 0, false
					for _, tk := range tasks {
						if tk.State == "SUCCEEDED" {
							done++
						}
						if tk.ID == taskID(sub.JobID, "m", 0) && tk.State == "RUNNING" {
							straggling = true
						}
					}
					if err == nil && straggling && done >= 1 {
						postHints(t, c, map[string]any{"kind": "speculate", "app": sub.AppID, "task": taskID(sub.JobID, "m", 0),
							"attempt": strings.Replace(taskID(sub.JobID, "m", 0), "task_", "attempt_", 1) + "_0",
							"node":    c.NodeManagers[0].ID, "policy": "test"})
						return
					}
					time.Sleep(time.Second)
				}
			}()
		}, append(job, "--name", "straggler-hinted",
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
	if nHinted != 1 || tasks[0] != straggler {
		t.Errorf("hints: backups of %v, want exactly %s", tasks, straggler)
	}
	// The backup won: the task succeeded with attempt _1 and the AM killed the straggler,
	// which still had most of its 40 s to go, so the job ended sooner than without the hint.
	syslog := amSyslog(c, hinted.sub.AppID)
	attempt := strings.Replace(straggler, "task_", "attempt_", 1)
	if !strings.Contains(syslog, "Task succeeded with attempt "+attempt+"_1") ||
		!strings.Contains(syslog, "Issuing kill to other attempt "+attempt+"_0") {
		t.Errorf("AM syslog: the backup %s_1 did not win over %s_0", attempt, attempt)
	}
	if hinted.elapsed >= off.elapsed {
		t.Errorf("hints: %.1f s, not sooner than speculation off (%.1f s)", hinted.elapsed.Seconds(), off.elapsed.Seconds())
	}
	m := regexp.MustCompile(`rmsidecar: speculate (task_\S+)`).FindStringSubmatch(syslog)
	if m == nil || m[1] != straggler {
		t.Errorf("AM syslog: no 'rmsidecar: speculate %s' line (found %v)", straggler, m)
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
