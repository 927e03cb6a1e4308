package events

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// FieldError reports a problem with one field of an event.
type FieldError struct {
	Field  string // JSON name, dotted for nested fields ("splits[0].offset")
	Reason string
}

func (e *FieldError) Error() string {
	if e.Field == "" {
		return e.Reason
	}
	return e.Field + ": " + e.Reason
}

// wire mirrors the JSON form. Pointers tell "absent" from "zero" so required
// fields can be checked.
type wire struct {
	V    *int    `json:"v"`
	ID   *string `json:"id"`
	Type *string `json:"type"`
	TS   *int64  `json:"ts"`

	Node              *string         `json:"node,omitempty"`
	Rack              *string         `json:"rack,omitempty"`
	VCores            *int            `json:"vcores,omitempty"`
	MemoryMB          *int            `json:"memory_mb,omitempty"`
	CPUMHz            *int            `json:"cpu_mhz,omitempty"`
	PowerIdleW        *float64        `json:"power_idle_w,omitempty"`
	PowerMaxW         *float64        `json:"power_max_w,omitempty"`
	Labels            []string        `json:"labels,omitempty"`
	UsedVCores        *int            `json:"used_vcores,omitempty"`
	UsedMemoryMB      *int            `json:"used_memory_mb,omitempty"`
	Load1             *float64        `json:"load1,omitempty"`
	CPUUtil           *float64        `json:"cpu_util,omitempty"`
	DiskReadBps       *float64        `json:"disk_read_bps,omitempty"`
	DiskWriteBps      *float64        `json:"disk_write_bps,omitempty"`
	NetRxBps          *float64        `json:"net_rx_bps,omitempty"`
	NetTxBps          *float64        `json:"net_tx_bps,omitempty"`
	RunningContainers *int            `json:"running_containers,omitempty"`
	Reason            *string         `json:"reason,omitempty"`
	App               *string         `json:"app,omitempty"`
	Name              *string         `json:"name,omitempty"`
	Queue             *string         `json:"queue,omitempty"`
	User              *string         `json:"user,omitempty"`
	JobType           *string         `json:"job_type,omitempty"`
	Maps              *int            `json:"maps,omitempty"`
	Reduces           *int            `json:"reduces,omitempty"`
	InputPaths        []string        `json:"input_paths,omitempty"`
	Priority          *int            `json:"priority,omitempty"`
	Features          *Features       `json:"features,omitempty"`
	Utility           *string         `json:"utility,omitempty"`
	State             *string         `json:"state,omitempty"`
	Task              *string         `json:"task,omitempty"`
	Kind              *string         `json:"kind,omitempty"`
	Splits            []Split         `json:"splits,omitempty"`
	Partition         *int            `json:"partition,omitempty"`
	Attempt           *string         `json:"attempt,omitempty"`
	Container         *string         `json:"container,omitempty"`
	Speculative       *bool           `json:"speculative,omitempty"`
	Locality          *string         `json:"locality,omitempty"`
	Progress          *float64        `json:"progress,omitempty"`
	Phase             *string         `json:"phase,omitempty"`
	PhaseProgress     *float64        `json:"phase_progress,omitempty"`
	RecordsDone       *int64          `json:"records_done,omitempty"`
	RecordsTotal      *int64          `json:"records_total,omitempty"`
	BytesRead         *int64          `json:"bytes_read,omitempty"`
	MapsFetched       *int            `json:"maps_fetched,omitempty"`
	MapsTotal         *int            `json:"maps_total,omitempty"`
	PhaseMS           *PhaseDurations `json:"phase_ms,omitempty"`
	Partitions        []PartitionSize `json:"partitions,omitempty"`
}

// Decode parses one JSON event strictly. The returned error is a *FieldError
// naming the offending field, or a *FieldError with an empty Field when the
// input is not a JSON object at all.
func Decode(data []byte) (Event, error) {
	var w wire
	if err := json.Unmarshal(data, &w); err != nil {
		return Event{}, jsonError(data, err)
	}
	return w.event()
}

// jsonError turns encoding/json errors into field-naming errors.
func jsonError(data []byte, err error) error {
	var typeErr *json.UnmarshalTypeError
	if errors.As(err, &typeErr) {
		field := typeErr.Field
		if field == "" {
			return &FieldError{Reason: fmt.Sprintf("not a JSON object (got %s)", typeErr.Value)}
		}
		return &FieldError{Field: field, Reason: fmt.Sprintf("wrong type: got %s, want %s", typeErr.Value, jsonKind(typeErr.Type.String()))}
	}
	var synErr *json.SyntaxError
	if errors.As(err, &synErr) {
		return &FieldError{Reason: fmt.Sprintf("not JSON: %v (at byte %d)", synErr, synErr.Offset)}
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return &FieldError{Reason: "empty event"}
	}
	return &FieldError{Reason: "not JSON: " + err.Error()}
}

func jsonKind(goType string) string {
	switch {
	case strings.Contains(goType, "int"), strings.Contains(goType, "float"):
		return "number"
	case strings.Contains(goType, "string"):
		return "string"
	case strings.Contains(goType, "bool"):
		return "boolean"
	case strings.HasPrefix(goType, "[]"):
		return "array"
	default:
		return "object"
	}
}

// checker accumulates the first validation failure.
type checker struct{ err *FieldError }

func (c *checker) fail(field, format string, args ...any) {
	if c.err == nil {
		c.err = &FieldError{Field: field, Reason: fmt.Sprintf(format, args...)}
	}
}

func (c *checker) str(field string, p *string) string {
	if p == nil {
		c.fail(field, "required field missing")
		return ""
	}
	if *p == "" {
		c.fail(field, "must not be empty")
	}
	return *p
}

func (c *checker) optStr(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

func (c *checker) nonNegInt(field string, p *int, required bool) int {
	if p == nil {
		if required {
			c.fail(field, "required field missing")
		}
		return 0
	}
	if *p < 0 {
		c.fail(field, "must be >= 0, got %d", *p)
	}
	return *p
}

func (c *checker) nonNegInt64(field string, p *int64) int64 {
	if p == nil {
		return 0
	}
	if *p < 0 {
		c.fail(field, "must be >= 0, got %d", *p)
	}
	return *p
}

func (c *checker) nonNegFloat(field string, p *float64, required bool) float64 {
	if p == nil {
		if required {
			c.fail(field, "required field missing")
		}
		return 0
	}
	if *p < 0 || *p != *p {
		c.fail(field, "must be >= 0, got %v", *p)
	}
	return *p
}

func (c *checker) unit(field string, p *float64, required bool) float64 {
	if p == nil {
		if required {
			c.fail(field, "required field missing")
		}
		return 0
	}
	if !(*p >= 0 && *p <= 1) {
		c.fail(field, "must be within 0..1, got %v", *p)
	}
	return *p
}

func (c *checker) oneOf(field string, p *string, required bool, allowed ...string) string {
	if p == nil {
		if required {
			c.fail(field, "required field missing")
		}
		return ""
	}
	for _, a := range allowed {
		if *p == a {
			return a
		}
	}
	c.fail(field, "must be one of %s, got %q", strings.Join(allowed, ", "), *p)
	return *p
}

// event validates w and returns the event it describes.
func (w *wire) event() (Event, error) {
	var e Event
	err := w.eventInto(&e)
	return e, err
}

// eventInto is event writing into *e (all of it: zero on error).
func (w *wire) eventInto(e *Event) error {
	var c checker
	*e = Event{}
	switch {
	case w.V == nil:
		c.fail("v", "required field missing")
	case *w.V != Version:
		c.fail("v", "unsupported version %d (this build reads v%d)", *w.V, Version)
	default:
		e.V = *w.V
	}
	e.ID = c.str("id", w.ID)
	if w.Type == nil {
		c.fail("type", "required field missing")
	} else {
		e.Type = Type(*w.Type)
		if !knownType(e.Type) {
			c.fail("type", "unknown event type %q", *w.Type)
		}
	}
	if w.TS == nil {
		c.fail("ts", "required field missing")
	} else if *w.TS < 0 {
		c.fail("ts", "must be >= 0, got %d", *w.TS)
	} else {
		e.TS = *w.TS
	}
	if c.err != nil {
		*e = Event{}
		return c.err
	}

	switch e.Type {
	case NodeRegistered:
		e.Node = c.str("node", w.Node)
		e.Rack = c.str("rack", w.Rack)
		e.VCores = c.nonNegInt("vcores", w.VCores, true)
		e.MemoryMB = c.nonNegInt("memory_mb", w.MemoryMB, true)
		e.CPUMHz = c.nonNegInt("cpu_mhz", w.CPUMHz, false)
		e.PowerIdleW = c.nonNegFloat("power_idle_w", w.PowerIdleW, false)
		e.PowerMaxW = c.nonNegFloat("power_max_w", w.PowerMaxW, false)
		e.Labels = w.Labels
	case NodeHeartbeat:
		e.Node = c.str("node", w.Node)
		e.UsedVCores = c.nonNegInt("used_vcores", w.UsedVCores, true)
		e.UsedMemoryMB = c.nonNegInt("used_memory_mb", w.UsedMemoryMB, true)
		e.Load1 = c.nonNegFloat("load1", w.Load1, true)
		e.CPUUtil = c.unit("cpu_util", w.CPUUtil, true)
		e.DiskReadBps = c.nonNegFloat("disk_read_bps", w.DiskReadBps, false)
		e.DiskWriteBps = c.nonNegFloat("disk_write_bps", w.DiskWriteBps, false)
		e.NetRxBps = c.nonNegFloat("net_rx_bps", w.NetRxBps, false)
		e.NetTxBps = c.nonNegFloat("net_tx_bps", w.NetTxBps, false)
		if w.RunningContainers != nil {
			n := c.nonNegInt("running_containers", w.RunningContainers, false)
			e.RunningContainers = &n
		}
	case NodeLost:
		e.Node = c.str("node", w.Node)
		e.Reason = c.str("reason", w.Reason)
	case AppSubmitted:
		e.App = c.str("app", w.App)
		e.Name = c.str("name", w.Name)
		e.Queue = c.str("queue", w.Queue)
		e.User = c.str("user", w.User)
		e.JobType = c.str("job_type", w.JobType)
		e.Maps = c.nonNegInt("maps", w.Maps, true)
		e.Reduces = c.nonNegInt("reduces", w.Reduces, true)
		e.InputPaths = w.InputPaths
		if w.Priority != nil {
			p := *w.Priority
			e.Priority = &p
		}
		if w.Features != nil {
			f := *w.Features
			for _, kv := range []struct {
				name string
				v    int
			}{{"cpu", f.CPU}, {"memory", f.Memory}, {"disk", f.Disk}, {"network", f.Network}} {
				if kv.v < 1 || kv.v > 10 {
					c.fail("features."+kv.name, "must be within 1..10, got %d", kv.v)
				}
			}
			e.Features = &f
		}
		e.Utility = c.optStr(w.Utility)
	case AppFinished:
		e.App = c.str("app", w.App)
		e.State = c.oneOf("state", w.State, true, StateSucceeded, StateFailed, StateKilled)
	case TaskPending:
		e.App = c.str("app", w.App)
		e.Task = c.str("task", w.Task)
		e.Kind = TaskKind(c.oneOf("kind", w.Kind, true, string(Map), string(Reduce)))
		for i, s := range w.Splits {
			if s.Offset < 0 || s.Length < 0 {
				c.fail(fmt.Sprintf("splits[%d]", i), "offset and length must be >= 0")
			}
		}
		e.Splits = w.Splits
		if w.Partition != nil {
			p := c.nonNegInt("partition", w.Partition, false)
			e.Partition = &p
		}
	case ContainerAllocated:
		e.App = c.str("app", w.App)
		e.Task = c.str("task", w.Task)
		e.Attempt = c.str("attempt", w.Attempt)
		e.Container = c.str("container", w.Container)
		e.Node = c.str("node", w.Node)
		if w.Speculative != nil {
			e.Speculative = *w.Speculative
		}
		e.Locality = Locality(c.oneOf("locality", w.Locality, false, string(NodeLocal), string(RackLocal), string(OffRack)))
		e.VCores = c.nonNegInt("vcores", w.VCores, false)
		e.MemoryMB = c.nonNegInt("memory_mb", w.MemoryMB, false)
	case TaskProgress:
		e.App = c.str("app", w.App)
		e.Task = c.str("task", w.Task)
		e.Attempt = c.str("attempt", w.Attempt)
		e.Progress = c.unit("progress", w.Progress, true)
		e.Phase = c.oneOf("phase", w.Phase, true, PhaseMap, PhaseSort, PhaseShuffle, PhaseMerge, PhaseReduce)
		if w.PhaseProgress != nil {
			p := c.unit("phase_progress", w.PhaseProgress, false)
			e.PhaseProgress = &p
		}
		e.RecordsDone = c.nonNegInt64("records_done", w.RecordsDone)
		e.RecordsTotal = c.nonNegInt64("records_total", w.RecordsTotal)
		e.BytesRead = c.nonNegInt64("bytes_read", w.BytesRead)
		e.MapsFetched = c.nonNegInt("maps_fetched", w.MapsFetched, false)
		e.MapsTotal = c.nonNegInt("maps_total", w.MapsTotal, false)
	case TaskFinished:
		e.App = c.str("app", w.App)
		e.Task = c.str("task", w.Task)
		e.Attempt = c.str("attempt", w.Attempt)
		e.State = c.oneOf("state", w.State, true, StateSucceeded, StateFailed, StateKilled)
		if w.PhaseMS != nil {
			p := *w.PhaseMS
			if p.Map < 0 || p.Sort < 0 || p.Shuffle < 0 || p.Merge < 0 || p.Reduce < 0 {
				c.fail("phase_ms", "durations must be >= 0")
			}
			e.PhaseMS = &p
		}
	case MapOutput:
		e.App = c.str("app", w.App)
		e.Task = c.str("task", w.Task)
		e.Attempt = c.str("attempt", w.Attempt)
		e.Node = c.str("node", w.Node)
		if w.Partitions == nil {
			c.fail("partitions", "required field missing")
		}
		for i, p := range w.Partitions {
			if p.ID < 0 || p.Bytes < 0 {
				c.fail(fmt.Sprintf("partitions[%d]", i), "id and bytes must be >= 0")
			}
		}
		e.Partitions = w.Partitions
	}
	if c.err != nil {
		*e = Event{}
		return c.err
	}
	return nil
}

func knownType(t Type) bool {
	for _, k := range Types {
		if k == t {
			return true
		}
	}
	return false
}
