package baseline

import (
	"context"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/rmsidecar/rmsidecar/cluster"
	"github.com/rmsidecar/rmsidecar/policy"
	"github.com/rmsidecar/rmsidecar/policy/taskstat"
)

// TestYARNReasonsInRoomSameAsCopied runs two speculators over one cluster
// whose rounds propose a copy in each of 150 jobs: one writes its large
// rounds' reasons in the room a scan that proposed nothing made, the other
// has no room and copies them into a string. Every round's hints, reasons
// included, must be the same, and the reasons of earlier rounds must not
// change as later rounds write theirs.
func TestYARNReasonsInRoomSameAsCopied(t *testing.T) {
	ctx := context.Background()
	newYARN := func() *YARN {
		return &YARN{cfg: DefaultYARNConfig(), durations: taskstat.NewDurations(), jobs: map[*cluster.App]*yarnJob{}}
	}
	room, copied := newYARN(), newYARN()
	// No task finished yet: every job is shut by its gate, and the scan,
	// which proposes nothing, makes the room.
	early := someCluster(room, 300, 150, 0)
	if hs, _ := room.Speculate(ctx, early); len(hs) != 0 || room.reasonRoom == nil {
		t.Fatalf("a scan of shut jobs proposed %d copies and made room %v", len(hs), room.reasonRoom != nil)
	}
	room.jobs, room.atApp, room.lastApp, room.lastJob = map[*cluster.App]*yarnJob{}, nil, nil, nil
	room.durations = taskstat.NewDurations()
	st := someCluster(room, 300, 150, 5)
	for _, a := range st.Apps() { // the same records in the other speculator
		copied.touch(a.Tasks[0])
	}
	copied.durations = room.durations
	type kept struct{ reason, clone string }
	var earlier []kept
	for round := range 4 {
		for _, p := range []*YARN{room, copied} {
			p.nextScan = 0
			for _, j := range p.jobs {
				for i := range j.tasks {
					j.tasks[i].proposal = false
				}
				j.lastProposed = math.MinInt64
			}
		}
		if round > 0 {
			room.readyRoom() // as a scan that proposed nothing between the rounds does
		}
		copied.reasonRoom = nil
		got, _ := room.Speculate(ctx, st)
		got = append([]policy.Hint(nil), got...)
		want, _ := copied.Speculate(ctx, st)
		if len(got) != 150 || len(got) != len(want) {
			t.Fatalf("round %d: %d hints in the room, %d copied; want 150", round, len(got), len(want))
		}
		if room.reasonRoom != nil {
			t.Fatalf("round %d: the room is still ready after a round wrote in it", round)
		}
		for i := range got {
			if !reflect.DeepEqual(got[i], want[i]) || !strings.HasPrefix(got[i].Reason, "yarn: estimated end ") {
				t.Fatalf("round %d hint %d: %+v in the room, %+v copied", round, i, got[i], want[i])
			}
			earlier = append(earlier, kept{got[i].Reason, strings.Clone(got[i].Reason)})
		}
		for k, e := range earlier {
			if e.reason != e.clone {
				t.Fatalf("round %d: reason %d changed from %q to %q", round, k, e.clone, e.reason)
			}
		}
	}
}

// TestYARNMarksOnlyProposed: on a cluster with room for fewer copies than
// the round's candidates (so some picks fail), after a round exactly the
// tasks that got a copy carry the proposal (at the scan's time), and a
// job's lastProposed moved to the scan's time only if one of its tasks got
// one; every other record is as before the round.
func TestYARNMarksOnlyProposed(t *testing.T) {
	ctx := context.Background()
	p := &YARN{cfg: DefaultYARNConfig(), durations: taskstat.NewDurations(), jobs: map[*cluster.App]*yarnJob{}}
	st := someCluster(p, 3, 90, 5) // 3 nodes of 22 free vcores: 66 copies for 90 candidates
	type rec struct {
		proposal bool
		proposed int64
	}
	before := map[*yarnJob][]rec{}
	last := map[*yarnJob]int64{}
	for _, j := range p.jobs {
		j.lastProposed = 5 // a proposal long ago, kept where no copy is made
		for i := range j.tasks {
			before[j] = append(before[j], rec{j.tasks[i].proposal, j.runs[i].proposed})
		}
		last[j] = j.lastProposed
	}
	hs, _ := p.Speculate(ctx, st)
	if len(hs) != 66 {
		t.Fatalf("%d copies, want 66 (the nodes' room)", len(hs))
	}
	now := st.Now()
	copied := map[string]bool{}
	for _, h := range hs {
		copied[h.Task] = true
	}
	for a, j := range p.jobs {
		got := false
		for i, task := range a.Tasks {
			want := before[j][i]
			if copied[task.ID] {
				want, got = rec{true, now}, true
			}
			if r := (rec{j.tasks[i].proposal, j.runs[i].proposed}); r != want {
				t.Fatalf("app %s task %s: record %+v, want %+v", a.ID, task.ID, r, want)
			}
		}
		want := last[j]
		if got {
			want = max(want, now)
		}
		if j.lastProposed != want {
			t.Fatalf("app %s: lastProposed %d, want %d", a.ID, j.lastProposed, want)
		}
	}
}
