package yarnclient

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
)

// Node labels a node-class hint maps to. YARN lets a node carry at most one
// label (YARN-2694: replace-node-to-labels with two labels on one node is an
// error), so a node slow for both phases gets a label of its own instead of
// map-slow and reduce-slow together. The labels are non-exclusive: a
// labelled node still runs containers of the default partition, the label
// only lets queues and AM-side consumers tell slow nodes apart.
const (
	LabelMapSlow       = "map-slow"
	LabelReduceSlow    = "reduce-slow"
	LabelMapReduceSlow = "map-reduce-slow"
)

// NodeClassLabels returns the node labels of a node class: none for a node
// slow for neither phase (replacing with none clears the node's label).
func NodeClassLabels(mapSlow, reduceSlow bool) []string {
	switch {
	case mapSlow && reduceSlow:
		return []string{LabelMapReduceSlow}
	case mapSlow:
		return []string{LabelMapSlow}
	case reduceSlow:
		return []string{LabelReduceSlow}
	default:
		return []string{}
	}
}

// hintRM is what HintWriter needs from the RM; *Client implements it.
type hintRM interface {
	Node(ctx context.Context, nodeID string) (*Node, error)
	UpdateNodeResource(ctx context.Context, nodeID string, r Resource, overCommitTimeout int) (*Resource, error)
	ClusterNodeLabels(ctx context.Context) ([]NodeLabel, error)
	AddNodeLabels(ctx context.Context, labels []NodeLabel) error
	ReplaceNodeToLabels(ctx context.Context, nodeToLabels map[string][]string) error
	SetAppPriority(ctx context.Context, appID string, priority int) (int, error)
	SignalContainer(ctx context.Context, containerID string, cmd SignalCommand) error
}

var _ hintRM = (*Client)(nil)

// HintWriter carries out the hints a stock ResourceManager can act on, as
// RM REST writes (it implements actuate.RMWriter):
//
//   - node-capacity -> UpdateNodeResource (a zero vcores or memory keeps the
//     node's current value, read first);
//   - node-class -> make sure the node labels exist (AddNodeLabels, once per
//     writer, non-exclusive), then ReplaceNodeToLabels for the node;
//   - kill -> SignalContainer GRACEFUL_SHUTDOWN;
//   - priority -> SetAppPriority.
//
// Every write is idempotent on the RM, so the actuator's retries are safe.
// It is safe for concurrent use.
type HintWriter struct {
	rm hintRM
	// overCommitTimeout is passed with node-resource updates.
	overCommitTimeout int

	mu          sync.Mutex
	labelsReady bool // the node-class labels are known to exist on the RM
}

// HintWriterOption configures a HintWriter.
type HintWriterOption func(*HintWriter)

// WithOverCommitTimeout sets how many seconds containers over a shrunk
// node's new capacity may keep running before the RM preempts them. The
// default, NoOverCommitTimeout, never preempts: a capacity hint steers new
// allocations and lets running work finish.
func WithOverCommitTimeout(seconds int) HintWriterOption {
	return func(w *HintWriter) { w.overCommitTimeout = seconds }
}

// NewHintWriter returns a HintWriter writing through c.
func NewHintWriter(c *Client, opts ...HintWriterOption) *HintWriter {
	return newHintWriter(c, opts...)
}

func newHintWriter(rm hintRM, opts ...HintWriterOption) *HintWriter {
	w := &HintWriter{rm: rm, overCommitTimeout: NoOverCommitTimeout}
	for _, o := range opts {
		o(w)
	}
	return w
}

// SetNodeResource sets a node's schedulable capacity.
func (w *HintWriter) SetNodeResource(ctx context.Context, node string, vcores, memoryMB int) error {
	if vcores < 0 || memoryMB < 0 || (vcores == 0 && memoryMB == 0) {
		return fmt.Errorf("yarnclient: node resource for %s: want vcores and memory >= 0, not both 0; got %d vcores, %d MB", node, vcores, memoryMB)
	}
	r := Resource{VCores: int64(vcores), MemoryMB: int64(memoryMB)}
	if vcores == 0 || memoryMB == 0 {
		// The RM sets both; a hint about one dimension keeps the other.
		n, err := w.rm.Node(ctx, node)
		if err != nil {
			return fmt.Errorf("yarnclient: node resource for %s: read current capacity: %w", node, err)
		}
		cur := n.Capacity()
		if r.VCores == 0 {
			r.VCores = cur.VCores
		}
		if r.MemoryMB == 0 {
			r.MemoryMB = cur.MemoryMB
		}
	}
	if _, err := w.rm.UpdateNodeResource(ctx, node, r, w.overCommitTimeout); err != nil {
		return fmt.Errorf("yarnclient: node resource for %s: %w", node, err)
	}
	return nil
}

// SetNodeClass gives a node the label of its class (see NodeClassLabels).
func (w *HintWriter) SetNodeClass(ctx context.Context, node string, mapSlow, reduceSlow bool) error {
	labels := NodeClassLabels(mapSlow, reduceSlow)
	if len(labels) > 0 {
		if err := w.ensureLabels(ctx); err != nil {
			return fmt.Errorf("yarnclient: node class for %s: %w", node, err)
		}
	}
	if err := w.rm.ReplaceNodeToLabels(ctx, map[string][]string{node: labels}); err != nil {
		return fmt.Errorf("yarnclient: node class for %s: %w", node, err)
	}
	return nil
}

// ensureLabels adds the node-class labels the cluster does not have yet.
// Adding an existing label is an error on the RM, so it reads the cluster's
// labels first; when another writer added one in between, a second read
// settles it.
func (w *HintWriter) ensureLabels(ctx context.Context) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.labelsReady {
		return nil
	}
	want := []string{LabelMapSlow, LabelReduceSlow, LabelMapReduceSlow}
	missing := func() ([]NodeLabel, error) {
		have, err := w.rm.ClusterNodeLabels(ctx)
		if err != nil {
			return nil, fmt.Errorf("read cluster node labels: %w", err)
		}
		var add []NodeLabel
		for _, name := range want {
			if !slices.ContainsFunc(have, func(l NodeLabel) bool { return l.Name == name }) {
				add = append(add, NodeLabel{Name: name, Exclusivity: false})
			}
		}
		return add, nil
	}
	add, err := missing()
	if err != nil {
		return err
	}
	if len(add) > 0 {
		if addErr := w.rm.AddNodeLabels(ctx, add); addErr != nil {
			add, err = missing()
			if err != nil {
				return errors.Join(fmt.Errorf("add node labels: %w", addErr), err)
			}
			if len(add) > 0 {
				return fmt.Errorf("add node labels: %w", addErr)
			}
		}
	}
	w.labelsReady = true
	return nil
}

// SignalContainer asks the container to shut down gracefully (the NM sends
// SIGTERM, then SIGKILL after its grace period), which is how the RM lets an
// outside scheduler kill one task attempt without killing the app.
func (w *HintWriter) SignalContainer(ctx context.Context, container string) error {
	if err := w.rm.SignalContainer(ctx, container, SignalGracefulShutdown); err != nil {
		return fmt.Errorf("yarnclient: signal container %s: %w", container, err)
	}
	return nil
}

// SetAppPriority sets a running or accepted app's priority (the RM caps it
// at yarn.cluster.max-application-priority).
func (w *HintWriter) SetAppPriority(ctx context.Context, app string, priority int) error {
	if _, err := w.rm.SetAppPriority(ctx, app, priority); err != nil {
		return fmt.Errorf("yarnclient: priority of %s: %w", app, err)
	}
	return nil
}
