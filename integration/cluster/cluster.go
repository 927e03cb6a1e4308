//go:build cluster

// Package clustertest connects tests to the real-cluster harness started by
// integration/cluster/start.sh: a MiniDFSCluster + MiniMRYarnCluster JVM and a KRaft Kafka
// broker JVM. Load reads the connection file (RUNDIR/cluster.json) the harness writes; the
// helpers reach the ResourceManager REST API, WebHDFS, the harness control channel
// (NameNode/DataNode/RM restarts), the Kafka restart script, and submit a real MapReduce
// wordcount job.
package clustertest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/colinmarc/hdfs/v2"
	"github.com/colinmarc/hdfs/v2/hadoopconf"
)

// EnvClusterFile names the environment variable holding the path of cluster.json.
const EnvClusterFile = "RMSIDECAR_CLUSTER_FILE"

// ErrNoCluster is returned by LoadFromEnv when EnvClusterFile is not set.
var ErrNoCluster = errors.New(EnvClusterFile + " is not set (start a cluster with integration/cluster/start.sh)")

// DataNode describes one HDFS datanode of the harness. Host is its distinct, registered host
// name (not resolvable by DNS; every datanode listens on IP).
type DataNode struct {
	Host string `json:"host"`
	IP   string `json:"ip"`
	Rack string `json:"rack"`
	Xfer string `json:"xfer"`
	HTTP string `json:"http"`
	IPC  string `json:"ipc"`
}

// NodeManager describes one YARN NodeManager: ID is the RM node id ("host:port").
type NodeManager struct {
	ID   string `json:"id"`
	HTTP string `json:"http"`
}

// Cluster is the content of cluster.json.
type Cluster struct {
	V                 int           `json:"v"`
	RunDir            string        `json:"run_dir"`
	ConfDir           string        `json:"conf_dir"`
	ControlDir        string        `json:"control_dir"`
	PID               int           `json:"pid"`
	FSDefault         string        `json:"fs_default"`
	NameNodeRPC       string        `json:"namenode_rpc"`
	NameNodeHTTP      string        `json:"namenode_http"`
	WebHDFS           string        `json:"webhdfs"`
	RMWeb             string        `json:"rm_web"`
	RMAddress         string        `json:"rm_address"`
	RMScheduler       string        `json:"rm_scheduler"`
	RMResourceTracker string        `json:"rm_resource_tracker"`
	RMAdmin           string        `json:"rm_admin"`
	JobHistoryAddress string        `json:"jobhistory_address"`
	JobHistoryWeb     string        `json:"jobhistory_web"`
	DataNodes         []DataNode    `json:"datanodes"`
	NodeManagers      []NodeManager `json:"nodemanagers"`
	KafkaBootstrap    string        `json:"kafka_bootstrap"`
	KafkaDir          string        `json:"kafka_dir"`
	WordCountCmd      []string      `json:"wordcount_cmd"`
	// SidecarHTTP is where the Hadoop plug-ins (yarn-plugin/) expect the
	// sidecar's HTTP API; empty when the harness runs without them.
	SidecarHTTP string `json:"sidecar_http"`

	// ScriptsDir is the directory of start.sh, kafka-restart.sh, ctl.sh (set by Load).
	ScriptsDir string `json:"-"`
}

// Load reads a cluster.json file.
func Load(path string) (*Cluster, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read cluster file: %w", err)
	}
	var c Cluster
	if err := json.Unmarshal(b, &c); err != nil {
		return nil, fmt.Errorf("parse cluster file %s: %w", path, err)
	}
	if c.RMWeb == "" || c.WebHDFS == "" || c.FSDefault == "" {
		return nil, fmt.Errorf("cluster file %s: rm_web, webhdfs and fs_default are required", path)
	}
	if dir, err := scriptsDir(); err == nil {
		c.ScriptsDir = dir
	}
	return &c, nil
}

// LoadFromEnv loads the file named by RMSIDECAR_CLUSTER_FILE, or returns ErrNoCluster.
func LoadFromEnv() (*Cluster, error) {
	p := os.Getenv(EnvClusterFile)
	if p == "" {
		return nil, ErrNoCluster
	}
	return Load(p)
}

// scriptsDir finds integration/cluster: RMSIDECAR_CLUSTER_SCRIPTS, else the test's working
// directory when it holds start.sh (go test runs in the package directory).
func scriptsDir() (string, error) {
	if d := os.Getenv("RMSIDECAR_CLUSTER_SCRIPTS"); d != "" {
		return d, nil
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("getwd: %w", err)
	}
	for _, d := range []string{wd, filepath.Join(wd, "integration", "cluster")} {
		if _, err := os.Stat(filepath.Join(d, "kafka-restart.sh")); err == nil {
			return d, nil
		}
	}
	return "", fmt.Errorf("integration/cluster scripts not found from %s", wd)
}

// HTTPClient returns a client that resolves the datanodes' host names (e.g. dn1.rmsidecar.test)
// to their IPs, so WebHDFS redirects to datanodes work without DNS entries.
func (c *Cluster) HTTPClient() *http.Client {
	hosts := make(map[string]string, len(c.DataNodes))
	for _, d := range c.DataNodes {
		hosts[d.Host] = d.IP
	}
	dialer := &net.Dialer{Timeout: 10 * time.Second}
	tr := &http.Transport{
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			host, port, err := net.SplitHostPort(addr)
			if err == nil {
				if ip, ok := hosts[host]; ok {
					addr = net.JoinHostPort(ip, port)
				}
			}
			return dialer.DialContext(ctx, network, addr)
		},
		MaxIdleConnsPerHost: 4,
	}
	return &http.Client{Transport: tr, Timeout: 60 * time.Second}
}

// RMGetJSON GETs RM_WEB+path (e.g. "/ws/v1/cluster/nodes") and decodes the JSON answer into v.
func (c *Cluster) RMGetJSON(ctx context.Context, path string, v any) error {
	return c.getJSON(ctx, c.RMWeb+path, v)
}

func (c *Cluster) getJSON(ctx context.Context, u string, v any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return fmt.Errorf("new request %s: %w", u, err)
	}
	req.Header.Set("Accept", "application/json")
	resp, err := c.HTTPClient().Do(req)
	if err != nil {
		return fmt.Errorf("GET %s: %w", u, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	if err != nil {
		return fmt.Errorf("GET %s: read body: %w", u, err)
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: status %d: %.300s", u, resp.StatusCode, body)
	}
	if err := json.Unmarshal(body, v); err != nil {
		return fmt.Errorf("GET %s: decode: %w (body %.300s)", u, err, body)
	}
	return nil
}

// BlockLocation is one entry of WebHDFS GETFILEBLOCKLOCATIONS.
type BlockLocation struct {
	Offset        int64    `json:"offset"`
	Length        int64    `json:"length"`
	Hosts         []string `json:"hosts"`
	Names         []string `json:"names"`
	TopologyPaths []string `json:"topologyPaths"`
}

// BlockLocations asks the NameNode (WebHDFS GETFILEBLOCKLOCATIONS) where the blocks of an
// HDFS file are.
func (c *Cluster) BlockLocations(ctx context.Context, path string) ([]BlockLocation, error) {
	q := url.Values{"op": {"GETFILEBLOCKLOCATIONS"}, "user.name": {"rmsidecar"}}
	u := c.WebHDFS + path + "?" + q.Encode()
	var out struct {
		BlockLocations struct {
			BlockLocation []BlockLocation `json:"BlockLocation"`
		} `json:"BlockLocations"`
	}
	if err := c.getJSON(ctx, u, &out); err != nil {
		return nil, fmt.Errorf("block locations of %s: %w", path, err)
	}
	return out.BlockLocations.BlockLocation, nil
}

// Control sends one command to the harness JVM over its control directory (see ctl.sh) and
// returns the answer; an answer that does not start with "OK" is an error.
// Commands: ping, restart-namenode [down_ms], stop-namenode, start-namenode,
// restart-datanode INDEX [down_ms], restart-resourcemanager, stop-nodemanager INDEX, stop.
func (c *Cluster) Control(ctx context.Context, command string) (string, error) {
	id := fmt.Sprintf("go-%d-%d-%x", time.Now().UnixNano(), os.Getpid(), rand.Uint64())
	tmp := filepath.Join(c.ControlDir, id+".tmp")
	req := filepath.Join(c.ControlDir, id+".req")
	resp := filepath.Join(c.ControlDir, id+".resp")
	if err := os.WriteFile(tmp, []byte(command+"\n"), 0o644); err != nil {
		return "", fmt.Errorf("control %q: %w", command, err)
	}
	if err := os.Rename(tmp, req); err != nil {
		return "", fmt.Errorf("control %q: %w", command, err)
	}
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	for {
		b, err := os.ReadFile(resp)
		if err == nil {
			_ = os.Remove(resp)
			answer := strings.TrimSpace(string(b))
			if !strings.HasPrefix(answer, "OK") {
				return answer, fmt.Errorf("control %q: %s", command, answer)
			}
			return answer, nil
		}
		select {
		case <-ctx.Done():
			_ = os.Remove(req)
			return "", fmt.Errorf("control %q: %w", command, ctx.Err())
		case <-tick.C:
		}
	}
}

// RestartNameNode restarts the NameNode on the same ports; it stays down for down.
func (c *Cluster) RestartNameNode(ctx context.Context, down time.Duration) error {
	_, err := c.Control(ctx, "restart-namenode "+strconv.FormatInt(down.Milliseconds(), 10))
	return err
}

// RestartKafka stops the broker JVM, keeps it down for down, and starts it again on the same
// port and log dirs (kafka-restart.sh); it returns when the broker answers metadata requests.
func (c *Cluster) RestartKafka(ctx context.Context, down time.Duration) error {
	if c.ScriptsDir == "" {
		return errors.New("restart kafka: scripts dir unknown (set RMSIDECAR_CLUSTER_SCRIPTS)")
	}
	secs := strconv.FormatFloat(down.Seconds(), 'f', 1, 64)
	cmd := exec.CommandContext(ctx, "bash", filepath.Join(c.ScriptsDir, "kafka-restart.sh"), c.RunDir, secs)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("kafka-restart.sh: %w: %s", err, out)
	}
	return nil
}

// WordCountResult is what SubmitWordCount reports.
type WordCountResult struct {
	AppID  string
	JobID  string
	State  string // SUCCEEDED, FAILED, KILLED; empty with --no-wait
	Output string // combined stdout and stderr of the submitter
}

// SubmitWordCount runs the harness's SubmitWordCount main (stock hadoop-mapreduce-examples
// wordcount classes) against the cluster: args are its flags then INPUT OUTPUT, e.g.
// "--generate-files", "2", "/in", "/out". It waits for the job unless "--no-wait" is given.
func (c *Cluster) SubmitWordCount(ctx context.Context, args ...string) (WordCountResult, error) {
	if len(c.WordCountCmd) == 0 {
		return WordCountResult{}, errors.New("submit wordcount: cluster file has no wordcount_cmd")
	}
	return c.runSubmitter(ctx, append(append([]string{}, c.WordCountCmd...), args...))
}

func (c *Cluster) runSubmitter(ctx context.Context, argv []string) (WordCountResult, error) {
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	var buf bytes.Buffer
	cmd.Stdout = &buf
	cmd.Stderr = &buf
	runErr := cmd.Run()
	res := WordCountResult{Output: buf.String()}
	sc := bufio.NewScanner(strings.NewReader(res.Output))
	sc.Buffer(make([]byte, 0, 64*1024), 4<<20)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "APPID "):
			res.AppID = strings.TrimSpace(strings.TrimPrefix(line, "APPID "))
		case strings.HasPrefix(line, "JOBID "):
			res.JobID = strings.TrimSpace(strings.TrimPrefix(line, "JOBID "))
		case strings.HasPrefix(line, "STATE "):
			res.State = strings.TrimSpace(strings.TrimPrefix(line, "STATE "))
		}
	}
	if runErr != nil {
		return res, fmt.Errorf("submit job: %w", runErr)
	}
	return res, nil
}

// SubmitSleepJob runs the harness's SubmitSleepJob main (tasks that only sleep, stragglers on
// demand) with the given flags; see its javadoc. It waits unless "--no-wait" is given.
func (c *Cluster) SubmitSleepJob(ctx context.Context, args ...string) (WordCountResult, error) {
	if len(c.WordCountCmd) == 0 {
		return WordCountResult{}, errors.New("submit sleep job: cluster file has no wordcount_cmd")
	}
	argv := make([]string, 0, len(c.WordCountCmd)+len(args))
	for _, a := range c.WordCountCmd {
		if a == "org.rmsidecar.harness.SubmitWordCount" {
			a = "org.rmsidecar.harness.SubmitSleepJob"
		}
		argv = append(argv, a)
	}
	return c.runSubmitter(ctx, append(argv, args...))
}

// HDFSClient returns a native HDFS client configured from the harness's conf dir
// (core-site.xml, hdfs-site.xml), acting as user. Datanodes are dialed by IP.
func (c *Cluster) HDFSClient(user string) (*hdfs.Client, error) {
	conf, err := hadoopconf.Load(c.ConfDir)
	if err != nil {
		return nil, fmt.Errorf("load hadoop conf %s: %w", c.ConfDir, err)
	}
	opts := hdfs.ClientOptionsFromConf(conf)
	if len(opts.Addresses) == 0 {
		return nil, fmt.Errorf("hadoop conf %s names no namenode", c.ConfDir)
	}
	opts.User = user
	client, err := hdfs.NewClient(opts)
	if err != nil {
		return nil, fmt.Errorf("hdfs client for %v: %w", opts.Addresses, err)
	}
	return client, nil
}

// ErrAMNotRunning is returned by AMGetJSON while the RM proxy has no running MR AM to forward
// to (the app is not yet RUNNING or already finished: the proxy redirects to the RM app page).
var ErrAMNotRunning = errors.New("MapReduce AM not reachable through the RM proxy")

// AMGetJSON GETs the MapReduce AM REST API of a running app through the RM web proxy,
// RM_WEB/proxy/{appID}/ws/v1/mapreduce + path (e.g. "/jobs"), and decodes it into v.
func (c *Cluster) AMGetJSON(ctx context.Context, appID, path string, v any) error {
	u := c.RMWeb + "/proxy/" + appID + "/ws/v1/mapreduce" + path
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return fmt.Errorf("new request %s: %w", u, err)
	}
	req.Header.Set("Accept", "application/json")
	hc := c.HTTPClient()
	hc.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	resp, err := hc.Do(req)
	if err != nil {
		return fmt.Errorf("GET %s: %w", u, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	if err != nil {
		return fmt.Errorf("GET %s: read body: %w", u, err)
	}
	if resp.StatusCode != http.StatusOK || !strings.Contains(resp.Header.Get("Content-Type"), "json") {
		return fmt.Errorf("GET %s: status %d: %w", u, resp.StatusCode, ErrAMNotRunning)
	}
	if err := json.Unmarshal(body, v); err != nil {
		return fmt.Errorf("GET %s: decode: %w (body %.300s)", u, err, body)
	}
	return nil
}

// AppState is the RM's view of an application.
type AppState struct {
	State       string  `json:"state"`
	FinalStatus string  `json:"finalStatus"`
	Progress    float64 `json:"progress"`
}

// App returns the RM's state of an application (/ws/v1/cluster/apps/{id}).
func (c *Cluster) App(ctx context.Context, appID string) (AppState, error) {
	var out struct {
		App AppState `json:"app"`
	}
	if err := c.RMGetJSON(ctx, "/ws/v1/cluster/apps/"+appID, &out); err != nil {
		return AppState{}, err
	}
	return out.App, nil
}

// WaitApp polls the RM every interval until the application is FINISHED, FAILED or KILLED.
func (c *Cluster) WaitApp(ctx context.Context, appID string, interval time.Duration) (AppState, error) {
	tick := time.NewTicker(interval)
	defer tick.Stop()
	for {
		st, err := c.App(ctx, appID)
		if err == nil {
			switch st.State {
			case "FINISHED", "FAILED", "KILLED":
				return st, nil
			}
		}
		select {
		case <-ctx.Done():
			return st, fmt.Errorf("wait for %s (last state %q, last error %v): %w", appID, st.State, err, ctx.Err())
		case <-tick.C:
		}
	}
}
