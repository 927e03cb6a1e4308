package capacity

import (
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/rmsidecar/rmsidecar/cluster"
	"github.com/rmsidecar/rmsidecar/events"
)

// TestSnapshotReuseSameAsFresh holds a Scratch that snapshots one state
// round after round (reusing the last round's ids, Reserve called between
// some rounds) to a fresh snapshot of
// the same state, on random streams of registrations, heartbeats and lost
// nodes: the same entries in the same order, and the same picks.
func TestSnapshotReuseSameAsFresh(t *testing.T) {
	for seed := range uint64(30) {
		r := rand.New(rand.NewPCG(seed, 3))
		st := cluster.New()
		var reused Scratch
		seq, ts := 0, int64(1_000)
		apply := func(ev events.Event) {
			seq++
			ev.V, ev.ID, ev.TS = events.Version, "e"+strconv.Itoa(seq), ts
			st.Apply(&ev)
		}
		for round := range 60 {
			for range r.IntN(30) {
				ts += int64(r.IntN(3))
				node := "nm" + strconv.Itoa(r.IntN(40)) + ":8041"
				switch r.IntN(6) {
				case 0:
					apply(events.Event{Type: events.NodeRegistered, Node: node, Rack: "/r", VCores: 8 + r.IntN(8), MemoryMB: 1024 * (8 + r.IntN(8))})
				case 1:
					apply(events.Event{Type: events.NodeLost, Node: node, Reason: "test"})
				default:
					apply(events.Event{Type: events.NodeHeartbeat, Node: node, UsedVCores: r.IntN(16), UsedMemoryMB: 1024 * r.IntN(16)})
				}
			}
			if r.IntN(3) == 0 {
				reused.Reserve(r.IntN(80)) // room made between rounds keeps the last one's entries
			}
			got, want := reused.Snapshot(st), New(st)
			if len(got.nodes) != len(want.nodes) {
				t.Fatalf("seed %d round %d: %d nodes, fresh %d", seed, round, len(got.nodes), len(want.nodes))
			}
			for i := range got.nodes {
				g, w := *got.nodes[i], *want.nodes[i]
				if g != w {
					t.Fatalf("seed %d round %d node %d: %+v, fresh %+v", seed, round, i, g, w)
				}
			}
			for range 5 {
				need := Need{VCores: 1 + r.IntN(3), MemoryMB: 1024 * r.IntN(3)}
				avoid := "nm" + strconv.Itoa(r.IntN(40)) + ":8041"
				if a, b := got.Pick(need, nil, avoid), want.Pick(need, nil, avoid); a != b {
					t.Fatalf("seed %d round %d: picked %v, fresh %v", seed, round, a, b)
				}
				if a, b := got.Slots(need), want.Slots(need); a != b {
					t.Fatalf("seed %d round %d: %d slots after the picks, fresh %d", seed, round, a, b)
				}
			}
		}
	}
}
