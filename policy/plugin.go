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

// InForce is the engine's read-only view of the hints it keeps in force,
// for a plugin that returns the same hints round after round (TMaR renews
// every hold and binding each tick). The engine drops a hint whose target
// and content equal those of a hint still in force as a repeat, and keeps
// an emitted hint in force for its kind's TTL. With InForce a plugin can
// leave such a hint out instead of building it; the engine's suppression
// stays as the safety net, so what is emitted is the same.
//
// A plugin may remember when its hint lapses (Until, or Now+TTL for a hint
// it returned that was not in force: the engine emits it) while no one
// else emits a hint of that kind (Others unchanged): only an emission with
// the same target moves a hint's lapse.
type InForce interface {
	// Now is the event time (ms) of the engine's current round: the time
	// the hints returned in this call are stamped with and checked against.
	Now() int64
	// TTL is how long (ms) a hint of kind k stays in force once emitted.
	TTL(k HintKind) int64
	// Until is when the hint in force with this target and content
	// (AppendTarget, AppendContent) lapses (ms, after Now), or
	// math.MinInt64 when none is: returned before then, the engine drops
	// it as a repeat. It holds for the rest of the call: the engine emits
	// one plugin call's hints together, after those of the plugins before.
	Until(target, content string) int64
	// Others counts the hints of kind k emitted so far under a policy name
	// other than policy.
	Others(k HintKind, policy string) uint64
}

// InForceUser is a plugin that is given its engine's InForce once the
// engine is made (engine.New). A plugin run without an engine (tests) is
// given none and returns every hint. Once given one, a plugin may return
// its hints in a buffer it reuses at its next call: the engine copies the
// hints it emits before it calls the plugin again.
type InForceUser interface {
	Plugin
	UseInForce(InForce)
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
