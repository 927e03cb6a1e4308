package sim

import (
	"math/rand/v2"
	"testing"
)

// Processor sharing on one link: two flows share it equally until the
// smaller one ends, then the other gets the whole link.
func TestLinkProcessorSharing(t *testing.T) {
	const gbps = 1.0
	capB := gbps * 1e9 / 8 / 1000 // bytes per ms
	for _, tc := range []struct {
		name  string
		sizes []int64 // flows started at t=0 on the same link
		want  []int64 // completion times, ms
	}{
		{"alone", []int64{125_000_000}, []int64{1000}},
		{"equal pair", []int64{125_000_000, 125_000_000}, []int64{2000, 2000}},
		{"small then large", []int64{125_000_000, 250_000_000}, []int64{2000, 3000}},
		{"three", []int64{125_000_000, 125_000_000, 250_000_000}, []int64{3000, 3000, 4000}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			nw := &network{links: []link{{capB: capB, at: -1}}}
			ids := make([]int32, len(tc.sizes))
			for i, b := range tc.sizes {
				ids[i] = nw.start(0, nil, false, b, []int32{0})
			}
			done := map[int32]int64{}
			l := &nw.links[0]
			for l.members > 0 {
				at := nw.nextDone(l)
				for {
					id := nw.due(l, at)
					if id < 0 {
						break
					}
					done[id] = at
					nw.finish(at, id)
				}
			}
			for i, id := range ids {
				if got := done[id]; got != tc.want[i] {
					t.Errorf("flow %d (%d bytes) done at %d ms, want %d", i, tc.sizes[i], got, tc.want[i])
				}
			}
		})
	}
}

// Equal share per link: a fetch into a node that already receives two
// flows gets a third of that NIC even though its sender is idle, and the
// receiver's NIC is never oversubscribed.
func TestFlowBottleneck(t *testing.T) {
	capB := 1e9 / 8 / 1000
	nw := &network{links: []link{{capB: capB, at: -1}, {capB: capB, at: -1}, {capB: capB, at: -1}}}
	// links: 0 = receiver NIC in, 1 = busy sender out, 2 = idle sender out
	nw.start(0, nil, false, 1<<40, []int32{1, 0})
	nw.start(0, nil, false, 1<<40, []int32{1, 0})
	id := nw.start(0, nil, false, 125_000_000, []int32{2, 0})
	if f := nw.flows[id]; f.serve != 0 {
		t.Fatalf("served by link %d, want the receiver's NIC (0)", f.serve)
	}
	l := &nw.links[0]
	if got := nw.nextDone(l); got != 3000 {
		t.Fatalf("done at %d ms, want 3000 (a third of the NIC)", got)
	}
	// When one of the other flows ends at 1.5 s, the share rises to a half.
	var other int32
	for i := range nw.flows {
		if int32(i) != id && nw.flows[i].active {
			other = int32(i)
			break
		}
	}
	nw.finish(1500, other)
	// 62.5 MB served by 1.5 s at C/3; the other 62.5 MB at C/2 takes 1 s.
	if got := nw.nextDone(l); got != 2500 {
		t.Fatalf("done at %d ms after the share grew, want 2500", got)
	}
	nw.finish(2500, id)
	if l.traverse != 1 || l.members != 0 {
		t.Fatalf("after finish: traverse %d members %d", l.traverse, l.members)
	}
}

// With rack_fetch_pairs below a job's maps x reduces, reducers fetch per
// source rack: fewer fetches, the same bytes.
func TestRackFetch(t *testing.T) {
	perNode := runSim(t, mustParse(t, heteroYAML), "none", Options{Registry: testRegistry()})
	grouped := mustParse(t, heteroYAML)
	grouped.Cluster.Network.RackFetchPairs = 1
	perRack := runSim(t, grouped, "none", Options{Registry: testRegistry()})
	for i, j := range perRack.jobs {
		if !j.rackFetch || perNode.jobs[i].rackFetch {
			t.Fatalf("%s: rackFetch %v per rack, %v per node", j.id, j.rackFetch, perNode.jobs[i].rackFetch)
		}
		if j.produced != j.shuffled || j.produced != perNode.jobs[i].produced {
			t.Errorf("%s: produced %d, fetched %d (per node: %d)", j.id, j.produced, j.shuffled, perNode.jobs[i].produced)
		}
	}
	if a, b := perRack.m.byKind[evLinkDone], perNode.m.byKind[evLinkDone]; a >= b {
		t.Errorf("per-rack fetching took %d link events, per node %d", a, b)
	}
}

// A fetch index, hashed or dense, finds a source's latest entry in a fetch
// list as a map does, through reuse across lists.
func TestFetchIndex(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, dense := range []bool{false, true} {
		x := &fetchIndex{}
		if dense {
			x.dense = make([]int32, 300)
		}
		for list := range 50 {
			ref := map[int32]int32{}
			var q []pendFetch
			for range rng.IntN(2000) {
				src := int32(rng.IntN(300))
				i, ok := x.lookup(src, q)
				ri, rok := ref[src]
				if ok != rok || ok && i != ri {
					t.Fatalf("dense %v list %d: lookup(%d) = %d, %v; want %d, %v", dense, list, src, i, ok, ri, rok)
				}
				if !ok || rng.IntN(4) == 0 {
					x.set(src, int32(len(q)))
					ref[src] = int32(len(q))
					q = append(q, pendFetch{src: src})
				}
			}
			x.reset()
		}
	}
}
