package tmar

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/rmsidecar/rmsidecar/cluster"
	"github.com/rmsidecar/rmsidecar/events"
	"github.com/rmsidecar/rmsidecar/policy"
)

// Random matrices (factors, seconds per map and seeds for some nodes, a
// type's and an app's rate or none), splits with and without bytes, nodes
// of other clocks: mapExecs gives mapExec's value on every node, bit for bit.
func TestMapExecsSameAsMapExec(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 3))
	ctx := context.Background()
	for iter := range 500 {
		pl, err := New(ctx, policy.Handle{Args: argsFunc(func(_ string, into any) error {
			c := into.(*Config)
			c.TaskOverheadS = float64(rng.IntN(3)) * 0.7
			if rng.IntN(2) == 0 {
				c.MapMatrix = map[string]map[string]float64{"wc": {"n1": 13, "n3": 7.5}}
			}
			return nil
		})})
		if err != nil {
			t.Fatal(err)
		}
		p := pl.(*Plugin)
		nodes := make([]*cluster.Node, rng.IntN(8))
		for i := range nodes {
			nodes[i] = &cluster.Node{ID: fmt.Sprint("n", rng.IntN(6)), CPUMHz: []int{0, 1200, 2400, 3100}[rng.IntN(4)]}
		}
		app := &cluster.App{ID: "a1", JobType: []string{"", "wc"}[rng.IntN(2)]}
		m := p.rows(ctx, jobType(app))
		if rng.IntN(3) > 0 {
			m.RateSGB = rng.Float64() * 40
		}
		for i := range 6 {
			n := fmt.Sprint("n", i)
			if rng.IntN(2) == 0 {
				m.NodeFactor[n] = rng.Float64()*2 - 0.2
			}
			if rng.IntN(3) == 0 {
				m.Map[n] = rng.Float64() * 30
			}
		}
		if rng.IntN(2) == 0 {
			p.rates["a1"] = &jobRate{sum: rng.Float64() * 50, n: rng.IntN(3)}
		}
		task := &cluster.Task{ID: "m", App: app, Kind: events.Map}
		for range rng.IntN(3) {
			task.Splits = append(task.Splits, events.Split{Length: int64(rng.IntN(3)) * 67e6})
		}
		got := p.mapExecs(ctx, task, nodes, nil)
		if len(got) != len(nodes) {
			t.Fatalf("instance %d: %d values for %d nodes", iter, len(got), len(nodes))
		}
		for i, n := range nodes {
			if want := p.mapExec(ctx, task, n); math.Float64bits(got[i]) != math.Float64bits(want) {
				t.Fatalf("instance %d: node %s: mapExecs %v, mapExec %v", iter, n.ID, got[i], want)
			}
		}
	}
}
