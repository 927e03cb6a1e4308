package yarnclient

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// ClusterInfo is GET /ws/v1/cluster/info.
type ClusterInfo struct {
	ID                            int64  `json:"id"`
	StartedOn                     int64  `json:"startedOn"`
	State                         string `json:"state"`
	HAState                       string `json:"haState"`
	HAZooKeeperConnectionState    string `json:"haZooKeeperConnectionState"`
	ResourceManagerVersion        string `json:"resourceManagerVersion"`
	ResourceManagerBuildVersion   string `json:"resourceManagerBuildVersion"`
	HadoopVersion                 string `json:"hadoopVersion"`
	HadoopBuildVersion            string `json:"hadoopBuildVersion"`
	RMStateStoreName              string `json:"rmStateStoreName"`
	ResourceManagerVersionBuiltOn string `json:"resourceManagerVersionBuiltOn"`
	HadoopVersionBuiltOn          string `json:"hadoopVersionBuiltOn"`
}

// ClusterMetrics is GET /ws/v1/cluster/metrics.
type ClusterMetrics struct {
	AppsSubmitted         int64 `json:"appsSubmitted"`
	AppsCompleted         int64 `json:"appsCompleted"`
	AppsPending           int64 `json:"appsPending"`
	AppsRunning           int64 `json:"appsRunning"`
	AppsFailed            int64 `json:"appsFailed"`
	AppsKilled            int64 `json:"appsKilled"`
	ReservedMB            int64 `json:"reservedMB"`
	AvailableMB           int64 `json:"availableMB"`
	AllocatedMB           int64 `json:"allocatedMB"`
	PendingMB             int64 `json:"pendingMB"`
	TotalMB               int64 `json:"totalMB"`
	ReservedVirtualCores  int64 `json:"reservedVirtualCores"`
	AvailableVirtualCores int64 `json:"availableVirtualCores"`
	AllocatedVirtualCores int64 `json:"allocatedVirtualCores"`
	PendingVirtualCores   int64 `json:"pendingVirtualCores"`
	TotalVirtualCores     int64 `json:"totalVirtualCores"`
	ContainersAllocated   int64 `json:"containersAllocated"`
	ContainersReserved    int64 `json:"containersReserved"`
	ContainersPending     int64 `json:"containersPending"`
	TotalNodes            int64 `json:"totalNodes"`
	ActiveNodes           int64 `json:"activeNodes"`
	LostNodes             int64 `json:"lostNodes"`
	UnhealthyNodes        int64 `json:"unhealthyNodes"`
	DecommissioningNodes  int64 `json:"decommissioningNodes"`
	DecommissionedNodes   int64 `json:"decommissionedNodes"`
	RebootedNodes         int64 `json:"rebootedNodes"`
	ShutdownNodes         int64 `json:"shutdownNodes"`
}

// Resource is Hadoop's ResourceInfo: memory in MB and virtual cores.
type Resource struct {
	MemoryMB int64 `json:"memory"`
	VCores   int64 `json:"vCores"`
}

// NodeUtilization is a node's resourceUtilization block (Hadoop 2.8+).
type NodeUtilization struct {
	NodePhysicalMemoryMB                 int64   `json:"nodePhysicalMemoryMB"`
	NodeVirtualMemoryMB                  int64   `json:"nodeVirtualMemoryMB"`
	NodeCPUUsage                         float64 `json:"nodeCPUUsage"`
	AggregatedContainersPhysicalMemoryMB int64   `json:"aggregatedContainersPhysicalMemoryMB"`
	AggregatedContainersVirtualMemoryMB  int64   `json:"aggregatedContainersVirtualMemoryMB"`
	ContainersCPUUsage                   float64 `json:"containersCPUUsage"`
}

// Node states as the RM reports them (and accepts in the states filter).
const (
	NodeNew             = "NEW"
	NodeRunning         = "RUNNING"
	NodeUnhealthy       = "UNHEALTHY"
	NodeDecommissioning = "DECOMMISSIONING"
	NodeDecommissioned  = "DECOMMISSIONED"
	NodeLost            = "LOST"
	NodeRebooted        = "REBOOTED"
	NodeShutdown        = "SHUTDOWN"
)

// Node is one element of GET /ws/v1/cluster/nodes.
type Node struct {
	ID                    string           `json:"id"` // host:port, the RM's NodeId
	Rack                  string           `json:"rack"`
	State                 string           `json:"state"`
	NodeHostName          string           `json:"nodeHostName"`
	NodeHTTPAddress       string           `json:"nodeHTTPAddress"`
	HealthStatus          string           `json:"healthStatus"`
	HealthReport          string           `json:"healthReport"`
	LastHealthUpdate      int64            `json:"lastHealthUpdate"`
	Version               string           `json:"version"`
	NumContainers         int64            `json:"numContainers"`
	UsedMemoryMB          int64            `json:"usedMemoryMB"`
	AvailMemoryMB         int64            `json:"availMemoryMB"`
	UsedVirtualCores      int64            `json:"usedVirtualCores"`
	AvailableVirtualCores int64            `json:"availableVirtualCores"`
	NodeLabels            Strings          `json:"nodeLabels"`
	TotalResource         *Resource        `json:"totalResource,omitempty"`
	UsedResource          *Resource        `json:"usedResource,omitempty"`
	AvailableResource     *Resource        `json:"availableResource,omitempty"`
	ResourceUtilization   *NodeUtilization `json:"resourceUtilization,omitempty"`
}

// Capacity returns the node's total resource: totalResource when the RM
// reports it (Hadoop 3), used+available otherwise.
func (n Node) Capacity() Resource {
	if n.TotalResource != nil && (n.TotalResource.MemoryMB > 0 || n.TotalResource.VCores > 0) {
		return *n.TotalResource
	}
	return Resource{MemoryMB: n.UsedMemoryMB + n.AvailMemoryMB, VCores: n.UsedVirtualCores + n.AvailableVirtualCores}
}

// Application states (YarnApplicationState).
const (
	AppNew       = "NEW"
	AppNewSaving = "NEW_SAVING"
	AppSubmitted = "SUBMITTED"
	AppAccepted  = "ACCEPTED"
	AppRunning   = "RUNNING"
	AppFinished  = "FINISHED"
	AppFailed    = "FAILED"
	AppKilled    = "KILLED"
)

// App is one element of GET /ws/v1/cluster/apps (and GET apps/{id}).
type App struct {
	ID                     string  `json:"id"`
	User                   string  `json:"user"`
	Name                   string  `json:"name"`
	Queue                  string  `json:"queue"`
	State                  string  `json:"state"`
	FinalStatus            string  `json:"finalStatus"`
	Progress               float64 `json:"progress"` // percent, 0..100
	TrackingUI             string  `json:"trackingUI"`
	TrackingURL            string  `json:"trackingUrl"`
	Diagnostics            string  `json:"diagnostics"`
	ClusterID              int64   `json:"clusterId"`
	ApplicationType        string  `json:"applicationType"`
	ApplicationTags        string  `json:"applicationTags"`
	Priority               int     `json:"priority"`
	ApplicationPriority    int     `json:"applicationPriority"`
	StartedTime            int64   `json:"startedTime"`
	LaunchTime             int64   `json:"launchTime"`
	FinishedTime           int64   `json:"finishedTime"`
	ElapsedTime            int64   `json:"elapsedTime"`
	AMContainerLogs        string  `json:"amContainerLogs"`
	AMHostHTTPAddress      string  `json:"amHostHttpAddress"`
	AMRPCAddress           string  `json:"amRPCAddress"`
	AllocatedMB            int64   `json:"allocatedMB"`
	AllocatedVCores        int64   `json:"allocatedVCores"`
	ReservedMB             int64   `json:"reservedMB"`
	ReservedVCores         int64   `json:"reservedVCores"`
	RunningContainers      int64   `json:"runningContainers"`
	MemorySeconds          int64   `json:"memorySeconds"`
	VcoreSeconds           int64   `json:"vcoreSeconds"`
	QueueUsagePercentage   float64 `json:"queueUsagePercentage"`
	ClusterUsagePercentage float64 `json:"clusterUsagePercentage"`
	UnmanagedApplication   Bool    `json:"unmanagedApplication"`
	AppNodeLabelExpression string  `json:"appNodeLabelExpression"`
	AMNodeLabelExpression  string  `json:"amNodeLabelExpression"`
}

// Tags splits ApplicationTags (a comma-separated string).
func (a App) Tags() []string {
	if strings.TrimSpace(a.ApplicationTags) == "" {
		return nil
	}
	var out []string
	for _, t := range strings.Split(a.ApplicationTags, ",") {
		if t = strings.TrimSpace(t); t != "" {
			out = append(out, t)
		}
	}
	return out
}

// IsMapReduce reports whether the app is a MapReduce job (one whose AM
// serves /ws/v1/mapreduce).
func (a App) IsMapReduce() bool { return strings.EqualFold(a.ApplicationType, "MAPREDUCE") }

// Finished reports whether the app reached a terminal state.
func (a App) Finished() bool {
	return a.State == AppFinished || a.State == AppFailed || a.State == AppKilled
}

// AppAttempt is one element of GET apps/{id}/appattempts.
type AppAttempt struct {
	ID                       int    `json:"id"`           // attempt number (1, 2, ...)
	AppAttemptID             string `json:"appAttemptId"` // appattempt_<cluster>_<app>_<n> (Hadoop 2.8+)
	StartTime                int64  `json:"startTime"`
	FinishedTime             int64  `json:"finishedTime"`
	ContainerID              string `json:"containerId"` // AM container
	NodeHTTPAddress          string `json:"nodeHttpAddress"`
	NodeID                   string `json:"nodeId"`
	LogsLink                 string `json:"logsLink"`
	BlacklistedNodes         string `json:"blacklistedNodes"`
	NodesBlacklistedBySystem string `json:"nodesBlacklistedBySystem"`
	AppAttemptState          string `json:"appAttemptState"`
}

// Container is one element of GET apps/{id}/appattempts/{attempt}/containers.
type Container struct {
	ContainerID         string `json:"containerId"`
	AllocatedMB         int64  `json:"allocatedMB"`
	AllocatedVCores     int64  `json:"allocatedVCores"`
	AssignedNodeID      string `json:"assignedNodeId"`
	Priority            int    `json:"priority"`
	StartedTime         int64  `json:"startedTime"`
	FinishedTime        int64  `json:"finishedTime"`
	ElapsedTime         int64  `json:"elapsedTime"`
	DiagnosticsInfo     string `json:"diagnosticsInfo"`
	LogURL              string `json:"logUrl"`
	ContainerExitStatus int    `json:"containerExitStatus"`
	ContainerState      string `json:"containerState"`
	NodeHTTPAddress     string `json:"nodeHttpAddress"`
	NodeID              string `json:"nodeId"`
}

// UnmarshalJSON accepts the numbers as numbers or strings: Hadoop 3.4.2's
// ContainerInfo renders every number quoted ("allocatedMB":"384").
func (c *Container) UnmarshalJSON(b []byte) error {
	type plain Container
	var w struct {
		plain
		AllocatedMB         flexInt `json:"allocatedMB"`
		AllocatedVCores     flexInt `json:"allocatedVCores"`
		Priority            flexInt `json:"priority"`
		StartedTime         flexInt `json:"startedTime"`
		FinishedTime        flexInt `json:"finishedTime"`
		ElapsedTime         flexInt `json:"elapsedTime"`
		ContainerExitStatus flexInt `json:"containerExitStatus"`
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*c = Container(w.plain)
	c.AllocatedMB, c.AllocatedVCores = int64(w.AllocatedMB), int64(w.AllocatedVCores)
	c.Priority, c.ContainerExitStatus = int(w.Priority), int(w.ContainerExitStatus)
	c.StartedTime, c.FinishedTime, c.ElapsedTime = int64(w.StartedTime), int64(w.FinishedTime), int64(w.ElapsedTime)
	return nil
}

// flexInt is an integer that may come quoted.
type flexInt int64

func (v *flexInt) UnmarshalJSON(b []byte) error {
	s := strings.Trim(strings.TrimSpace(string(b)), `"`)
	if s == "" || s == "null" {
		*v = 0
		return nil
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return fmt.Errorf("integer %s: %w", b, err)
	}
	*v = flexInt(n)
	return nil
}

// Node returns the container's node id (nodeId, or assignedNodeId on
// versions that only report that).
func (c Container) Node() string {
	if c.NodeID != "" {
		return c.NodeID
	}
	return c.AssignedNodeID
}

// NodeLabel is a cluster node label (get-node-labels, add-node-labels).
type NodeLabel struct {
	Name        string `json:"name"`
	Exclusivity bool   `json:"exclusivity"`
}

// UnmarshalJSON accepts exclusivity as a boolean or a string: Hadoop 3.4's
// get-node-labels renders it "true"/"false".
func (l *NodeLabel) UnmarshalJSON(b []byte) error {
	var w struct {
		Name        string `json:"name"`
		Exclusivity Bool   `json:"exclusivity"`
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	l.Name, l.Exclusivity = w.Name, bool(w.Exclusivity)
	return nil
}

// Queue is one scheduler queue. Capacity Scheduler and Fair Scheduler
// fields share the struct; the ones a scheduler does not report stay zero.
type Queue struct {
	QueueName string `json:"queueName"`
	Type      string `json:"type"` // e.g. capacitySchedulerLeafQueueInfo
	State     string `json:"state"`
	// Capacity Scheduler, percentages.
	Capacity               Float     `json:"capacity"`
	UsedCapacity           Float     `json:"usedCapacity"`
	MaxCapacity            Float     `json:"maxCapacity"`
	AbsoluteCapacity       Float     `json:"absoluteCapacity"`
	AbsoluteMaxCapacity    Float     `json:"absoluteMaxCapacity"`
	AbsoluteUsedCapacity   Float     `json:"absoluteUsedCapacity"`
	NumApplications        int64     `json:"numApplications"`
	NumActiveApplications  int64     `json:"numActiveApplications"`
	NumPendingApplications int64     `json:"numPendingApplications"`
	NumContainers          int64     `json:"numContainers"`
	MaxApplications        int64     `json:"maxApplications"`
	ResourcesUsed          *Resource `json:"resourcesUsed,omitempty"`
	// Fair Scheduler.
	MaxApps          int64     `json:"maxApps"`
	MinResources     *Resource `json:"minResources,omitempty"`
	MaxResources     *Resource `json:"maxResources,omitempty"`
	UsedResources    *Resource `json:"usedResources,omitempty"`
	FairResources    *Resource `json:"fairResources,omitempty"`
	SchedulingPolicy string    `json:"schedulingPolicy"`
	NumActiveApps    int64     `json:"numActiveApps"`
	NumPendingApps   int64     `json:"numPendingApps"`
	// Children are the sub-queues ("queues" in Capacity, "childQueues" in
	// Fair); empty for a leaf.
	Children []Queue `json:"-"`
}

// UnmarshalJSON decodes a queue and its sub-queues from either scheduler's
// shape. usedResources is a string in Capacity Scheduler ("<memory:0,
// vCores:0>") and an object in Fair Scheduler; the string form is dropped.
func (q *Queue) UnmarshalJSON(b []byte) error {
	type plain Queue
	var aux struct {
		plain
		UsedResources json.RawMessage `json:"usedResources"`
		Queues        *struct {
			Queue list[Queue] `json:"queue"`
		} `json:"queues"`
		ChildQueues *struct {
			Queue list[Queue] `json:"queue"`
		} `json:"childQueues"`
	}
	if err := json.Unmarshal(b, &aux); err != nil {
		return err
	}
	*q = Queue(aux.plain)
	if len(aux.UsedResources) > 0 && aux.UsedResources[0] == '{' {
		var r Resource
		if err := json.Unmarshal(aux.UsedResources, &r); err != nil {
			return err
		}
		q.UsedResources = &r
	}
	if aux.Queues != nil {
		q.Children = append(q.Children, aux.Queues.Queue...)
	}
	if aux.ChildQueues != nil {
		q.Children = append(q.Children, aux.ChildQueues.Queue...)
	}
	return nil
}

// IsLeaf reports whether q has no sub-queues.
func (q Queue) IsLeaf() bool { return len(q.Children) == 0 }

// Walk calls fn for q and every queue below it, depth first, parents first.
func (q *Queue) Walk(fn func(q *Queue)) {
	fn(q)
	for i := range q.Children {
		q.Children[i].Walk(fn)
	}
}

// Scheduler types reported in SchedulerInfo.Type.
const (
	SchedulerCapacity = "capacityScheduler"
	SchedulerFair     = "fairScheduler"
	SchedulerFifo     = "fifoScheduler"
)

// SchedulerInfo is GET /ws/v1/cluster/scheduler, reduced to the queue tree.
type SchedulerInfo struct {
	Type string
	// Root is the root queue (for FIFO a single pseudo queue "default").
	Root Queue
}

// Leaves returns the leaf queues, in tree order.
func (s *SchedulerInfo) Leaves() []*Queue {
	var out []*Queue
	s.Root.Walk(func(q *Queue) {
		if q.IsLeaf() {
			out = append(out, q)
		}
	})
	return out
}

// Find returns the queue named name (full "root.a.b" for Fair, short "b"
// for Capacity), or nil.
func (s *SchedulerInfo) Find(name string) *Queue {
	var found *Queue
	s.Root.Walk(func(q *Queue) {
		if found == nil && q.QueueName == name {
			found = q
		}
	})
	return found
}
