package sidecar

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/rmsidecar/rmsidecar/cluster"
	"github.com/rmsidecar/rmsidecar/config"
	"github.com/rmsidecar/rmsidecar/engine"
	"github.com/rmsidecar/rmsidecar/events"
	"github.com/rmsidecar/rmsidecar/events/kafka"
	"github.com/rmsidecar/rmsidecar/policy"
)

func TestHostAliasesRewriteSplitHosts(t *testing.T) {
	h := newHostAliases([]config.HostAlias{
		{DataNode: "10.0.0.5", NodeManager: "worker5.example.com"},
		{DataNode: "DN1.rmsidecar.test", NodeManager: "localhost:40001"},
	})
	for _, c := range []struct {
		name  string
		ev    events.Event
		want  [][]string
		count int
	}{
		{"ip to host name", events.Event{Type: events.TaskPending, Splits: []events.Split{{Hosts: []string{"10.0.0.5", "10.0.0.6"}}}},
			[][]string{{"worker5.example.com", "10.0.0.6"}}, 1},
		{"case-insensitive, to a node id", events.Event{Type: events.TaskPending, Splits: []events.Split{{Hosts: []string{"dn1.RMSIDECAR.test"}}, {Hosts: []string{"10.0.0.5"}}}},
			[][]string{{"localhost:40001"}, {"worker5.example.com"}}, 2},
		{"no alias", events.Event{Type: events.TaskPending, Splits: []events.Split{{Hosts: []string{"dn2.rmsidecar.test"}}}},
			[][]string{{"dn2.rmsidecar.test"}}, 0},
		{"other event types untouched", events.Event{Type: events.MapOutput, Splits: []events.Split{{Hosts: []string{"10.0.0.5"}}}},
			[][]string{{"10.0.0.5"}}, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			if n := h.rewrite(&c.ev); n != c.count {
				t.Errorf("renamed %d, want %d", n, c.count)
			}
			for i, s := range c.ev.Splits {
				if !slices.Equal(s.Hosts, c.want[i]) {
					t.Errorf("split %d hosts %v, want %v", i, s.Hosts, c.want[i])
				}
			}
		})
	}
	var none hostAliases
	ev := events.Event{Type: events.TaskPending, Splits: []events.Split{{Hosts: []string{"10.0.0.5"}}}}
	if none.rewrite(&ev) != 0 || ev.Splits[0].Hosts[0] != "10.0.0.5" {
		t.Error("no aliases renamed a host")
	}
}

// TestLoopAppliesHostAliases: the model holds the aliased hosts, so a
// split on a DataNode that registers an IP is local to the NodeManager
// beside it.
func TestLoopAppliesHostAliases(t *testing.T) {
	eng := engine.New(policy.NewStack(), engine.Options{Log: zerolog.Nop()})
	l := NewLoop(eng, LoopOptions{QueueSize: 8, Sink: &sink{}, EventsTopic: "ev", Log: zerolog.Nop(),
		HostAliases: []config.HostAlias{{DataNode: "10.0.0.5", NodeManager: "worker5.example.com"}}})
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
