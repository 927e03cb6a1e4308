package actuate

import (
	"context"
	"fmt"

	"github.com/rmsidecar/rmsidecar/policy"
)

// RMWriter is what the RM actuator needs from the ResourceManager: the stock
// RM REST writes. The real-cluster work implements it with package
// yarnclient; tests use a fake.
type RMWriter interface {
	// SetNodeResource is POST /ws/v1/cluster/nodes/{id}/resource.
	SetNodeResource(ctx context.Context, node string, vcores, memoryMB int) error
	// SetNodeClass maps a node class to node labels (map-slow, reduce-slow).
	SetNodeClass(ctx context.Context, node string, mapSlow, reduceSlow bool) error
	// SignalContainer is POST /ws/v1/cluster/containers/{id}/signal/GRACEFUL_SHUTDOWN.
	SignalContainer(ctx context.Context, container string) error
	// SetAppPriority is PUT /ws/v1/cluster/apps/{id}/priority.
	SetAppPriority(ctx context.Context, app string, priority int) error
}

// RM turns the hints stock YARN can act on into RM REST writes. Hints the RM
// has no API for (speculate, place, ratio, reduce-binding, deny-speculation)
// are for the AM-side consumers of the hints topic; the RM actuator passes
// them by.
type RM struct{ W RMWriter }

// Name implements Actuator.
func (RM) Name() string { return "rm" }

// Deliver implements Actuator.
func (r RM) Deliver(ctx context.Context, h policy.Hint) error {
	var err error
	switch h.Kind {
	case policy.KindNodeCapacity:
		err = r.W.SetNodeResource(ctx, h.Node, h.VCores, h.MemoryMB)
	case policy.KindNodeClass:
		err = r.W.SetNodeClass(ctx, h.Node, h.MapSlow, h.ReduceSlow)
	case policy.KindKill:
		if h.Container == "" {
			return nil
		}
		err = r.W.SignalContainer(ctx, h.Container)
	case policy.KindPriority:
		err = r.W.SetAppPriority(ctx, h.App, h.Priority)
	default:
		return nil
	}
	if err != nil {
		return fmt.Errorf("rm %s hint %s: %w", h.Kind, h.ID, err)
	}
	return nil
}
