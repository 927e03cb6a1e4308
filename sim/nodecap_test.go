package sim

import (
	"context"
	"strings"
	"testing"

	"github.com/rmsidecar/rmsidecar/cluster"
	"github.com/rmsidecar/rmsidecar/events"
	"github.com/rmsidecar/rmsidecar/policy"
)

// Ratio caps: a node cap bounds the maps and reduces running on that node
// (0 lets none run there); an absent cap (NoCap) caps nothing; a zero queue
// cap holds the phase back until the cap is lifted.
func TestRatioCaps(t *testing.T) {
	const yml = `
cluster:
  racks: 2
  nodes: [{count: 4, vcores: 4, memory_mb: 8192}]
yarn: {slowstart: 0.05}
workload:
  jobs:
    - {name: a, input_gb: 3, reduces: 8, map_s_per_block: 30}
    - {name: b, submit_s: 1, input_gb: 3, reduces: 8, map_s_per_block: 30}
`
	base := runSim(t, mustParse(t, yml), "none", Options{Registry: testRegistry()})
	if n := base.nodes[0]; n.maxMaps < 2 || n.maxReds < 1 {
		t.Fatalf("uncapped node-0001 ran at most %d maps, %d reduces: the test shows nothing", n.maxMaps, n.maxReds)
	}
	tests := []struct {
		name  string
		hints func(now int64) []policy.Hint // now: simulated ms
		check func(t *testing.T, s *sim)
	}{
		{"node caps", func(int64) []policy.Hint {
			return []policy.Hint{
				{Kind: policy.KindRatio, Node: "node-0001", MaxMaps: 1, MaxReduces: 0},
				{Kind: policy.KindRatio, Node: "node-0002", MaxMaps: policy.NoCap, MaxReduces: 1},
			}
		}, func(t *testing.T, s *sim) {
			if n := s.nodes[0]; n.maxMaps != 1 || n.maxReds != 0 {
				t.Errorf("node-0001 (caps 1/0) ran up to %d maps, %d reduces", n.maxMaps, n.maxReds)
			}
			if n := s.nodes[1]; n.maxMaps < 2 || n.maxReds != 1 {
				t.Errorf("node-0002 (caps none/1) ran up to %d maps, %d reduces", n.maxMaps, n.maxReds)
			}
		}},
		{"absent caps cap nothing", func(int64) []policy.Hint {
			return []policy.Hint{{Kind: policy.KindRatio, Queue: "default", MaxMaps: policy.NoCap, MaxReduces: policy.NoCap}}
		}, func(t *testing.T, s *sim) {
			if got, want := s.results().MakespanS, base.results().MakespanS; got != want {
				t.Errorf("makespan %.1f with no caps, %.1f without the hint", got, want)
			}
		}},
		{"zero queue cap holds maps", func(now int64) []policy.Hint {
			// The cluster view's time stands still while nothing runs, so
			// the test reads the simulator's clock.
			m := policy.NoCap
			if now < 60_000 {
				m = 0
			}
			return []policy.Hint{{Kind: policy.KindRatio, Queue: "default", MaxMaps: m, MaxReduces: policy.NoCap}}
		}, func(t *testing.T, s *sim) {
			for _, a := range s.attempts {
				if a.task.kind == "map" && a.startMS < 60_000 {
					t.Fatalf("map %s started at %d ms under a zero cap", a.id, a.startMS)
				}
			}
			if got, want := s.results().MakespanS, base.results().MakespanS+50; got < want {
				t.Errorf("makespan %.1f, want >= %.1f", got, want)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hs := tt.hints
			var s *sim
			reg := testRegistry(demandHinter{hinter{"caps", func(v cluster.View) []policy.Hint {
				if len(v.Apps()) == 0 {
					return nil // the queue exists once an app was submitted
				}
				out := hs(s.now)
				for i := range out {
					out[i].Reason = "test"
				}
				return out
			}}})
			s, err := newSim(context.Background(), mustParse(t, yml), "caps", Options{Registry: reg, keepHistory: true})
			if err != nil {
				t.Fatal(err)
			}
			if err := s.run(context.Background()); err != nil {
				t.Fatal(err)
			}
			if !s.jobs[0].finished || !s.jobs[1].finished {
				t.Fatal("jobs did not finish")
			}
			tt.check(t, s)
		})
	}
}

// demandHinter is a hinter that also shapes right after every event, so its
// caps hold before the first container is offered.
type demandHinter struct{ hinter }

func (demandHinter) ShapeOn(*events.Event) bool { return true }

// A zero cap that is never lifted does not keep an idle run going forever:
// it ends maxHoldStallMS after the last launch and reports the unfinished job.
func TestZeroCapNeverLiftedEnds(t *testing.T) {
	const yml = `
cluster:
  nodes: [{count: 1, vcores: 2, memory_mb: 4096}]
workload:
  jobs: [{name: a, input_mb: 128, reduces: 0, shuffle_ratio: 0}]
`
	reg := testRegistry(demandHinter{hinter{"zero", func(v cluster.View) []policy.Hint {
		if len(v.Apps()) == 0 {
			return nil
		}
		return []policy.Hint{{Kind: policy.KindRatio, Queue: "default", MaxMaps: 0, MaxReduces: policy.NoCap, Reason: "test"}}
	}}})
	s, err := newSim(context.Background(), mustParse(t, yml), "zero", Options{Registry: reg, keepHistory: true})
	if err != nil {
		t.Fatal(err)
	}
	err = s.run(context.Background())
	if err == nil || !strings.Contains(err.Error(), "0 of 1 jobs finished") {
		t.Fatalf("run = %v, want 0 of 1 jobs finished", err)
	}
	if s.now < maxHoldStallMS || s.now > maxHoldStallMS+5*60_000 {
		t.Errorf("gave up at %d ms, want just after %d", s.now, maxHoldStallMS)
	}
}
