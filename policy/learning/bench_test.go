package learning

import (
	"context"
	"fmt"
	"testing"

	"github.com/rmsidecar/rmsidecar/cluster"
	"github.com/rmsidecar/rmsidecar/events"
)

// BenchmarkAssign measures one heartbeat's classification and choice on a
// 600-node cluster with 50 running jobs of 400 pending maps each (splits on
// three hosts), and reports it per heartbeat.
func BenchmarkAssign(b *testing.B) {
	const nodes, apps, maps = 600, 50, 400
	s := cluster.New()
	seq := 0
	apply := func(ev events.Event) {
		seq++
		ev.V, ev.ID, ev.TS = 1, fmt.Sprintf("e%08d", seq), t0
		s.Apply(&ev)
	}
	for i := range nodes {
		apply(events.Event{Type: events.NodeRegistered, Node: fmt.Sprintf("n%04d", i), Rack: fmt.Sprintf("r%02d", i/20),
			VCores: 16, MemoryMB: 65536, CPUMHz: 2400})
	}
	for a := range apps {
		app := fmt.Sprintf("app%03d", a)
		apply(events.Event{Type: events.AppSubmitted, App: app, Name: app, Queue: "q", User: "u", JobType: "wc",
			Maps: maps, Features: &events.Features{CPU: 1 + a%10, Memory: 5, Disk: 5, Network: 5}})
		for m := range maps {
			k := (a*maps + m) * 7
			apply(events.Event{Type: events.TaskPending, App: app, Task: fmt.Sprintf("%s_m_%d", app, m), Kind: events.Map,
				Splits: []events.Split{{Path: "/in", Length: 1, Hosts: []string{
					fmt.Sprintf("n%04d", k%nodes), fmt.Sprintf("n%04d", (k+1)%nodes), fmt.Sprintf("n%04d", (k+2)%nodes)}}}})
		}
	}
	p, err := New(context.Background(), NameNB, testHandle(nil, mapArgs{NameNB: func(c *Config) { c.PlaceHold = 0 }}))
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	ns := s.Nodes()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		n := ns[i%len(ns)]
		if _, st := p.Assign(ctx, s, n); st.Code() == 2 {
			b.Fatal(st.Message())
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N), "µs/heartbeat")
}
