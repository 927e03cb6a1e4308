package events

import (
	"encoding/json"
	"fmt"
)

// Encode returns the JSON form of e. Required fields of e.Type are always
// written (zero values included); optional fields only when set. Encode
// validates e with the same rules as Decode, so whatever it writes decodes.
func Encode(e *Event) ([]byte, error) {
	w := toWire(e)
	if _, err := w.event(); err != nil {
		return nil, fmt.Errorf("encode event %q: %w", e.ID, err)
	}
	return json.Marshal(&w)
}

func ptr[T any](v T) *T { return &v }

func optPtr[T comparable](v T) *T {
	var zero T
	if v == zero {
		return nil
	}
	return &v
}

func toWire(e *Event) wire {
	v := e.V
	if v == 0 {
		v = Version
	}
	w := wire{V: &v, ID: ptr(e.ID), Type: ptr(string(e.Type)), TS: ptr(e.TS)}
	switch e.Type {
	case NodeRegistered:
		w.Node, w.Rack = ptr(e.Node), ptr(e.Rack)
		w.VCores, w.MemoryMB = ptr(e.VCores), ptr(e.MemoryMB)
		w.CPUMHz, w.PowerIdleW, w.PowerMaxW = optPtr(e.CPUMHz), optPtr(e.PowerIdleW), optPtr(e.PowerMaxW)
		w.Labels = e.Labels
	case NodeHeartbeat:
		w.Node = ptr(e.Node)
		w.UsedVCores, w.UsedMemoryMB = ptr(e.UsedVCores), ptr(e.UsedMemoryMB)
		w.Load1, w.CPUUtil = ptr(e.Load1), ptr(e.CPUUtil)
		w.DiskReadBps, w.DiskWriteBps = optPtr(e.DiskReadBps), optPtr(e.DiskWriteBps)
		w.NetRxBps, w.NetTxBps = optPtr(e.NetRxBps), optPtr(e.NetTxBps)
		w.RunningContainers = e.RunningContainers
	case NodeLost:
		w.Node, w.Reason = ptr(e.Node), ptr(e.Reason)
	case AppSubmitted:
		w.App, w.Name, w.Queue, w.User, w.JobType = ptr(e.App), ptr(e.Name), ptr(e.Queue), ptr(e.User), ptr(e.JobType)
		w.Maps, w.Reduces = ptr(e.Maps), ptr(e.Reduces)
		w.InputPaths, w.Priority, w.Features, w.Utility = e.InputPaths, e.Priority, e.Features, optPtr(e.Utility)
	case AppFinished:
		w.App, w.State = ptr(e.App), ptr(e.State)
	case TaskPending:
		w.App, w.Task, w.Kind = ptr(e.App), ptr(e.Task), ptr(string(e.Kind))
		w.Splits, w.Partition = e.Splits, e.Partition
	case ContainerAllocated:
		w.App, w.Task, w.Attempt, w.Container, w.Node = ptr(e.App), ptr(e.Task), ptr(e.Attempt), ptr(e.Container), ptr(e.Node)
		w.Speculative = optPtr(e.Speculative)
		w.Locality = optPtr(string(e.Locality))
		w.VCores, w.MemoryMB = optPtr(e.VCores), optPtr(e.MemoryMB)
	case TaskProgress:
		w.App, w.Task, w.Attempt = ptr(e.App), ptr(e.Task), ptr(e.Attempt)
		w.Progress, w.Phase, w.PhaseProgress = ptr(e.Progress), ptr(e.Phase), e.PhaseProgress
		w.RecordsDone, w.RecordsTotal, w.BytesRead = optPtr(e.RecordsDone), optPtr(e.RecordsTotal), optPtr(e.BytesRead)
		w.MapsFetched, w.MapsTotal = optPtr(e.MapsFetched), optPtr(e.MapsTotal)
	case TaskFinished:
		w.App, w.Task, w.Attempt, w.State = ptr(e.App), ptr(e.Task), ptr(e.Attempt), ptr(e.State)
		w.PhaseMS = e.PhaseMS
	case MapOutput:
		w.App, w.Task, w.Attempt, w.Node = ptr(e.App), ptr(e.Task), ptr(e.Attempt), ptr(e.Node)
		w.Partitions = e.Partitions
		if w.Partitions == nil {
			w.Partitions = []PartitionSize{}
		}
	}
	return w
}
