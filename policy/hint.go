package policy

import (
	"encoding/json"
	"fmt"

	"github.com/rmsidecar/rmsidecar/events"
)

// HintVersion is the version of the hint schema this package writes.
const HintVersion = 1

// HintKind names a hint kind.
type HintKind string

// Hint kinds of hints v1.
const (
	KindSpeculate       HintKind = "speculate"
	KindDenySpeculation HintKind = "deny-speculation"
	KindKill            HintKind = "kill"
	KindNodeClass       HintKind = "node-class"
	KindPlace           HintKind = "place"
	KindReduceBinding   HintKind = "reduce-binding"
	KindRatio           HintKind = "ratio"
	KindNodeCapacity    HintKind = "node-capacity"
	KindPriority        HintKind = "priority"
)

// NoCap is a ratio hint's "no cap" for MaxMaps or MaxReduces: the field is
// absent on the wire. Any negative value means the same.
const NoCap = -1

// HintKinds lists every hint kind.
var HintKinds = []HintKind{KindSpeculate, KindDenySpeculation, KindKill, KindNodeClass, KindPlace,
	KindReduceBinding, KindRatio, KindNodeCapacity, KindPriority}

// NodeScore ranks one node for a placement; higher scores are better.
type NodeScore struct {
	Node     string          `json:"node"`
	Score    float64         `json:"score"`
	Locality events.Locality `json:"locality,omitempty"`
}

// Hint is one decision of a policy (hints v1). Policies fill Kind, Reason and
// the kind's fields; the engine stamps V, ID, TS, Policy and ExpiresTS.
type Hint struct {
	V         int
	ID        string
	TS        int64
	Policy    string
	Kind      HintKind
	Reason    string
	ExpiresTS int64

	App       string
	Queue     string
	Task      string
	Attempt   string
	Container string
	Node      string

	EstRemainingMS int64 // speculate
	EstBackupMS    int64 // speculate
	MapSlow        bool  // node-class
	ReduceSlow     bool  // node-class
	Nodes          []NodeScore
	// Strict (place, optional): run the task only on the listed nodes while
	// the hint is in force, as a YARN request with relaxLocality=false does.
	Strict    bool
	Partition int // reduce-binding
	Reducers  int // reduce-binding
	// MaxMaps and MaxReduces (ratio) cap the running maps and reduces of
	// the hint's subject: NoCap (any negative value, absent on the wire)
	// leaves the phase uncapped, 0 lets none run. A ratio hint built in Go
	// must set both: a zero MaxReduces is "no reduce may run".
	MaxMaps    int
	MaxReduces int
	VCores     int // node-capacity
	MemoryMB   int // node-capacity
	Priority   int // priority
}

// Key is the Kafka key of a hint: its app, else its queue, else its node.
func (h *Hint) Key() string {
	switch {
	case h.App != "":
		return h.App
	case h.Queue != "":
		return h.Queue
	}
	return h.Node
}

type hintWire struct {
	V         int      `json:"v"`
	ID        string   `json:"id"`
	TS        int64    `json:"ts"`
	Policy    string   `json:"policy"`
	Kind      HintKind `json:"kind"`
	Reason    string   `json:"reason"`
	ExpiresTS int64    `json:"expires_ts,omitempty"`

	App       string `json:"app,omitempty"`
	Queue     string `json:"queue,omitempty"`
	Task      string `json:"task,omitempty"`
	Attempt   string `json:"attempt,omitempty"`
	Container string `json:"container,omitempty"`
	Node      string `json:"node,omitempty"`

	EstRemainingMS *int64      `json:"est_remaining_ms,omitempty"`
	EstBackupMS    *int64      `json:"est_backup_ms,omitempty"`
	MapSlow        *bool       `json:"map_slow,omitempty"`
	ReduceSlow     *bool       `json:"reduce_slow,omitempty"`
	Nodes          []NodeScore `json:"nodes,omitempty"`
	Strict         bool        `json:"strict,omitempty"`
	Partition      *int        `json:"partition,omitempty"`
	Reducers       *int        `json:"reducers,omitempty"`
	MaxMaps        *int        `json:"max_maps,omitempty"`
	MaxReduces     *int        `json:"max_reduces,omitempty"`
	VCores         *int        `json:"vcores,omitempty"`
	MemoryMB       *int        `json:"memory_mb,omitempty"`
	Priority       *int        `json:"priority,omitempty"`
}

func p[T any](v T) *T { return &v }

// capWire is a ratio cap on the wire: absent for NoCap.
func capWire(v int) *int {
	if v < 0 {
		return nil
	}
	return &v
}

// capOf reads a ratio cap: NoCap when absent (or negative).
func capOf(v *int) int {
	if v == nil || *v < 0 {
		return NoCap
	}
	return *v
}

// Validate checks that the hint has the fields its kind requires.
func (h *Hint) Validate() error {
	need := func(field, v string) error {
		if v == "" {
			return fmt.Errorf("hint %s: %s: required", h.Kind, field)
		}
		return nil
	}
	var errs []error
	add := func(err error) {
		if err != nil {
			errs = append(errs, err)
		}
	}
	switch h.Kind {
	case KindSpeculate:
		add(need("app", h.App))
		add(need("task", h.Task))
		add(need("attempt", h.Attempt))
		add(need("node", h.Node))
	case KindDenySpeculation:
		add(need("app", h.App))
		add(need("task", h.Task))
	case KindKill:
		add(need("app", h.App))
		add(need("attempt", h.Attempt))
		add(need("container", h.Container))
	case KindNodeClass, KindNodeCapacity:
		add(need("node", h.Node))
	case KindPlace:
		add(need("app", h.App))
		add(need("task", h.Task))
		if len(h.Nodes) == 0 {
			add(fmt.Errorf("hint place: nodes: required"))
		}
	case KindReduceBinding:
		add(need("app", h.App))
		add(need("node", h.Node))
	case KindRatio:
		switch {
		case h.App == "" && h.Queue == "" && h.Node == "":
			add(fmt.Errorf("hint ratio: app, queue or node: required"))
		case h.Node != "" && (h.App != "" || h.Queue != ""):
			// A node cap counts every container on the node (a TaskTracker's
			// slots), whoever runs it.
			add(fmt.Errorf("hint ratio: node: not allowed with app or queue"))
		}
	case KindPriority:
		add(need("app", h.App))
	default:
		return fmt.Errorf("hint kind: unknown %q", h.Kind)
	}
	if len(errs) > 0 {
		return errs[0]
	}
	return nil
}

// MarshalJSON writes the hint in hints v1 form: common fields plus the
// fields of its kind (required ones even when zero).
func (h Hint) MarshalJSON() ([]byte, error) {
	w := hintWire{V: h.V, ID: h.ID, TS: h.TS, Policy: h.Policy, Kind: h.Kind, Reason: h.Reason, ExpiresTS: h.ExpiresTS,
		App: h.App, Queue: h.Queue, Task: h.Task, Attempt: h.Attempt, Container: h.Container, Node: h.Node}
	if w.V == 0 {
		w.V = HintVersion
	}
	switch h.Kind {
	case KindSpeculate:
		w.EstRemainingMS, w.EstBackupMS = p(h.EstRemainingMS), p(h.EstBackupMS)
	case KindNodeClass:
		w.MapSlow, w.ReduceSlow = p(h.MapSlow), p(h.ReduceSlow)
	case KindPlace:
		w.Nodes, w.Strict = h.Nodes, h.Strict
	case KindReduceBinding:
		w.Partition, w.Reducers = p(h.Partition), p(h.Reducers)
	case KindRatio:
		w.MaxMaps, w.MaxReduces = capWire(h.MaxMaps), capWire(h.MaxReduces)
	case KindNodeCapacity:
		w.VCores, w.MemoryMB = p(h.VCores), p(h.MemoryMB)
	case KindPriority:
		w.Priority = p(h.Priority)
	}
	return json.Marshal(&w)
}

// UnmarshalJSON reads a hints v1 object.
func (h *Hint) UnmarshalJSON(b []byte) error {
	var w hintWire
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	if w.V != HintVersion {
		return fmt.Errorf("v: unsupported hint version %d", w.V)
	}
	*h = Hint{V: w.V, ID: w.ID, TS: w.TS, Policy: w.Policy, Kind: w.Kind, Reason: w.Reason, ExpiresTS: w.ExpiresTS,
		App: w.App, Queue: w.Queue, Task: w.Task, Attempt: w.Attempt, Container: w.Container, Node: w.Node, Nodes: w.Nodes,
		Strict: w.Strict}
	get := func(dst *int, src *int) {
		if src != nil {
			*dst = *src
		}
	}
	if w.EstRemainingMS != nil {
		h.EstRemainingMS = *w.EstRemainingMS
	}
	if w.EstBackupMS != nil {
		h.EstBackupMS = *w.EstBackupMS
	}
	if w.MapSlow != nil {
		h.MapSlow = *w.MapSlow
	}
	if w.ReduceSlow != nil {
		h.ReduceSlow = *w.ReduceSlow
	}
	get(&h.Partition, w.Partition)
	get(&h.Reducers, w.Reducers)
	if h.Kind == KindRatio {
		h.MaxMaps, h.MaxReduces = capOf(w.MaxMaps), capOf(w.MaxReduces)
	}
	get(&h.VCores, w.VCores)
	get(&h.MemoryMB, w.MemoryMB)
	get(&h.Priority, w.Priority)
	return h.Validate()
}
