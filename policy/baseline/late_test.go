package baseline_test

import (
	"context"
	"testing"

	"github.com/rmsidecar/rmsidecar/events"
	"github.com/rmsidecar/rmsidecar/policy/baseline"
	"github.com/rmsidecar/rmsidecar/policy/clustertest"
)

// lateReducers builds the SAMR §II-C situation for LATE: R1 has just finished
// its copy stage after Tr = 100 s (LATE's TTE 2·Tr = 200 s; with the real
// weights R1 = 0.6, R2 = R3 = 0.2 it needs 0.67·Tr = 67 s), R2 entered its
// reduce stage after 300 s (LATE: 150 s; really 75 s). Six fast reducers set
// the 25th-percentile rate above both. LATE's static weights make it pick
// R1, though R2 has longer to go: policy/samr picks R2 on the same state.
func lateReducers(b *clustertest.Builder) {
	b.Node("n1", "r1", 8, 16384, 8, 0)
	b.Node("n2", "r1", 8, 16384, 7, 0) // one free slot
	for _, n := range []string{"n3", "n4", "n5"} {
		b.Node(n, "r1", 8, 16384, 8, 0)
	}
	b.App("j", "sort", 0, 8)
	startAt(b, "j", "r1", events.Reduce, "n1", now-100_000, 1.0/3, "sort", 0)
	startAt(b, "j", "r2", events.Reduce, "n1", now-300_000, 2.0/3, "reduce", 0)
	for _, id := range []string{"f1", "f2", "f3", "f4", "f5", "f6"} {
		startAt(b, "j", id, events.Reduce, "n1", now-10_000, 5.0/6, "reduce", 0.5)
	}
}

// lastMapStraggler: maps m1..m3 of job j ran 120 s each and finished; m0 has run 90 s and
// is at 25 % (TTE 270 s). It is the only running task of the job, so the running tasks' rates
// alone give no reference (the percentile of one rate is that rate); the finished maps'
// rates (1/10 s) do. n2 has a free slot; every node has done as much work.
func lastMapStraggler(b *clustertest.Builder) {
	b.Node("n1", "r1", 8, 16384, 8, 0)
	b.Node("n2", "r1", 8, 16384, 7, 0)
	b.Node("n3", "r1", 8, 16384, 8, 0)
	b.App("j", "sort", 4, 0)
	for i, id := range []string{"m1", "m2", "m3"} {
		b.At(now - 200_000)
		b.Start("j", id, events.Map, id+"_0", []string{"n1", "n2", "n3"}[i], false)
		b.At(now - 80_000)
		b.Finish(id+"_0", events.StateSucceeded, nil)
	}
	b.At(now)
	startAt(b, "j", "m0", events.Map, "n1", now-90_000, 0.25, "map", 0.25)
}

// reducersWaitingForMaps: map m0 of job j still runs (30 s in); reducer r1 has copied for
// 200 s at 10 % while r2..r4, started later, are at 30 %. n2 has a free slot.
func reducersWaitingForMaps(b *clustertest.Builder) {
	b.Node("n1", "r1", 8, 16384, 8, 0)
	b.Node("n2", "r1", 8, 16384, 7, 0)
	b.Node("n3", "r1", 8, 16384, 8, 0)
	b.App("j", "sort", 1, 4)
	startAt(b, "j", "m0", events.Map, "n1", now-30_000, 0.5, "map", 0.5)
	startAt(b, "j", "r1", events.Reduce, "n3", now-200_000, 0.1, "shuffle", 0.3)
	for _, id := range []string{"r2", "r3", "r4"} {
		startAt(b, "j", id, events.Reduce, "n2", now-100_000, 0.3, "shuffle", 0.9)
	}
}

// doneOn records a finished task of another app on node (LATE's node score).
func doneOn(b *clustertest.Builder, node, task string) {
	b.App("old", "sort", 4, 0)
	b.Start("old", task, events.Map, task+"_0", node, false)
	b.Finish(task+"_0", events.StateSucceeded, nil)
}

func TestLATE(t *testing.T) {
	tests := []struct {
		name  string
		args  args
		setup func(b *clustertest.Builder)
		want  []want
	}{
		{"SAMR II-C: LATE picks R1 by its static-weight TTE of 2 Tr", nil, lateReducers,
			[]want{{"r1", "n2", 200_000}}},
		{"no copy on a node below the SlowNodeThreshold", nil, func(b *clustertest.Builder) {
			lateReducers(b)
			for i, n := range []string{"n3", "n4", "n5"} {
				doneOn(b, n, "old"+string(rune('a'+i)))
			}
		}, nil},
		{"a fast node gets the copy instead", nil, func(b *clustertest.Builder) {
			lateReducers(b)
			for i, n := range []string{"n3", "n4", "n5"} {
				doneOn(b, n, "old"+string(rune('a'+i)))
			}
			b.Heartbeat("n4", 7, 0)
		}, []want{{"r1", "n4", 200_000}}},
		{"SpeculativeCap reached", args{"late": {"speculative_cap": 0.025}}, func(b *clustertest.Builder) {
			lateReducers(b)
			b.Start("j", "f1", events.Reduce, "f1_1", "n3", true)
		}, nil},
		{"two free slots, two copies, longest TTE first", nil, func(b *clustertest.Builder) {
			lateReducers(b)
			b.Heartbeat("n3", 7, 0)
		}, []want{{"r1", "n2", 200_000}, {"r2", "n3", 150_000}}},
		{"the job's last map, a straggler alone in its wave, is still judged against its finished siblings", nil, lastMapStraggler,
			[]want{{"m0", "n2", 270_000}}},
		{"the last map at its siblings' pace is not speculated", nil, func(b *clustertest.Builder) {
			lastMapStraggler(b)
			b.Progress("m0_0", 0.9, "map", 0.9) // 90 % in 90 s: faster than the finished maps
		}, nil},
		{"a reduce copying while its job's maps still run is left alone (its rate is the maps')", nil, reducersWaitingForMaps, nil},
		{"the same reduces once the maps are done: the slow one is backed up", nil, func(b *clustertest.Builder) {
			reducersWaitingForMaps(b)
			b.Finish("m0_0", events.StateSucceeded, nil)
		}, []want{{"r1", "n2", -1}}},
		{"a task with a running copy is not speculated again", nil, func(b *clustertest.Builder) {
			lateReducers(b)
			b.Start("j", "r1", events.Reduce, "r1_1", "n3", true)
		}, []want{{"r2", "n2", 150_000}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := clustertest.New(now)
			tt.setup(b)
			p := build(t, baseline.NewLATE, tt.args)
			check(t, tt.name, speculate(t, p, b), tt.want)
		})
	}
}

func TestLATEBadConfig(t *testing.T) {
	if _, err := baseline.NewLATE(context.Background(), policyHandle(args{"late": {"slow_task_threshold": 1.5}})); err == nil {
		t.Fatal("a percentile above 1 must be rejected")
	}
}
