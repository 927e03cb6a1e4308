package samr_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/rmsidecar/rmsidecar/events"
	"github.com/rmsidecar/rmsidecar/policy"
	"github.com/rmsidecar/rmsidecar/policy/clustertest"
)

// BenchmarkSpeculate measures one SAMR tick on 600 nodes running 6000
// attempts of 60 jobs (the simulator runs one tick per simulated second).
func BenchmarkSpeculate(b *testing.B) {
	cb := clustertest.New(now - 200_000)
	for n := range 600 {
		cb.Node(fmt.Sprintf("n%03d", n), fmt.Sprintf("r%d", n%20), 12, 24576, 10, 0)
	}
	for j := range 60 {
		app := fmt.Sprintf("a%02d", j)
		cb.App(app, "sort", 100, 0)
		for k := range 100 {
			task := fmt.Sprintf("%s_m%03d", app, k)
			cb.Start(app, task, events.Map, task+"_0", fmt.Sprintf("n%03d", (j*100+k)%600), false)
		}
	}
	cb.At(now)
	for j := range 60 {
		for k := range 100 {
			pp := 0.2 + 0.7*float64((j*7+k*13)%100)/100
			cb.Progress(fmt.Sprintf("a%02d_m%03d_0", j, k), pp*2/3, "map", pp)
		}
	}
	p := newSAMR(b, nil, nil)
	ctx := context.Background()
	var sp policy.Speculator = p
	b.ResetTimer()
	for b.Loop() {
		if _, st := sp.Speculate(ctx, cb.State); !st.IsSuccess() {
			b.Fatal(st.Message())
		}
	}
}
