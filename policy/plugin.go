package policy

//go:generate mockgen -destination=mocks/mock_policy.go -package=mocks . Observer,Speculator,ProfileStore

import (
	"context"
	"fmt"

	"github.com/rs/zerolog"

	"github.com/rmsidecar/rmsidecar/cluster"
	"github.com/rmsidecar/rmsidecar/events"
)

// Plugin is what every policy is. It implements one or more of the
// extension points below; the stack finds them by type assertion.
type Plugin interface {
	Name() string
}

// Observer learns from each event after the engine has applied it to the
// state (stage durations, node capabilities, classifier feedback).
type Observer interface {
	Plugin
	Observe(ctx context.Context, ev *events.Event, v cluster.View)
}

// Speculator proposes speculative copies, kills and node classes on each tick.
type Speculator interface {
	Plugin
	Speculate(ctx context.Context, v cluster.View) ([]Hint, *Status)
}

// SpeculationGate sees what the speculators before it proposed and returns
// the hints to keep, plus any deny-speculation hints for what it vetoes.
type SpeculationGate interface {
	Plugin
	Gate(ctx context.Context, v cluster.View, proposed []Hint) ([]Hint, *Status)
}

// Placer ranks nodes for a pending task when it becomes pending.
type Placer interface {
	Plugin
	Place(ctx context.Context, v cluster.View, task *cluster.Task) ([]NodeScore, *Status)
}

// StrictPlacer is a Placer whose choice is a reservation, not a preference:
// the engine marks its place hints strict (run the task only on the listed
// nodes while the hint is in force, like a YARN request with
// relaxLocality=false).
type StrictPlacer interface {
	Placer
	StrictPlacement() bool
}

// Assigner picks pending tasks for a node's free capacity at its heartbeat
// and returns place hints naming that node.
type Assigner interface {
	Plugin
	Assign(ctx context.Context, v cluster.View, node *cluster.Node) ([]Hint, *Status)
}

// Shaper sets capacity on each tick: ratio, node-capacity and priority hints.
type Shaper interface {
	Plugin
	Shape(ctx context.Context, v cluster.View) ([]Hint, *Status)
}

// DemandShaper is a Shaper whose caps follow demand. Besides every tick, the
// engine runs it right after applying an event for which ShapeOn reports
// true (new work, finished work), so its caps are in force before the
// scheduler offers containers to that work rather than a tick later.
type DemandShaper interface {
	Shaper
	ShapeOn(ev *events.Event) bool
}

// Binder binds reduce partitions to nodes on each tick (reduce-binding hints).
type Binder interface {
	Plugin
	Bind(ctx context.Context, v cluster.View) ([]Hint, *Status)
}

// Flusher is implemented by plugins that persist learned state; the engine
// calls Flush at checkpoints and on shutdown.
type Flusher interface {
	Plugin
	Flush(ctx context.Context) error
}

// ProfileStore is where policies keep what they learn (package profiles
// implements it; tests and the simulator may use an in-memory one).
type ProfileStore interface {
	Get(ctx context.Context, ns, key string, v any) (bool, error)
	Put(ctx context.Context, ns, key string, v any) error
}

// Args gives a policy its configuration section.
type Args interface {
	// Decode fills into from the settings of the named policy; absent keys
	// keep the values already in into (the paper defaults).
	Decode(policy string, into any) error
}

// Handle is what a factory gets to build a plugin.
type Handle struct {
	Args     Args
	Profiles ProfileStore
	Log      zerolog.Logger
	// Seed makes any randomness of the plugin reproducible.
	Seed uint64
}

// DecodeArgs fills cfg from the settings of the named policy; without
// settings (no Args) cfg keeps its defaults. Errors name the policy.
func (h Handle) DecodeArgs(name string, cfg any) error {
	if h.Args == nil {
		return nil
	}
	if err := h.Args.Decode(name, cfg); err != nil {
		return fmt.Errorf("%s settings: %w", name, err)
	}
	return nil
}
