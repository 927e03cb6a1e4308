package baseline_test

import (
	"fmt"
	"testing"

	"github.com/rmsidecar/rmsidecar/events"
	"github.com/rmsidecar/rmsidecar/policy"
	"github.com/rmsidecar/rmsidecar/policy/baseline"
	"github.com/rmsidecar/rmsidecar/policy/clustertest"
)

// yarnJob: 20 maps started at t0; m0 and m1 finished after 100 s (10 % done,
// mean 100 s, σ 0). At t0+100 s m2 reports 0.2 (estimated runtime
// 100/0.2 = 500 s, so it ends at t0+500 s while a new attempt would end at
// t0+200 s: value 300 s), m3 reports 0.5 (ends t0+200 s: too late to
// speculate), the rest 0.6 (progress is good).
func yarnJob(b *clustertest.Builder, maps int) {
	const t0 = now - 100_000
	b.Node("n1", "r1", 32, 65536, 18, 0)
	b.Node("n2", "r1", 8, 16384, 0, 0)
	b.App("j", "sort", maps, 0)
	b.At(t0)
	for i := range 20 {
		id := fmt.Sprintf("m%d", i)
		b.Start("j", id, events.Map, id+"_0", "n1", false)
	}
	b.At(now)
	b.Finish("m0_0", events.StateSucceeded, nil)
	b.Finish("m1_0", events.StateSucceeded, nil)
	b.Progress("m2_0", 0.2, "map", -1)
	b.Progress("m3_0", 0.5, "map", -1)
	for i := 4; i < 20; i++ {
		b.Progress(fmt.Sprintf("m%d_0", i), 0.6, "map", -1)
	}
}

func TestYARN(t *testing.T) {
	tests := []struct {
		name  string
		args  args
		setup func(b *clustertest.Builder)
		want  []want
	}{
		{"largest gain over a fresh attempt", nil, func(b *clustertest.Builder) { yarnJob(b, 20) },
			[]want{{"m2", "n2", 400_000}}},
		{"fewer than 5% of the maps finished", nil, func(b *clustertest.Builder) { yarnJob(b, 41) }, nil},
		{"the job still waits for a map container", nil, func(b *clustertest.Builder) {
			yarnJob(b, 21)
			b.Pending("j", "m20", events.Map)
		}, nil},
		{"cap: max(minimum, 1% of tasks, 10% of running) copies", args{"yarn": {"minimum_allowed_speculative_tasks": 1}},
			func(b *clustertest.Builder) {
				yarnJob(b, 20)
				b.Start("j", "m5", events.Map, "m5_1", "n2", true)
			}, nil},
		{"mean + 1 sigma compared when asked: 500 s > 100 s", args{"yarn": {"compare_threshold": true}},
			func(b *clustertest.Builder) { yarnJob(b, 20) }, []want{{"m2", "n2", 400_000}}},
		{"a silent attempt is re-estimated at now", nil, func(b *clustertest.Builder) {
			yarnJob(b, 20)
			b.At(now + 60_000)
			b.Heartbeat("n2", 0, 0)
			for i := 3; i < 20; i++ {
				b.Progress(fmt.Sprintf("m%d_0", i), 0.9, "map", -1)
			}
			// m2 last said 0.2 at t0+100 s; at t0+160 s it is treated as
			// (160 s)/0.2 = 800 s: ends at t0+800 s, 640 s from now.
		}, []want{{"m2", "n2", 640_000}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := clustertest.New(now)
			tt.setup(b)
			p := build(t, baseline.NewYARN, tt.args)
			check(t, tt.name, speculate(t, p, b), tt.want)
		})
	}
}

// TestYARNRescanIntervals: after a scan that speculated the next one is 15 s
// later; after one that did not, 1 s later.
func TestYARNRescanIntervals(t *testing.T) {
	b := clustertest.New(now)
	yarnJob(b, 20)
	p := build(t, baseline.NewYARN, nil)
	tick := func(ts int64) []policy.Hint {
		b.At(ts)
		b.Heartbeat("n2", 0, 0)
		b.Progress("m4_0", 0.1, "map", -1) // m4 now estimates 1000+ s
		return speculate(t, p, b)
	}
	if hs := speculate(t, p, b); len(hs) != 1 || hs[0].Task != "m2" {
		t.Fatalf("first scan: %+v", hs)
	}
	if hs := tick(now + 1_000); len(hs) != 0 {
		t.Fatalf("1 s after a speculation: %+v", hs)
	}
	if hs := tick(now + 14_000); len(hs) != 0 {
		t.Fatalf("14 s after a speculation: %+v", hs)
	}
	hs := tick(now + 15_000)
	if len(hs) != 1 || hs[0].Task != "m4" {
		t.Fatalf("15 s after: %+v, want m4 (m2 already has a copy coming)", hs)
	}
	b2 := clustertest.New(now)
	yarnJob(b2, 41) // nothing to speculate
	p2 := build(t, baseline.NewYARN, nil)
	if hs := speculate(t, p2, b2); len(hs) != 0 {
		t.Fatal(hs)
	}
	b2.At(now + 500)
	b2.Finish("m2_0", events.StateSucceeded, nil) // 3/41 finished: past the 5 % gate
	b2.Progress("m4_0", 0.1, "map", -1)           // and m4 is far behind
	if hs := speculate(t, p2, b2); len(hs) != 0 {
		t.Fatalf("0.5 s after an empty scan: %+v", hs)
	}
	b2.At(now + 1_000)
	b2.Heartbeat("n2", 0, 0)
	if hs := speculate(t, p2, b2); len(hs) != 1 {
		t.Fatalf("1 s after an empty scan: %+v, want one", hs)
	}
}
