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
		p := newRandomMapPlugin(t, rng)
		nodes := make([]*cluster.Node, rng.IntN(8))
		for i := range nodes {
			nodes[i] = randomNode(rng, 6)
		}
		app := &cluster.App{ID: "a1", JobType: []string{"", "wc"}[rng.IntN(2)]}
		fillRandomMapRows(rng, p.rows(ctx, jobType(app)))
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

// Random Reduce_Matrix rows (learned for some nodes, seeded for others,
// empty, zero and negative entries, the cached mean stale or not), nodes of
// other clocks and repeated ids: reduceSPerGBs gives reduceSPerGB's value
// on every node, bit for bit, and leaves the row's cached mean as it does.
func TestReduceSPerGBsSameAsReduceSPerGB(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 14))
	ctx := context.Background()
	for iter := range 1000 {
		pl, err := New(ctx, policy.Handle{Args: argsFunc(func(_ string, into any) error {
			c := into.(*Config)
			c.DefaultReduceSPerGB = float64(1+rng.IntN(3)) * 4.5
			if rng.IntN(2) == 0 {
				c.ReduceMatrix = map[string]map[string]float64{"wc": {"n1": 13, "n3": 7.5, "n4": -1}}
			}
			return nil
		})})
		if err != nil {
			t.Fatal(err)
		}
		p := pl.(*Plugin)
		nodes := make([]*cluster.Node, rng.IntN(10))
		for i := range nodes {
			nodes[i] = randomNode(rng, 7)
		}
		jt := []string{"default", "wc"}[rng.IntN(2)]
		m := p.rows(ctx, jt)
		for i := range 7 {
			if rng.IntN(3) == 0 {
				m.ReduceSGB[fmt.Sprint("n", i)] = []float64{0, -2, rng.Float64() * 30}[rng.IntN(3)]
			}
		}
		if rng.IntN(2) == 0 {
			m.reduceMean = rng.Float64() * 9
		}
		mean := m.reduceMean
		got := p.reduceSPerGBs(ctx, jt, nodes, nil)
		filled := m.reduceMean
		if len(got) != len(nodes) {
			t.Fatalf("instance %d: %d values for %d nodes", iter, len(got), len(nodes))
		}
		// From the same cache, reduceSPerGB fills the row's mean when
		// reduceSPerGBs does (the values below are compared under the mean
		// reduceSPerGBs made).
		m.reduceMean = mean
		for _, n := range nodes {
			p.reduceSPerGB(ctx, jt, n)
		}
		if (m.reduceMean == 0) != (filled == 0) {
			t.Fatalf("instance %d: cached mean %v, reduceSPerGB leaves %v", iter, filled, m.reduceMean)
		}
		m.reduceMean = filled
		for i, n := range nodes {
			if want := p.reduceSPerGB(ctx, jt, n); math.Float64bits(got[i]) != math.Float64bits(want) {
				t.Fatalf("instance %d: node %s: reduceSPerGBs %v, reduceSPerGB %v", iter, n.ID, got[i], want)
			}
		}
	}
}

// Random running maps of a few apps (rates set or not, types with and
// without seeds, splits with and without bytes) on random nodes, in runs of
// one app and interleaved, as a model's pass over the nodes reads them:
// mapExecOf with one appRows carried through the pass gives mapExec's
// value, bit for bit.
func TestMapExecOfSameAsMapExec(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 2))
	ctx := context.Background()
	for iter := range 300 {
		p := newRandomMapPlugin(t, rng)
		apps := make([]*cluster.App, 1+rng.IntN(4))
		for k := range apps {
			apps[k] = &cluster.App{ID: fmt.Sprint("a", k), JobType: []string{"", "wc", "sort"}[rng.IntN(3)]}
			if rng.IntN(2) == 0 {
				p.rates[apps[k].ID] = &jobRate{sum: rng.Float64() * 50, n: rng.IntN(3)}
			}
		}
		for _, jt := range []string{"default", "wc", "sort"} {
			fillRandomMapRows(rng, p.rows(ctx, jt))
		}
		var memo appRows
		app := apps[0]
		for k := range 40 {
			if rng.IntN(3) == 0 {
				app = apps[rng.IntN(len(apps))]
			}
			task := &cluster.Task{ID: fmt.Sprint("m", k), App: app, Kind: events.Map}
			for range rng.IntN(3) {
				task.Splits = append(task.Splits, events.Split{Length: int64(rng.IntN(3)) * 67e6})
			}
			n := randomNode(rng, 6)
			got, want := p.mapExecOf(ctx, &memo, task, n), p.mapExec(ctx, task, n)
			if math.Float64bits(got) != math.Float64bits(want) {
				t.Fatalf("instance %d, map %d of %s on %s: mapExecOf %v, mapExec %v", iter, k, app.ID, n.ID, got, want)
			}
		}
	}
}

// newRandomMapPlugin builds tmar with a random task overhead and, half the
// time, a configured Map_Matrix row for type wc.
func newRandomMapPlugin(t *testing.T, rng *rand.Rand) *Plugin {
	t.Helper()
	pl, err := New(context.Background(), policy.Handle{Args: argsFunc(func(_ string, into any) error {
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
	return pl.(*Plugin)
}

// fillRandomMapRows gives a type's rows a rate (or none) and, for some of
// nodes n0-n5, a factor and seconds per map.
func fillRandomMapRows(rng *rand.Rand, m *matrices) {
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
}

// randomNode is one of nodes n0..n(ids-1) with a random clock (0: unknown).
func randomNode(rng *rand.Rand, ids int) *cluster.Node {
	return &cluster.Node{ID: fmt.Sprint("n", rng.IntN(ids)), CPUMHz: []int{0, 1200, 2400, 3100}[rng.IntN(4)]}
}
