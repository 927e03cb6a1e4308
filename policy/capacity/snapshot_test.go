package capacity

import (
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/rmsidecar/rmsidecar/cluster"
	"github.com/rmsidecar/rmsidecar/events"
)

// TestSnapshotReuseSameAsFresh holds a Scratch that snapshots one state
// round after round (reusing the last round's ids, and the nodes' states and
// sizes unless told NodesChanged; Reserve and Refresh called between some
// rounds) to a
// fresh snapshot of
// the same state, on random streams of registrations, heartbeats and lost
// nodes: the same entries in the same order, and the same picks; both are also
// held to the nodes read afresh and the reference scan (pickByScan).
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
					reused.NodesChanged() // as the policy does on these events
				case 1:
					apply(events.Event{Type: events.NodeLost, Node: node, Reason: "test"})
					reused.NodesChanged()
				default:
					apply(events.Event{Type: events.NodeHeartbeat, Node: node, UsedVCores: r.IntN(16), UsedMemoryMB: 1024 * r.IntN(16)})
				}
			}
			if r.IntN(3) == 0 {
				reused.Reserve(r.IntN(80)) // room made between rounds keeps the last one's entries
			}
			if r.IntN(2) == 0 {
				reused.Refresh(st) // as a round without a snapshot does
				if r.IntN(3) == 0 {
					// Heartbeats after the refresh, before the snapshot.
					ts++
					apply(events.Event{Type: events.NodeHeartbeat, Node: "nm" + strconv.Itoa(r.IntN(40)) + ":8041", UsedVCores: r.IntN(16), UsedMemoryMB: 1024 * r.IntN(16)})
				}
			}
			got, want := reused.Snapshot(st), New(st)
			// The reference: every running node that has sent a
			// heartbeat, in the state's order, read afresh.
			var ref []*refNode
			for _, n := range st.Nodes() {
				if n.State == cluster.NodeRunning && n.HeartbeatTS != 0 {
					ref = append(ref, &refNode{node: n, vcores: n.FreeVCores(), memoryMB: n.FreeMemoryMB()})
				}
			}
			if len(got.free) != len(want.free) || len(got.free) != len(ref) || len(got.refs) != len(st.Nodes()) {
				t.Fatalf("seed %d round %d: %d nodes, fresh %d, reference %d", seed, round, len(got.free), len(want.free), len(ref))
			}
			for i := range got.free {
				g, w := got.free[i], want.free[i]
				if g != w || got.refs[g.ref] != want.refs[w.ref] {
					t.Fatalf("seed %d round %d node %d: %+v %+v, fresh %+v %+v", seed, round, i, g, got.refs[g.ref], w, want.refs[w.ref])
				}
				if r := got.refs[g.ref]; r.node != st.Nodes()[g.ref] || r.node != ref[i].node || r.id != ref[i].node.ID || r.idKey != idPrefix(r.id) ||
					g.idKey != r.idKey || g.vcores != ref[i].vcores || g.memoryMB != ref[i].memoryMB {
					t.Fatalf("seed %d round %d node %d: %+v %+v, want %s %d/%d", seed, round, i, g, r, ref[i].node.ID, ref[i].vcores, ref[i].memoryMB)
				}
			}
			for range 5 {
				need := Need{VCores: 1 + r.IntN(3), MemoryMB: 1024 * r.IntN(3)}
				avoid := "nm" + strconv.Itoa(r.IntN(40)) + ":8041"
				a, b, c := got.Pick(need, nil, avoid), want.Pick(need, nil, avoid), pickByScan(ref, need, nil, avoid)
				if a != b || a != c {
					t.Fatalf("seed %d round %d: picked %v, fresh %v, reference %v", seed, round, a, b, c)
				}
				if a, b := got.Slots(need), refSlots(ref, need); a != b {
					t.Fatalf("seed %d round %d: %d slots after the picks, reference %d", seed, round, a, b)
				}
			}
		}
	}
}

// TestSnapshotOfAnotherState: a Scratch that snapshotted a larger state
// snapshots a smaller one (a policy given another View) as a fresh one does.
func TestSnapshotOfAnotherState(t *testing.T) {
	build := func(nodes int) *cluster.State {
		st := cluster.New()
		for i := range nodes {
			id := "nm" + strconv.Itoa(i) + ":8041"
			st.Apply(&events.Event{V: events.Version, ID: "r" + id, TS: 1, Type: events.NodeRegistered, Node: id, Rack: "/r", VCores: 8, MemoryMB: 8192})
			st.Apply(&events.Event{V: events.Version, ID: "h" + id, TS: 2, Type: events.NodeHeartbeat, Node: id, UsedVCores: i % 8})
		}
		return st
	}
	var s Scratch
	s.Snapshot(build(30))
	small := build(7)
	got, want := s.Snapshot(small), New(small)
	if len(got.free) != len(want.free) || len(got.refs) != len(small.Nodes()) {
		t.Fatalf("%d entries and %d refs, fresh %d entries", len(got.free), len(got.refs), len(want.free))
	}
	for i := range got.free {
		if g, w := got.free[i], want.free[i]; g != w || got.refs[g.ref] != want.refs[w.ref] {
			t.Fatalf("entry %d: %+v %+v, fresh %+v %+v", i, g, got.refs[g.ref], w, want.refs[w.ref])
		}
	}
}
