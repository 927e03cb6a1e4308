// Package clustertest builds cluster states for policy tests by applying
// events v1, so a test's cluster is exactly what the live engine would hold.
package clustertest

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/rmsidecar/rmsidecar/cluster"
	"github.com/rmsidecar/rmsidecar/events"
	"github.com/rmsidecar/rmsidecar/policy"
)

// Builder applies events to a State with its own event clock.
type Builder struct {
	State *cluster.State
	// Log holds every event applied, in order.
	Log      []events.Event
	now      int64
	seq      int
	attempts map[string][2]string // attempt -> app, task
}

// New returns a builder over an empty state, its clock at ts.
func New(ts int64) *Builder {
	return &Builder{State: cluster.New(), now: ts, attempts: map[string][2]string{}}
}

// At sets the event clock (ms).
func (b *Builder) At(ts int64) *Builder {
	b.now = ts
	return b
}

// Now is the event clock.
func (b *Builder) Now() int64 { return b.now }

// Apply stamps an event with the next id and the clock (unless it has a
// time), applies it and logs it.
func (b *Builder) Apply(ev events.Event) {
	b.seq++
	ev.V = events.Version
	if ev.ID == "" {
		ev.ID = fmt.Sprintf("e%08d", b.seq) // zero-padded: ids order events of equal time
	}
	if ev.TS == 0 {
		ev.TS = b.now
	}
	b.State.Apply(&ev)
	b.Log = append(b.Log, ev)
}

// Node registers a node and reports a heartbeat with usedVCores in use.
func (b *Builder) Node(id, rack string, vcores, memoryMB, usedVCores, usedMemoryMB int) {
	b.Apply(events.Event{Type: events.NodeRegistered, Node: id, Rack: rack, VCores: vcores, MemoryMB: memoryMB})
	b.Heartbeat(id, usedVCores, usedMemoryMB)
}

// Heartbeat reports a node's used resources.
func (b *Builder) Heartbeat(id string, usedVCores, usedMemoryMB int) {
	b.Apply(events.Event{Type: events.NodeHeartbeat, Node: id, UsedVCores: usedVCores, UsedMemoryMB: usedMemoryMB})
}

// App submits an app.
func (b *Builder) App(id, jobType string, maps, reduces int) {
	b.Apply(events.Event{Type: events.AppSubmitted, App: id, Name: id, Queue: "default", User: "u",
		JobType: jobType, Maps: maps, Reduces: reduces})
}

// Pending makes a task pending.
func (b *Builder) Pending(app, task string, kind events.TaskKind) {
	b.Apply(events.Event{Type: events.TaskPending, App: app, Task: task, Kind: kind})
}

// Start makes a task pending (if new) and allocates attempt on node at the
// clock; the container is "c_"+attempt.
func (b *Builder) Start(app, task string, kind events.TaskKind, attempt, node string, speculative bool) {
	if a := b.State.App(app); a == nil || a.Task(task) == nil {
		b.Pending(app, task, kind)
	}
	b.attempts[attempt] = [2]string{app, task}
	b.Apply(events.Event{Type: events.ContainerAllocated, App: app, Task: task, Attempt: attempt,
		Container: "c_" + attempt, Node: node, Speculative: speculative})
}

// Progress reports an attempt's overall progress, phase and (if >= 0) the
// progress inside the phase.
func (b *Builder) Progress(attempt string, progress float64, phase string, phaseProgress float64) {
	at := b.attempts[attempt]
	ev := events.Event{Type: events.TaskProgress, App: at[0], Task: at[1], Attempt: attempt,
		Progress: progress, Phase: phase}
	if phaseProgress >= 0 {
		pp := phaseProgress
		ev.PhaseProgress = &pp
	}
	b.Apply(ev)
}

// Fetched reports a reduce attempt in its copy stage with fetched of total
// map outputs.
func (b *Builder) Fetched(attempt string, progress float64, fetched, total int) {
	at := b.attempts[attempt]
	b.Apply(events.Event{Type: events.TaskProgress, App: at[0], Task: at[1], Attempt: attempt,
		Progress: progress, Phase: events.PhaseShuffle, MapsFetched: fetched, MapsTotal: total})
}

// Finish ends an attempt in state with optional phase durations.
func (b *Builder) Finish(attempt, state string, phaseMS *events.PhaseDurations) {
	at := b.attempts[attempt]
	b.Apply(events.Event{Type: events.TaskFinished, App: at[0], Task: at[1], Attempt: attempt,
		State: state, PhaseMS: phaseMS})
}

// AppFinished ends an app.
func (b *Builder) AppFinished(app, state string) {
	b.Apply(events.Event{Type: events.AppFinished, App: app, State: state})
}

// Speculate feeds the events applied since the last call to p's Observer (if
// it is one), then runs its Speculate on the state. It fails t on an
// unsuccessful status or an invalid hint.
func (b *Builder) Speculate(t testing.TB, p policy.Plugin) []policy.Hint {
	t.Helper()
	ctx := context.Background()
	if o, ok := p.(policy.Observer); ok {
		for i := range b.Log {
			o.Observe(ctx, &b.Log[i], b.State)
		}
		b.Log = b.Log[:0]
	}
	hs, st := p.(policy.Speculator).Speculate(ctx, b.State)
	if !st.IsSuccess() {
		t.Fatalf("status %v: %s", st.Code(), st.Message())
	}
	for _, h := range hs {
		if err := h.Validate(); err != nil {
			t.Fatalf("invalid hint %+v: %v", h, err)
		}
	}
	return hs
}

// Args hands settings to a policy the way the config package does (keys as
// in the YAML file): Decode fills into from the named policy's section.
type Args map[string]map[string]any

// Decode implements policy.Args.
func (a Args) Decode(name string, into any) error {
	m, ok := a[name]
	if !ok {
		return nil
	}
	b, err := json.Marshal(m)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, into)
}
