package sim

import (
	"context"
	"testing"

	"github.com/rmsidecar/rmsidecar/cluster"
	"github.com/rmsidecar/rmsidecar/events"
	"github.com/rmsidecar/rmsidecar/policy"
	"github.com/rmsidecar/rmsidecar/policy/samr"
)

// classRecorder is SAMR with its node-class hints recorded with their time.
type classRecorder struct {
	*samr.Plugin
	marks []classMark
}

type classMark struct {
	atMS     int64
	node     string
	mapSlow  bool
	redSlow  bool
	clearing bool
}

func (r *classRecorder) Observe(ctx context.Context, ev *events.Event, v cluster.View) {
	r.Plugin.Observe(ctx, ev, v)
}

func (r *classRecorder) Speculate(ctx context.Context, v cluster.View) ([]policy.Hint, *policy.Status) {
	hs, st := r.Plugin.Speculate(ctx, v)
	for _, h := range hs {
		if h.Kind == policy.KindNodeClass {
			r.marks = append(r.marks, classMark{atMS: v.Now() - epochMS, node: h.Node, mapSlow: h.MapSlow, redSlow: h.ReduceSlow,
				clearing: !h.MapSlow && !h.ReduceSlow})
		}
	}
	return hs, st
}

// TestSAMRCatchesANodeDegradingMidRun: twelve identical nodes, maps of about
// 100 s; node 5 drops to a quarter of its speed at 150 s and stays there.
// SAMR marks it map-slow within a bounded time (its attempts must run a
// minute, min_runtime_ms, to be judged, plus ticks) and never marks a
// healthy node.
func TestSAMRCatchesANodeDegradingMidRun(t *testing.T) {
	sc := mustParse(t, `
seed: 3
cluster:
  racks: 1
  nodes: [{count: 12, vcores: 4, memory_mb: 8192}]
stragglers: {task_prob: 0, node_degrade: [{node: 5, from_s: 150, to_s: 100000, factor: 0.25}]}
workload:
  jobs:
    - {name: big, type: wordcount, submit_s: 0, maps: 240, reduces: 2, map_s_per_block: 100, reduce_s_per_gb: 10, shuffle_ratio: 0.01}
`)
	var rec *classRecorder
	reg := testRegistry()
	_ = reg.Register(samr.Name, func(_ context.Context, h policy.Handle) (policy.Plugin, error) {
		p, err := samr.New(context.Background(), h)
		if err != nil {
			return nil, err
		}
		rec = &classRecorder{Plugin: p.(*samr.Plugin)}
		return rec, nil
	})
	if _, err := Run(context.Background(), sc, samr.Name, Options{Registry: reg}); err != nil {
		t.Fatal(err)
	}
	degraded := ""
	for _, m := range rec.marks {
		if m.clearing {
			continue
		}
		if degraded == "" {
			degraded = m.node
			t.Logf("%s marked map-slow %v reduce-slow %v at %.0f s (degraded at 150 s)", m.node, m.mapSlow, m.redSlow, float64(m.atMS)/1000)
			if !m.mapSlow || m.atMS > 150_000+90_000 {
				t.Errorf("first mark %+v: want map-slow within 90 s of the drop", m)
			}
		}
		if m.node != degraded {
			t.Errorf("healthy node %s marked slow at %.0f s", m.node, float64(m.atMS)/1000)
		}
	}
	if degraded == "" {
		t.Fatal("the degraded node was never marked slow")
	}
	if degraded != "node-0006" { // node index 5, named from 1
		t.Errorf("marked %s, want node-0006, the degraded one", degraded)
	}
}
