package sidecar

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/rmsidecar/rmsidecar/cluster"
	"github.com/rmsidecar/rmsidecar/engine"
	"github.com/rmsidecar/rmsidecar/events"
	"github.com/rmsidecar/rmsidecar/events/kafka"
	"github.com/rmsidecar/rmsidecar/policy"
)

// TestLoopAppliesHostAliases: the model holds the aliased hosts, so a
// split on a DataNode that registers an IP is local to the NodeManager
// beside it.
func TestLoopAppliesHostAliases(t *testing.T) {
	eng := engine.New(policy.NewStack(), engine.Options{Log: zerolog.Nop()})
	l := NewLoop(eng, LoopOptions{QueueSize: 8, Sink: &sink{}, EventsTopic: "ev", Log: zerolog.Nop(),
		HostAliases: events.NewHostAliases(map[string]string{"10.0.0.5": "worker5.example.com"})})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- l.Run(ctx) }()
	evs := []events.Event{
		{V: 1, ID: "1", Type: events.NodeRegistered, TS: 1000, Node: "worker5.example.com:8041", Rack: "/r1", VCores: 8, MemoryMB: 8192},
		{V: 1, ID: "2", Type: events.AppSubmitted, TS: 1001, App: "application_1_0001", Name: "wc", Queue: "default", User: "u", JobType: "wordcount", Maps: 1},
		{V: 1, ID: "3", Type: events.TaskPending, TS: 1002, App: "application_1_0001", Task: "task_1_0001_m_000000", Kind: events.Map,
			Splits: []events.Split{{Path: "/in/a", Length: 1 << 20, Hosts: []string{"10.0.0.5"}}}},
	}
	for i := range evs {
		if err := l.Enqueue(ctx, kafka.Message{Topic: "ev", Offset: int64(i), Event: &evs[i], Received: time.Now()}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := l.Sync(ctx, true); err != nil {
		t.Fatal(err)
	}
	st := eng.State()
	task := st.App("application_1_0001").Task("task_1_0001_m_000000")
	if task == nil || len(task.Splits) != 1 || !slices.Equal(task.Splits[0].Hosts, []string{"worker5.example.com"}) {
		t.Fatalf("model task %+v, want its split on worker5.example.com", task)
	}
	if loc := cluster.TaskLocality(st, st.Node("worker5.example.com:8041"), task); loc != events.NodeLocal {
		t.Errorf("locality on the NodeManager beside the DataNode = %q, want node", loc)
	}
	cancel()
	if err := <-done; err != nil {
		t.Error(err)
	}
}
