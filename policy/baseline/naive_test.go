package baseline_test

import (
	"testing"

	"github.com/rmsidecar/rmsidecar/events"
	"github.com/rmsidecar/rmsidecar/policy/baseline"
	"github.com/rmsidecar/rmsidecar/policy/clustertest"
)

const now = 10_000_000

// samrMaps is SAMR §II-B, shortcoming (2): T_i has PS 0.7 and needs 100 s
// more, T_j has PS 0.5 and needs 30 s; PS_avg is 0.8 (four more tasks at
// 0.9). Eq. 3 picks T_j, although a backup of T_i would save more.
func samrMaps(b *clustertest.Builder) {
	b.Node("n1", "r1", 8, 16384, 6, 0)
	b.Node("n2", "r1", 8, 16384, 0, 0)
	b.App("j", "sort", 6, 0)
	// TTE = (1-PS)/(PS/Tr) => Tr = TTE*PS/(1-PS).
	startAt(b, "j", "ti", events.Map, "n1", now-233_333, 0.7*2/3, "map", 0.7)
	startAt(b, "j", "tj", events.Map, "n1", now-30_000, 0.5*2/3, "map", 0.5)
	for _, id := range []string{"a", "b", "c", "d"} {
		startAt(b, "j", id, events.Map, "n1", now-100_000, 0.9*2/3, "map", 0.9)
	}
}

// samrReducers is SAMR §II-B, shortcoming (3): three reducers at PS 0.33,
// 0.66 and 0.66; PS_avg = 0.55 and eq. 3 backs up R_i, which is only
// entering the short sort stage.
func samrReducers(b *clustertest.Builder) {
	b.Node("n1", "r1", 8, 16384, 3, 0)
	b.Node("n2", "r1", 8, 16384, 0, 0)
	b.App("j", "sort", 0, 3)
	startAt(b, "j", "ri", events.Reduce, "n1", now-120_000, 1.0/3, "sort", 0)
	startAt(b, "j", "rj", events.Reduce, "n1", now-120_000, 2.0/3, "reduce", 0)
	startAt(b, "j", "rk", events.Reduce, "n1", now-120_000, 2.0/3, "reduce", 0)
}

func TestNaive(t *testing.T) {
	noLag := args{"naive": {"min_runtime_ms": 0}}
	tests := []struct {
		name  string
		args  args
		setup func(b *clustertest.Builder)
		want  []want
	}{
		{"SAMR II-B: PS 0.5 needing 30 s is picked over PS 0.7 needing 100 s", noLag, samrMaps,
			[]want{{"tj", "n2", 30_000}}},
		{"SAMR II-B: a reducer at 0.33 among 0.66s is backed up", nil, samrReducers,
			[]want{{"ri", "n2", 240_000}}},
		{"a task younger than a minute is not judged", nil, samrMaps, nil},
		{"pending tasks of the job come first", noLag, func(b *clustertest.Builder) {
			samrMaps(b)
			b.Pending("j", "more", events.Map)
		}, nil},
		{"at most one backup per task", noLag, func(b *clustertest.Builder) {
			samrMaps(b)
			b.Start("j", "tj", events.Map, "tj_1", "n2", true)
			b.Finish("tj_1", events.StateKilled, nil)
		}, nil},
		{"no free capacity, no hint", noLag, func(b *clustertest.Builder) {
			samrMaps(b)
			b.Heartbeat("n1", 8, 0)
			b.Heartbeat("n2", 8, 0)
		}, nil},
		{"the task's own node only when nothing else is free", noLag, func(b *clustertest.Builder) {
			samrMaps(b)
			b.Heartbeat("n2", 8, 0)
		}, []want{{"tj", "n1", 30_000}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := clustertest.New(now)
			tt.setup(b)
			p := build(t, baseline.NewNaive, tt.args)
			check(t, tt.name, speculate(t, p, b), tt.want)
		})
	}
}

func TestNaiveDoesNotReproposeAtOnce(t *testing.T) {
	b := clustertest.New(now)
	samrMaps(b)
	p := build(t, baseline.NewNaive, args{"naive": {"min_runtime_ms": 0}})
	if got := speculate(t, p, b); len(got) != 1 {
		t.Fatalf("first tick: %d hints", len(got))
	}
	b.At(now + 1000)
	b.Heartbeat("n2", 0, 0)
	if got := speculate(t, p, b); len(got) != 0 {
		t.Fatalf("second tick re-proposed: %+v", got)
	}
	b.At(now + 16_000)
	b.Heartbeat("n2", 0, 0)
	if got := speculate(t, p, b); len(got) != 1 {
		t.Fatalf("after repropose_ms with no copy: %d hints, want 1", len(got))
	}
}

// TestNaiveAverageCountsFinishedTasks: eq. 2 averages over all T tasks of the
// job, finished ones at 1 (Hadoop's job progress). With 8 of 10 maps done, a
// running map at PS 0.75 is below PS_avg - 0.2 = (8 + 0.75 + 0.95)/10 - 0.2
// = 0.77 and gets a backup; averaged over the two running maps only (0.85)
// it would not (0.75 > 0.65).
func TestNaiveAverageCountsFinishedTasks(t *testing.T) {
	b := clustertest.New(now)
	b.Node("n1", "r1", 8, 16384, 2, 0)
	b.Node("n2", "r1", 8, 16384, 0, 0)
	b.App("j", "sort", 10, 0)
	for i := range 8 {
		id := string(rune('a' + i))
		startAt(b, "j", id, events.Map, "n1", now-200_000, 1, "map", 1)
		b.Finish(id+"_0", events.StateSucceeded, nil)
	}
	startAt(b, "j", "slow", events.Map, "n1", now-100_000, 0.75*2/3, "map", 0.75)
	startAt(b, "j", "fast", events.Map, "n1", now-100_000, 0.95*2/3, "map", 0.95)
	p := build(t, baseline.NewNaive, nil)
	hs := speculate(t, p, b)
	if len(hs) != 1 || hs[0].Task != "slow" {
		t.Fatalf("hints = %+v, want one backup of the map at 0.75", hs)
	}
}
