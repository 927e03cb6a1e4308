package yarnclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

const clusterPath = "/ws/v1/cluster"

func seg(s string) string { return url.PathEscape(s) }

// Info returns GET /ws/v1/cluster/info. A standby RM answers this call
// itself (it is not redirected), so HAState tells which RM is active.
func (c *Client) Info(ctx context.Context) (*ClusterInfo, error) {
	var w struct {
		ClusterInfo *ClusterInfo `json:"clusterInfo"`
	}
	if err := c.get(ctx, "Info", clusterPath+"/info", nil, &w); err != nil {
		return nil, err
	}
	if w.ClusterInfo == nil {
		return nil, fmt.Errorf("yarnclient: Info: answer has no clusterInfo")
	}
	return w.ClusterInfo, nil
}

// Metrics returns GET /ws/v1/cluster/metrics.
func (c *Client) Metrics(ctx context.Context) (*ClusterMetrics, error) {
	var w struct {
		ClusterMetrics *ClusterMetrics `json:"clusterMetrics"`
	}
	if err := c.get(ctx, "Metrics", clusterPath+"/metrics", nil, &w); err != nil {
		return nil, err
	}
	if w.ClusterMetrics == nil {
		return nil, fmt.Errorf("yarnclient: Metrics: answer has no clusterMetrics")
	}
	return w.ClusterMetrics, nil
}

// Scheduler returns the scheduler type and queue tree from GET
// /ws/v1/cluster/scheduler (Capacity, Fair or FIFO).
func (c *Client) Scheduler(ctx context.Context) (*SchedulerInfo, error) {
	var w struct {
		Scheduler *struct {
			SchedulerInfo json.RawMessage `json:"schedulerInfo"`
		} `json:"scheduler"`
	}
	if err := c.get(ctx, "Scheduler", clusterPath+"/scheduler", nil, &w); err != nil {
		return nil, err
	}
	if w.Scheduler == nil || len(w.Scheduler.SchedulerInfo) == 0 || string(w.Scheduler.SchedulerInfo) == "null" {
		return nil, fmt.Errorf("yarnclient: Scheduler: answer has no scheduler.schedulerInfo")
	}
	var head struct {
		Type      string          `json:"type"`
		RootQueue json.RawMessage `json:"rootQueue"`
	}
	if err := json.Unmarshal(w.Scheduler.SchedulerInfo, &head); err != nil {
		return nil, fmt.Errorf("yarnclient: Scheduler: decode schedulerInfo: %w", err)
	}
	out := &SchedulerInfo{Type: head.Type}
	if len(head.RootQueue) > 0 && string(head.RootQueue) != "null" { // Fair Scheduler
		if err := json.Unmarshal(head.RootQueue, &out.Root); err != nil {
			return nil, fmt.Errorf("yarnclient: Scheduler: decode rootQueue: %w", err)
		}
		return out, nil
	}
	// Capacity: schedulerInfo is the root queue. FIFO: one pseudo queue.
	if err := json.Unmarshal(w.Scheduler.SchedulerInfo, &out.Root); err != nil {
		return nil, fmt.Errorf("yarnclient: Scheduler: decode schedulerInfo: %w", err)
	}
	out.Root.Type = ""
	if out.Root.QueueName == "" {
		out.Root.QueueName = "default"
	}
	return out, nil
}

// NodesFilter narrows Nodes. The zero value lists the RM's default set
// (every node but the DECOMMISSIONED/LOST ones on most versions).
type NodesFilter struct {
	// States keeps nodes in these states (NodeRunning, NodeLost, ...).
	States []string
}

// Nodes returns GET /ws/v1/cluster/nodes?states=...
func (c *Client) Nodes(ctx context.Context, f NodesFilter) ([]Node, error) {
	q := url.Values{}
	if len(f.States) > 0 {
		q.Set("states", strings.Join(f.States, ","))
	}
	var w struct {
		Nodes *struct {
			Node list[Node] `json:"node"`
		} `json:"nodes"`
	}
	if err := c.get(ctx, "Nodes", clusterPath+"/nodes", q, &w); err != nil {
		return nil, err
	}
	if w.Nodes == nil {
		return nil, nil
	}
	return w.Nodes.Node, nil
}

// Node returns GET /ws/v1/cluster/nodes/{nodeId}.
func (c *Client) Node(ctx context.Context, nodeID string) (*Node, error) {
	var w struct {
		Node *Node `json:"node"`
	}
	if err := c.get(ctx, "Node", clusterPath+"/nodes/"+seg(nodeID), nil, &w); err != nil {
		return nil, err
	}
	if w.Node == nil {
		return nil, fmt.Errorf("yarnclient: Node %s: answer has no node", nodeID)
	}
	return w.Node, nil
}

// AppsFilter narrows Apps; zero fields are not sent. Times are epoch ms.
type AppsFilter struct {
	States            []string // AppRunning, AppAccepted, ...
	FinalStatus       string
	User              string
	Queue             string
	Limit             int
	StartedTimeBegin  int64
	StartedTimeEnd    int64
	FinishedTimeBegin int64
	FinishedTimeEnd   int64
	ApplicationTypes  []string // e.g. MAPREDUCE
	ApplicationTags   []string
	// DeSelects drops heavy fields from the answer (Hadoop 3:
	// "resourceRequests", "timeouts", "appNodeLabelExpression",
	// "amNodeLabelExpression", "resourceInfo"); a poller wants
	// DeSelects: []string{"resourceRequests"}.
	DeSelects []string
}

func (f AppsFilter) values() url.Values {
	q := url.Values{}
	set := func(k, v string) {
		if v != "" {
			q.Set(k, v)
		}
	}
	setInt := func(k string, v int64) {
		if v > 0 {
			q.Set(k, strconv.FormatInt(v, 10))
		}
	}
	set("states", strings.Join(f.States, ","))
	set("finalStatus", f.FinalStatus)
	set("user", f.User)
	set("queue", f.Queue)
	setInt("limit", int64(f.Limit))
	setInt("startedTimeBegin", f.StartedTimeBegin)
	setInt("startedTimeEnd", f.StartedTimeEnd)
	setInt("finishedTimeBegin", f.FinishedTimeBegin)
	setInt("finishedTimeEnd", f.FinishedTimeEnd)
	set("applicationTypes", strings.Join(f.ApplicationTypes, ","))
	set("applicationTags", strings.Join(f.ApplicationTags, ","))
	for _, d := range f.DeSelects {
		q.Add("deSelects", d)
	}
	return q
}

// Apps returns GET /ws/v1/cluster/apps with the filter's query parameters.
func (c *Client) Apps(ctx context.Context, f AppsFilter) ([]App, error) {
	var w struct {
		Apps *struct {
			App list[App] `json:"app"`
		} `json:"apps"`
	}
	if err := c.get(ctx, "Apps", clusterPath+"/apps", f.values(), &w); err != nil {
		return nil, err
	}
	if w.Apps == nil {
		return nil, nil
	}
	return w.Apps.App, nil
}

// App returns GET /ws/v1/cluster/apps/{appId}.
func (c *Client) App(ctx context.Context, appID string) (*App, error) {
	var w struct {
		App *App `json:"app"`
	}
	if err := c.get(ctx, "App", clusterPath+"/apps/"+seg(appID), nil, &w); err != nil {
		return nil, err
	}
	if w.App == nil {
		return nil, fmt.Errorf("yarnclient: App %s: answer has no app", appID)
	}
	return w.App, nil
}

// AppAttempts returns GET /ws/v1/cluster/apps/{appId}/appattempts.
func (c *Client) AppAttempts(ctx context.Context, appID string) ([]AppAttempt, error) {
	var w struct {
		AppAttempts *struct {
			AppAttempt list[AppAttempt] `json:"appAttempt"`
		} `json:"appAttempts"`
	}
	if err := c.get(ctx, "AppAttempts", clusterPath+"/apps/"+seg(appID)+"/appattempts", nil, &w); err != nil {
		return nil, err
	}
	if w.AppAttempts == nil {
		return nil, nil
	}
	return w.AppAttempts.AppAttempt, nil
}

// Containers returns the live containers of one application attempt: GET
// /ws/v1/cluster/apps/{appId}/appattempts/{appAttemptId}/containers, where
// appAttemptID is the full "appattempt_..." id (AppAttempt.AppAttemptID).
func (c *Client) Containers(ctx context.Context, appID, appAttemptID string) ([]Container, error) {
	var w struct {
		Containers *struct {
			Container list[Container] `json:"container"`
		} `json:"containers"`
		// Hadoop 3.4 (ContainersInfo) has no "containers" wrapper:
		// {"container":[...]}.
		Container list[Container] `json:"container"`
	}
	p := clusterPath + "/apps/" + seg(appID) + "/appattempts/" + seg(appAttemptID) + "/containers"
	if err := c.get(ctx, "Containers", p, nil, &w); err != nil {
		return nil, err
	}
	if w.Containers == nil {
		return w.Container, nil
	}
	return append(w.Containers.Container, w.Container...), nil
}

// ClusterNodeLabels returns GET /ws/v1/cluster/get-node-labels.
func (c *Client) ClusterNodeLabels(ctx context.Context) ([]NodeLabel, error) {
	var w struct {
		NodeLabelInfo list[NodeLabel] `json:"nodeLabelInfo"`
		// Hadoop 2.7 and earlier: {"nodeLabels":["a","b"]}
		NodeLabels Strings `json:"nodeLabels"`
	}
	if err := c.get(ctx, "ClusterNodeLabels", clusterPath+"/get-node-labels", nil, &w); err != nil {
		return nil, err
	}
	out := []NodeLabel(w.NodeLabelInfo)
	for _, n := range w.NodeLabels {
		out = append(out, NodeLabel{Name: n, Exclusivity: true})
	}
	return out, nil
}

// AppState returns GET /ws/v1/cluster/apps/{appId}/state.
func (c *Client) AppState(ctx context.Context, appID string) (string, error) {
	var w struct {
		State string `json:"state"`
	}
	if err := c.get(ctx, "AppState", clusterPath+"/apps/"+seg(appID)+"/state", nil, &w); err != nil {
		return "", err
	}
	return w.State, nil
}

// AppPriority returns GET /ws/v1/cluster/apps/{appId}/priority.
func (c *Client) AppPriority(ctx context.Context, appID string) (int, error) {
	var w struct {
		Priority int `json:"priority"`
	}
	if err := c.get(ctx, "AppPriority", clusterPath+"/apps/"+seg(appID)+"/priority", nil, &w); err != nil {
		return 0, err
	}
	return w.Priority, nil
}

// ---- writes ----

// NoOverCommitTimeout is the overCommitTimeout that lets running containers
// finish when a node's capacity shrinks (-1: wait forever, kill nothing).
const NoOverCommitTimeout = -1

// UpdateNodeResource sets a node's schedulable capacity: POST
// /ws/v1/cluster/nodes/{nodeId}/resource with
// {"resource":{"memory":..,"vCores":..},"overCommitTimeout":..}. The
// timeout (seconds) is how long over-committed containers may keep running;
// pass NoOverCommitTimeout to never preempt. It returns the capacity the RM
// reports back.
func (c *Client) UpdateNodeResource(ctx context.Context, nodeID string, r Resource, overCommitTimeout int) (*Resource, error) {
	body := struct {
		Resource          Resource `json:"resource"`
		OverCommitTimeout int      `json:"overCommitTimeout"`
	}{r, overCommitTimeout}
	var out Resource
	_, err := c.do(ctx, &call{op: "UpdateNodeResource", method: http.MethodPost,
		path: clusterPath + "/nodes/" + seg(nodeID) + "/resource", body: body, out: &out})
	if err != nil {
		return nil, err
	}
	return &out, nil
}

// AddNodeLabels adds cluster node labels: POST /ws/v1/cluster/add-node-labels
// {"nodeLabelInfo":[{"name":..,"exclusivity":..}]}. Adding an existing label
// is an error on the RM; callers check ClusterNodeLabels first.
func (c *Client) AddNodeLabels(ctx context.Context, labels []NodeLabel) error {
	body := struct {
		NodeLabelInfo []NodeLabel `json:"nodeLabelInfo"`
	}{labels}
	_, err := c.do(ctx, &call{op: "AddNodeLabels", method: http.MethodPost, path: clusterPath + "/add-node-labels", body: body})
	return err
}

// ReplaceNodeToLabels sets the labels of several nodes at once: POST
// /ws/v1/cluster/replace-node-to-labels
// {"nodeToLabels":[{"nodeId":"host:port","labels":["slow"]}]}. An empty label
// list clears a node's labels.
func (c *Client) ReplaceNodeToLabels(ctx context.Context, nodeToLabels map[string][]string) error {
	type entry struct {
		NodeID string   `json:"nodeId"`
		Labels []string `json:"labels"`
	}
	entries := make([]entry, 0, len(nodeToLabels))
	for _, id := range sortedKeys(nodeToLabels) {
		l := nodeToLabels[id]
		if l == nil {
			l = []string{}
		}
		entries = append(entries, entry{id, l})
	}
	body := struct {
		NodeToLabels []entry `json:"nodeToLabels"`
	}{entries}
	_, err := c.do(ctx, &call{op: "ReplaceNodeToLabels", method: http.MethodPost, path: clusterPath + "/replace-node-to-labels", body: body})
	return err
}

// ReplaceNodeLabels sets one node's labels: POST
// /ws/v1/cluster/nodes/{nodeId}/replace-labels?labels=a&labels=b.
func (c *Client) ReplaceNodeLabels(ctx context.Context, nodeID string, labels []string) error {
	q := url.Values{}
	for _, l := range labels {
		q.Add("labels", l)
	}
	_, err := c.do(ctx, &call{op: "ReplaceNodeLabels", method: http.MethodPost, path: clusterPath + "/nodes/" + seg(nodeID) + "/replace-labels", query: q})
	return err
}

// SetAppPriority sets a running or accepted app's priority: PUT
// /ws/v1/cluster/apps/{appId}/priority {"priority":n}. It returns the
// priority the RM reports (capped by yarn.cluster.max-application-priority).
func (c *Client) SetAppPriority(ctx context.Context, appID string, priority int) (int, error) {
	var out struct {
		Priority int `json:"priority"`
	}
	_, err := c.do(ctx, &call{op: "SetAppPriority", method: http.MethodPut,
		path: clusterPath + "/apps/" + seg(appID) + "/priority", body: struct {
			Priority int `json:"priority"`
		}{priority}, out: &out})
	if err != nil {
		return 0, err
	}
	return out.Priority, nil
}

// SignalCommand is a container signal the RM forwards to the NodeManager.
type SignalCommand string

// Signals accepted by POST containers/{id}/signal/{command}.
const (
	SignalGracefulShutdown SignalCommand = "GRACEFUL_SHUTDOWN"
	SignalForcefulShutdown SignalCommand = "FORCEFUL_SHUTDOWN"
	SignalOutputThreadDump SignalCommand = "OUTPUT_THREAD_DUMP"
)

// SignalContainer sends cmd to a container: POST
// /ws/v1/cluster/containers/{containerId}/signal/{cmd} (no body).
func (c *Client) SignalContainer(ctx context.Context, containerID string, cmd SignalCommand) error {
	switch cmd {
	case SignalGracefulShutdown, SignalForcefulShutdown, SignalOutputThreadDump:
	default:
		return fmt.Errorf("yarnclient: SignalContainer %s: unknown signal %q", containerID, cmd)
	}
	_, err := c.do(ctx, &call{op: "SignalContainer", method: http.MethodPost,
		path: clusterPath + "/containers/" + seg(containerID) + "/signal/" + string(cmd)})
	return err
}

// KillApp asks the RM to kill an app: PUT /ws/v1/cluster/apps/{appId}/state
// {"state":"KILLED"}. The RM answers 202 with the current state while the
// kill is in progress and 200 with KILLED once done; KillApp returns that
// state and done=true on 200. Call again (or poll App) until done.
func (c *Client) KillApp(ctx context.Context, appID string) (state string, done bool, err error) {
	var out struct {
		State string `json:"state"`
	}
	status, err := c.do(ctx, &call{op: "KillApp", method: http.MethodPut,
		path: clusterPath + "/apps/" + seg(appID) + "/state", body: struct {
			State string `json:"state"`
		}{AppKilled}, out: &out})
	if err != nil {
		return "", false, err
	}
	return out.State, status == http.StatusOK, nil
}

// MoveApp moves an app to another queue: PUT
// /ws/v1/cluster/apps/{appId}/queue {"queue":q}. It returns the queue the
// RM reports.
func (c *Client) MoveApp(ctx context.Context, appID, queue string) (string, error) {
	var out struct {
		Queue string `json:"queue"`
	}
	_, err := c.do(ctx, &call{op: "MoveApp", method: http.MethodPut,
		path: clusterPath + "/apps/" + seg(appID) + "/queue", body: struct {
			Queue string `json:"queue"`
		}{queue}, out: &out})
	if err != nil {
		return "", err
	}
	return out.Queue, nil
}

// FindActive asks every configured RM for /info (which a standby RM answers
// itself instead of redirecting) and makes the one whose haState is ACTIVE
// the RM tried first. It returns that RM's base URL. Calls fail over on
// their own; FindActive only saves the first failover, e.g. at start-up.
func (c *Client) FindActive(ctx context.Context) (string, error) {
	errs := []error{ErrStandby}
	for i := range c.bases {
		var w struct {
			ClusterInfo *ClusterInfo `json:"clusterInfo"`
		}
		r := c.once(ctx, i, &call{op: "FindActive", method: http.MethodGet, path: clusterPath + "/info"}, nil)
		if r.kind != outOK {
			errs = append(errs, r.err)
			continue
		}
		if err := json.Unmarshal(r.body, &w); err != nil {
			errs = append(errs, fmt.Errorf("yarnclient: FindActive: %s: decode response: %w", c.bases[i], err))
			continue
		}
		if w.ClusterInfo != nil && w.ClusterInfo.HAState == "ACTIVE" {
			c.active.Store(int32(i))
			return c.bases[i].String(), nil
		}
	}
	return "", fmt.Errorf("yarnclient: FindActive: no active resourcemanager among %d: %w", len(c.bases), errors.Join(errs...))
}
