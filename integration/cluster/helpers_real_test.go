//go:build cluster

package clustertest

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/IBM/sarama"

	"github.com/rmsidecar/rmsidecar/yarnclient"
)

// eventually calls check every interval until it reports done or timeout
// passes; then the test fails with the last message check gave.
func eventually(t *testing.T, timeout, interval time.Duration, what string, check func() (bool, string)) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	last := ""
	for {
		ok, msg := check()
		if ok {
			return
		}
		last = msg
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %v (last: %s)", what, timeout, last)
		}
		select {
		case <-t.Context().Done():
			t.Fatalf("%s: %v (last: %s)", what, t.Context().Err(), last)
		case <-time.After(interval):
		}
	}
}

// uniq returns prefix plus a random suffix: topic, group and HDFS path names
// of one test run never collide with an earlier run on the same cluster.
func uniq(prefix string) string {
	return prefix + strconv.FormatUint(rand.Uint64()%1_000_000_000, 36)
}

// rmClient is a yarnclient.Client for the harness RM.
func rmClient(t *testing.T, c *Cluster) *yarnclient.Client {
	t.Helper()
	rc, err := yarnclient.New(yarnclient.Config{RMURLs: []string{c.RMWeb}, User: "rmsidecar", Timeout: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return rc
}

// repoRoot is the module root (go test runs in integration/cluster).
func repoRoot(t *testing.T) string {
	t.Helper()
	d, err := moduleRoot()
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func moduleRoot() (string, error) {
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for d := wd; d != "/"; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d, nil
		}
	}
	return "", fmt.Errorf("no go.mod above %s", wd)
}

var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
)

// TestMain builds the rmsidecar binary before the tests (so it is built from
// the same tree as the test binary, not minutes later) when a cluster is
// configured, and removes it after them.
func TestMain(m *testing.M) {
	if os.Getenv(EnvClusterFile) != "" {
		buildOnce.Do(buildBinary)
	}
	code := m.Run()
	if binPath != "" {
		_ = os.RemoveAll(filepath.Dir(binPath))
	}
	os.Exit(code)
}

// sidecarBinary builds cmd/rmsidecar once per test binary: the tests run
// the real `rmsidecar bridge` and `rmsidecar run` commands.
func sidecarBinary(t *testing.T) string {
	t.Helper()
	buildOnce.Do(buildBinary)
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binPath
}

func buildBinary() {
	dir, err := os.MkdirTemp("", "rmsidecar-bin")
	if err != nil {
		buildErr = err
		return
	}
	binPath = filepath.Join(dir, "rmsidecar")
	root, err := moduleRoot()
	if err != nil {
		buildErr = err
		return
	}
	cmd := exec.Command("go", "build", "-o", binPath, "./cmd/rmsidecar")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		buildErr = fmt.Errorf("go build ./cmd/rmsidecar: %w: %s", err, out)
	}
}

// proc is a running rmsidecar command whose stdout and stderr go to files.
type proc struct {
	name    string
	cmd     *exec.Cmd
	logPath string
	done    chan struct{}
	err     error
	killed  atomic.Bool // by kill: its non-zero exit is expected
}

// kill sends SIGKILL (a crash) and waits for the process to end.
func (p *proc) kill() {
	p.killed.Store(true)
	_ = p.cmd.Process.Kill()
	<-p.done
}

// startRMSidecar starts the built binary with args; Cleanup stops it
// (SIGTERM, then SIGKILL after 30 s) and prints its log when the test
// failed.
func startRMSidecar(t *testing.T, name string, args ...string) *proc {
	t.Helper()
	bin := sidecarBinary(t)
	logPath := filepath.Join(t.TempDir(), name+".log")
	f, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = f, f
	cmd.Env = childEnv()
	if err := cmd.Start(); err != nil {
		f.Close()
		t.Fatalf("start %s: %v", name, err)
	}
	p := &proc{name: name, cmd: cmd, logPath: logPath, done: make(chan struct{})}
	go func() {
		p.err = cmd.Wait()
		f.Close()
		close(p.done)
	}()
	t.Cleanup(func() {
		if err := p.stop(30 * time.Second); err != nil {
			t.Errorf("%s: %v", name, err)
		}
		if t.Failed() {
			t.Logf("%s log (tail):\n%s", name, tail(p.log(), 40))
		}
	})
	return p
}

// childEnv is the environment for an rmsidecar process: rmsidecar rejects RMSIDECAR_*
// variables that are not config keys, such as the harness's RMSIDECAR_CLUSTER_FILE.
func childEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "RMSIDECAR_CLUSTER_") {
			env = append(env, kv)
		}
	}
	return env
}

// stop sends SIGTERM and waits; a process that exits non-zero is an error.
func (p *proc) stop(wait time.Duration) error {
	select {
	case <-p.done:
	default:
		_ = p.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-p.done:
		case <-time.After(wait):
			_ = p.cmd.Process.Kill()
			<-p.done
			return fmt.Errorf("did not stop within %v of SIGTERM", wait)
		}
	}
	if p.err != nil && !p.killed.Load() {
		return fmt.Errorf("exited: %w", p.err)
	}
	return nil
}

func (p *proc) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

func (p *proc) log() string {
	b, _ := os.ReadFile(p.logPath)
	return string(b)
}

// logLines returns the log lines containing s.
func (p *proc) logLines(s string) []string {
	var out []string
	sc := bufio.NewScanner(strings.NewReader(p.log()))
	sc.Buffer(make([]byte, 0, 64*1024), 4<<20)
	for sc.Scan() {
		if strings.Contains(sc.Text(), s) {
			out = append(out, sc.Text())
		}
	}
	return out
}

// freePort returns a loopback address that was free a moment ago, below the
// kernel's ephemeral range (as lib.sh's free_port): a process restarted on
// it must not find it taken as some connection's source port.
func freePort(t *testing.T) string {
	t.Helper()
	lo, hi := 20000, 32767
	if b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range"); err == nil {
		if f := strings.Fields(string(b)); len(f) > 0 {
			if low, err := strconv.Atoi(f[0]); err == nil && low > lo+1000 {
				hi = low - 1
			}
		}
	}
	for range 200 {
		addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(lo+rand.IntN(hi-lo+1)))
		l, err := net.Listen("tcp", addr)
		if err == nil {
			l.Close()
			return addr
		}
	}
	t.Fatalf("no free port in %d..%d", lo, hi)
	return ""
}

// sidecarConfig writes a `rmsidecar run` config for the harness's Kafka.
// With rmActuator the rm actuator is on too, writing to the harness RM.
func sidecarConfig(t *testing.T, c *Cluster, httpAddr, group, events, nodes, hints, stackYAML string, rmActuator bool) string {
	t.Helper()
	dir := t.TempDir()
	actuators := "log, kafka"
	if rmActuator {
		actuators += ", rm"
	}
	y := fmt.Sprintf(`log:
  level: info
  format: json
http:
  addr: %q
kafka:
  brokers: [%q]
  group: %q
  instance: it
  events_topic: %q
  node_topic: %q
  hints_topic: %q
  dead_letter_topic: %q
  commit_interval: 500ms
engine:
  tick: 1s
policies:
%s
actuators:
  enabled: [%s]
  journal: %q
rm:
  urls: [%q]
  user: rmsidecar
profiles:
  path: %q
`, httpAddr, c.KafkaBootstrap, group, events, nodes, hints, events+".dlq", stackYAML, actuators,
		filepath.Join(dir, "journal.jsonl"), c.RMWeb, filepath.Join(dir, "profiles.db"))
	p := filepath.Join(dir, "config.yaml")
	if err := os.WriteFile(p, []byte(y), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// metricSum sums the samples of one Prometheus counter on /metrics.
func metricSum(ctx context.Context, httpAddr, name string) (float64, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+httpAddr+"/metrics", nil)
	if err != nil {
		return 0, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return 0, err
	}
	sum := 0.0
	for _, line := range strings.Split(string(body), "\n") {
		if !strings.HasPrefix(line, name+"{") && !strings.HasPrefix(line, name+" ") {
			continue
		}
		f := strings.Fields(line)
		v, err := strconv.ParseFloat(f[len(f)-1], 64)
		if err != nil {
			return 0, fmt.Errorf("metric line %q: %w", line, err)
		}
		sum += v
	}
	return sum, nil
}

// committedOffset is the group's committed offset on partition 0 of topic
// (-1 when none).
func committedOffset(bootstrap, group, topic string) (int64, error) {
	admin, err := sarama.NewClusterAdmin([]string{bootstrap}, kafkaConfig())
	if err != nil {
		return 0, err
	}
	defer admin.Close()
	res, err := admin.ListConsumerGroupOffsets(group, map[string][]int32{topic: {0}})
	if err != nil {
		return 0, err
	}
	b := res.GetBlock(topic, 0)
	if b == nil {
		return -1, nil
	}
	if b.Err != sarama.ErrNoError {
		return 0, b.Err
	}
	return b.Offset, nil
}

// waitRunning waits until the RM reports the app RUNNING.
func waitRunning(ctx context.Context, t *testing.T, rc *yarnclient.Client, appID string) {
	t.Helper()
	eventually(t, 4*time.Minute, time.Second, appID+" RUNNING", func() (bool, string) {
		a, err := rc.App(ctx, appID)
		if err != nil {
			return false, err.Error()
		}
		if a.Finished() {
			t.Fatalf("%s finished (%s/%s) before the test could use it", appID, a.State, a.FinalStatus)
		}
		return a.State == yarnclient.AppRunning, a.State
	})
}

// killApp kills an app the test no longer needs (saves the suite the rest
// of its run) and waits until the RM says it is over.
func killApp(t *testing.T, rc *yarnclient.Client, appID string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	for {
		_, done, err := rc.KillApp(ctx, appID)
		if err == nil && done {
			return
		}
		a, aerr := rc.App(ctx, appID)
		if aerr == nil && a.Finished() {
			return
		}
		select {
		case <-ctx.Done():
			t.Logf("kill %s: %v / %v", appID, err, ctx.Err())
			return
		case <-time.After(time.Second):
		}
	}
}

// checkSplitHosts checks that the sidecar at httpAddr holds, for every map of appID (one per
// file of inputDir), its input split with block hosts the real NameNode names for inputDir's
// files (renamed through alias, the sidecar's model.host_aliases, when given), and that the
// split lengths add up to the input's size. It returns each map's split path.
func checkSplitHosts(ctx context.Context, t *testing.T, c *Cluster, httpAddr, appID, inputDir string, alias map[string]string) map[string]string {
	t.Helper()
	fs, err := c.HDFSClient("rmsidecar")
	if err != nil {
		t.Fatal(err)
	}
	defer fs.Close()
	files, err := fs.ReadDir(inputDir)
	if err != nil {
		t.Fatal(err)
	}
	var inputBytes int64
	nnHosts := map[string]bool{}
	for _, f := range files {
		inputBytes += f.Size()
		locs, err := c.BlockLocations(ctx, inputDir+"/"+f.Name())
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range locs {
			for _, h := range l.Hosts {
				if to, ok := alias[h]; ok {
					h = to
				}
				nnHosts[h] = true
			}
		}
	}
	if len(nnHosts) == 0 {
		t.Fatalf("the NameNode named no block hosts for %s", inputDir)
	}
	var view struct {
		Tasks []struct {
			ID     string `json:"id"`
			Kind   string `json:"kind"`
			Splits []struct {
				Path   string   `json:"path"`
				Length int64    `json:"length"`
				Hosts  []string `json:"hosts"`
			} `json:"splits"`
		} `json:"tasks"`
	}
	eventually(t, time.Minute, time.Second, "the job's maps in the sidecar's model with splits", func() (bool, string) {
		resp, err := http.Get("http://" + httpAddr + "/v1/apps/" + appID)
		if err != nil {
			return false, err.Error()
		}
		defer resp.Body.Close()
		if resp.StatusCode != 200 {
			return false, resp.Status
		}
		if err := json.NewDecoder(resp.Body).Decode(&view); err != nil {
			return false, err.Error()
		}
		maps := 0
		for _, tk := range view.Tasks {
			if tk.Kind == "map" && len(tk.Splits) > 0 {
				maps++
			}
		}
		return maps > 0 && maps == len(files), fmt.Sprintf("%d maps with splits, %d input files", maps, len(files))
	})
	var splitBytes int64
	paths := map[string]string{}
	for _, tk := range view.Tasks {
		if tk.Kind != "map" {
			continue
		}
		s := tk.Splits[0]
		paths[tk.ID] = s.Path
		splitBytes += s.Length
		if len(s.Hosts) == 0 {
			t.Errorf("%s: split without hosts", tk.ID)
		}
		for _, h := range s.Hosts {
			if !nnHosts[h] {
				t.Errorf("%s: split host %q is not one of the NameNode's block hosts %v", tk.ID, h, nnHosts)
			}
		}
		t.Logf("%s: split %d bytes on %v", tk.ID, s.Length, s.Hosts)
	}
	if splitBytes != inputBytes {
		t.Errorf("split lengths add up to %d bytes, the input is %d", splitBytes, inputBytes)
	}
	return paths
}
