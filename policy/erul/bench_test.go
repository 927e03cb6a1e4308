package erul

import (
	"context"
	"fmt"
	"testing"

	"github.com/rmsidecar/rmsidecar/cluster"
	"github.com/rmsidecar/rmsidecar/events"
	"github.com/rmsidecar/rmsidecar/policy"
)

// BenchmarkSpeculate measures one tick on a cluster of 1000 nodes (40 racks)
// running 4000 maps of 20 apps, every node with learned capabilities.
func BenchmarkSpeculate(b *testing.B) {
	st := cluster.New()
	p, err := NewERUL(context.Background(), policy.Handle{})
	if err != nil {
		b.Fatal(err)
	}
	pl := p.(*Plugin)
	apply := func(ev events.Event) {
		if st.Apply(&ev) {
			pl.Observe(context.Background(), &ev, st)
		}
	}
	const nodes, apps, tasksPerApp = 1000, 20, 200
	id := 0
	next := func() string { id++; return fmt.Sprint(id) }
	for i := 0; i < nodes; i++ {
		apply(events.Event{ID: next(), Type: events.NodeRegistered, TS: t0, Node: fmt.Sprintf("n%d", i), Rack: fmt.Sprintf("r%d", i%40), VCores: 8, MemoryMB: 16384})
		pl.caps.learn(fmt.Sprintf("n%d", i), DataLocal, 0.3+float64(i%7)/10)
	}
	for a := 0; a < apps; a++ {
		app := fmt.Sprintf("app_%d", a)
		apply(events.Event{ID: next(), Type: events.AppSubmitted, TS: t0, App: app, Name: "j", Queue: "q", User: "u", JobType: "sort", Maps: tasksPerApp})
		for k := 0; k < tasksPerApp; k++ {
			tid := fmt.Sprintf("task_%d_m_%06d", a, k)
			n := (a*tasksPerApp + k) % nodes
			hosts := []string{fmt.Sprintf("n%d", n), fmt.Sprintf("n%d", (n+1)%nodes), fmt.Sprintf("n%d", (n+41)%nodes)}
			apply(events.Event{ID: next(), Type: events.TaskPending, TS: t0, App: app, Task: tid, Kind: events.Map,
				Splits: []events.Split{{Path: "/x", Length: 128 * mb, Hosts: hosts}}})
			apply(events.Event{ID: next(), Type: events.ContainerAllocated, TS: t0, App: app, Task: tid, Attempt: tid + "_0", Container: "c" + tid, Node: hosts[0], Locality: events.NodeLocal})
			apply(events.Event{ID: next(), Type: events.TaskProgress, TS: t0 + 60_000, App: app, Task: tid, Attempt: tid + "_0", Progress: 0.05 + float64(k%10)/20})
		}
	}
	for i := 0; i < nodes; i++ {
		apply(events.Event{ID: next(), Type: events.NodeHeartbeat, TS: t0 + 60_000, Node: fmt.Sprintf("n%d", i), UsedVCores: 4, UsedMemoryMB: 4096, Load1: 4})
	}
	b.ResetTimer()
	hints := 0
	for b.Loop() {
		clear(pl.holds) // every tick sees the same candidates
		hs, _ := pl.Speculate(context.Background(), st)
		hints = len(hs)
	}
	b.ReportMetric(float64(hints), "hints/tick")
}
