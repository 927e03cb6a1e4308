package sim

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/rmsidecar/rmsidecar/cluster"
	"github.com/rmsidecar/rmsidecar/policy"
)

// chaos emits random hints of every kind each tick: the simulator's
// invariants must hold whatever the policies decide.
type chaos struct{ rng *rand.Rand }

func (*chaos) Name() string { return "chaos" }

func (c *chaos) Speculate(_ context.Context, v cluster.View) ([]policy.Hint, *policy.Status) {
	var out []policy.Hint
	nodes := v.Nodes()
	for _, app := range v.Apps() {
		if app.Finished() {
			continue
		}
		for _, t := range app.Tasks {
			for _, a := range t.Running() {
				switch r := c.rng.Float64(); {
				case r < 0.03:
					out = append(out, policy.Hint{Kind: policy.KindKill, App: app.ID, Attempt: a.ID, Container: a.Container, Reason: "chaos"})
				case r < 0.08:
					n := nodes[c.rng.IntN(len(nodes))]
					out = append(out, policy.Hint{Kind: policy.KindSpeculate, App: app.ID, Task: t.ID, Attempt: a.ID, Node: n.ID, Reason: "chaos"})
				}
			}
			if t.State == cluster.TaskPending && c.rng.Float64() < 0.05 {
				n := nodes[c.rng.IntN(len(nodes))]
				out = append(out, policy.Hint{Kind: policy.KindPlace, App: app.ID, Task: t.ID, Nodes: []policy.NodeScore{{Node: n.ID, Score: 1}}, Reason: "chaos"})
			}
		}
		if c.rng.Float64() < 0.1 && app.Reduces > 0 {
			n := nodes[c.rng.IntN(len(nodes))]
			out = append(out, policy.Hint{Kind: policy.KindReduceBinding, App: app.ID, Partition: c.rng.IntN(app.Reduces), Node: n.ID, Reducers: 1, Reason: "chaos"})
		}
		if c.rng.Float64() < 0.1 {
			out = append(out, policy.Hint{Kind: policy.KindRatio, App: app.ID, MaxMaps: c.rng.IntN(6), MaxReduces: c.rng.IntN(3), Reason: "chaos"})
		}
		if c.rng.Float64() < 0.05 {
			out = append(out, policy.Hint{Kind: policy.KindPriority, App: app.ID, Priority: c.rng.IntN(5), Reason: "chaos"})
		}
	}
	if c.rng.Float64() < 0.2 {
		n := nodes[c.rng.IntN(len(nodes))]
		out = append(out, policy.Hint{Kind: policy.KindNodeCapacity, Node: n.ID, VCores: c.rng.IntN(n.VCores + 1), MemoryMB: n.MemoryMB, Reason: "chaos"})
	}
	return out, nil
}

func TestChaosKeepsInvariants(t *testing.T) {
	for seed := uint64(1); seed <= chaosSeeds; seed++ {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			reg := testRegistry()
			_ = reg.Register("chaos", func(_ context.Context, h policy.Handle) (policy.Plugin, error) {
				return &chaos{rng: rand.New(rand.NewPCG(h.Seed, 99))}, nil
			})
			sc := mustParse(t, heteroYAML)
			sc.Seed = seed
			s := runSim(t, sc, "chaos", Options{Registry: reg})
			for _, j := range s.jobs {
				if !j.finished {
					t.Fatalf("%s did not finish", j.id)
				}
				for _, tk := range append(append([]*task{}, j.maps...), j.reduces...) {
					if tk.wins != 1 || tk.running != 0 {
						t.Errorf("%s: %d wins, %d running", tk.id, tk.wins, tk.running)
					}
				}
				if j.produced != j.shuffled {
					t.Errorf("%s: produced %d, fetched %d", j.id, j.produced, j.shuffled)
				}
			}
			if s.m.overCapacity != 0 {
				t.Errorf("%d allocations over capacity", s.m.overCapacity)
			}
			for _, n := range s.nodes {
				if n.maxUsedV > n.vcores || n.usedV != 0 {
					t.Errorf("%s: peak %d of %d vcores, %d in use at the end", n.id, n.maxUsedV, n.vcores, n.usedV)
				}
			}
			for i, l := range s.net.links {
				if l.members != 0 || l.traverse != 0 || len(l.tags) != 0 {
					t.Errorf("link %d not empty at the end", i)
				}
			}
			r := s.results()
			if r.Killed == 0 || r.Spec.Launched == 0 {
				t.Errorf("chaos had no effect: %+v killed %d", r.Spec, r.Killed)
			}
		})
	}
}

// chaosSeeds is how many seeds TestChaosKeepsInvariants tries (raise it
// locally to hunt rare failures).
const chaosSeeds = 12
