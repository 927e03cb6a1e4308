package capacity

import (
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/rmsidecar/rmsidecar/cluster"
	"github.com/rmsidecar/rmsidecar/events"
)

// TestSnapshotTrackedSameAsFresh holds the snapshots of a Scratch that
// observes the events (Observe) to a fresh read of every node (New), on
// random streams of registrations, heartbeats (stale ones too), lost nodes
// and nodes first named by a container: the same entries in the same order,
// then the same picks and slots. A second Scratch joins mid-stream, and the
// stream moves to a state restored from a checkpoint (new nodes, as after a
// restart).
func TestSnapshotTrackedSameAsFresh(t *testing.T) {
	checked := 0
	for seed := range uint64(30) {
		r := rand.New(rand.NewPCG(seed, 5))
		st := cluster.New()
		scratches := []*Scratch{new(Scratch)}
		seq, ts := 0, int64(1_000)
		for round := range 80 {
			if round == 20 {
				scratches = append(scratches, new(Scratch)) // joins a populated state
			}
			if round == 50 {
				var err error
				if st, err = cluster.Restore(st.Checkpoint()); err != nil {
					t.Fatal(err)
				}
			}
			for range r.IntN(40) {
				seq++
				ts += int64(r.IntN(3))
				ev := events.Event{V: events.Version, ID: "e" + strconv.Itoa(seq), TS: ts - int64(r.IntN(2))*5,
					Node: "nm" + strconv.Itoa(r.IntN(50)) + ":8041"}
				switch r.IntN(8) {
				case 0:
					ev.Type, ev.Rack, ev.VCores, ev.MemoryMB = events.NodeRegistered, "/r", 8+r.IntN(8), 1024*(8+r.IntN(8))
				case 1:
					ev.Type, ev.Reason = events.NodeLost, "test"
				case 2:
					ev.Type, ev.App, ev.Maps = events.AppSubmitted, "application_1_1", 1
				case 3:
					ev.Type, ev.App, ev.Task, ev.Attempt, ev.Container = events.ContainerAllocated, "application_1_1",
						"task_1_1_m_0", "task_1_1_m_0_"+strconv.Itoa(seq), "c"+strconv.Itoa(seq)
				default:
					ev.Type, ev.UsedVCores, ev.UsedMemoryMB = events.NodeHeartbeat, r.IntN(16), 1024*r.IntN(16)
				}
				if ev.Type == events.AppSubmitted || ev.Type == events.ContainerAllocated {
					ev.Node = ""
					if ev.Type == events.ContainerAllocated {
						ev.Node = "nm" + strconv.Itoa(50+r.IntN(10)) + ":8041" // a node first named here
					}
				}
				if st.Apply(&ev) {
					for _, s := range scratches {
						s.Observe(&ev, st)
					}
				}
			}
			want := New(st)
			for k, s := range scratches {
				if round%3 == k { // snapshots taken at different times
					continue
				}
				got := s.Snapshot(st)
				if len(got.nodes) != len(want.nodes) {
					t.Fatalf("seed %d round %d scratch %d: %d nodes, fresh %d", seed, round, k, len(got.nodes), len(want.nodes))
				}
				for i := range got.nodes {
					if g, w := *got.nodes[i], *want.nodes[i]; g != w {
						t.Fatalf("seed %d round %d scratch %d node %d: %+v, fresh %+v", seed, round, k, i, g, w)
					}
				}
				fresh := New(st)
				for range 5 {
					need := Need{VCores: 1 + r.IntN(3), MemoryMB: 1024 * r.IntN(3)}
					avoid := "nm" + strconv.Itoa(r.IntN(50)) + ":8041"
					if a, b := got.Pick(need, nil, avoid), fresh.Pick(need, nil, avoid); a != b {
						t.Fatalf("seed %d round %d scratch %d: picked %v, fresh %v", seed, round, k, a, b)
					}
					if a, b := got.Slots(need), fresh.Slots(need); a != b {
						t.Fatalf("seed %d round %d scratch %d: %d slots, fresh %d", seed, round, k, a, b)
					}
				}
				checked += len(got.nodes)
			}
		}
	}
	if checked < 20_000 {
		t.Fatalf("only %d node entries checked", checked)
	}
}
