package samr_test

import (
	"context"
	"math"
	"testing"

	"github.com/rmsidecar/rmsidecar/events"
	"github.com/rmsidecar/rmsidecar/policy"
	"github.com/rmsidecar/rmsidecar/policy/baseline"
	"github.com/rmsidecar/rmsidecar/policy/clustertest"
	"github.com/rmsidecar/rmsidecar/policy/samr"
	"github.com/rmsidecar/rmsidecar/policy/taskstat"
	"github.com/rmsidecar/rmsidecar/profiles"
)

// realReduce are the reduce weights of SAMR §II-C's "real system".
var realReduce = taskstat.Weights{M1: 1, R1: 0.6, R2: 0.2, R3: 0.2}

// storeWith returns a profile store whose SAMR history says node n1 runs
// sort reducers with weights w.
func storeWith(t *testing.T, w taskstat.Weights) *profiles.DB {
	t.Helper()
	db := profiles.NewMemory()
	doc := map[string]any{"v": 1, "entries": []samr.Entry{{Node: "n1", JobType: "sort", Weights: w, Reduces: 5}}}
	if err := db.Put(context.Background(), samr.ProfileNS, samr.ProfileKey, doc); err != nil {
		t.Fatal(err)
	}
	return db
}

func newSAMR(t testing.TB, a args, store policy.ProfileStore) *samr.Plugin {
	t.Helper()
	h := policy.Handle{Profiles: store}
	if a != nil {
		h.Args = a
	}
	p, err := samr.New(context.Background(), h)
	if err != nil {
		t.Fatal(err)
	}
	return p.(*samr.Plugin)
}

// lateReducers: R1 just finished copying after Tr = 100 s; R2 entered its
// reduce stage after 300 s; six fast reducers; one free slot on n2.
func lateReducers(b *clustertest.Builder) {
	b.Node("n1", "r1", 8, 16384, 8, 0)
	b.Node("n2", "r1", 8, 16384, 7, 0)
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

// TestLATEExampleSAMRPicksRight is SAMR §II-C. With the real weights
// R1 = 0.6, R2 = R3 = 0.2, R1 needs (1-0.6)·(Tr/0.6) = 0.67·Tr = 67 s and R2
// needs 75 s. LATE's static weights say 2·Tr = 200 s and 150 s and back up
// R1; SAMR, reading the weights from history, backs up R2.
func TestLATEExampleSAMRPicksRight(t *testing.T) {
	b := clustertest.New(now)
	lateReducers(b)
	p := newSAMR(t, nil, storeWith(t, realReduce))
	spec, class := speculate(t, p, b)
	check(t, spec, []want{{"r2", "n2", 75_000}})
	if len(class) != 0 {
		t.Errorf("no node is slow here: %+v", class)
	}

	b2 := clustertest.New(now)
	lateReducers(b2)
	late, _ := baseline.NewLATE(context.Background(), policy.Handle{})
	hs, _ := late.(policy.Speculator).Speculate(context.Background(), b2.State)
	if len(hs) != 1 || hs[0].Task != "r1" || hs[0].EstRemainingMS != 200_000 {
		t.Fatalf("LATE on the same state: %+v, want r1 with 200 s", hs)
	}
}

// samrMaps is SAMR §II-B (2): T_i at PS 0.7 needs 100 s more, T_j at PS 0.5
// needs 30 s; PS_avg = 0.8. Hadoop backs up T_j (see policy/baseline); SAMR
// finds T_i slow by its rate (eq. 6) and backs it up.
func samrMaps(b *clustertest.Builder) {
	b.Node("n1", "r1", 8, 16384, 6, 0)
	b.Node("n2", "r1", 8, 16384, 7, 0)
	b.App("j", "sort", 6, 0)
	startAt(b, "j", "ti", events.Map, "n1", now-233_333, 0.7*2/3, "map", 0.7)
	startAt(b, "j", "tj", events.Map, "n1", now-30_000, 0.5*2/3, "map", 0.5)
	for _, id := range []string{"a", "b", "c", "d"} {
		startAt(b, "j", id, events.Map, "n1", now-100_000, 0.9*2/3, "map", 0.9)
	}
}

func TestSectionIIBMapsSAMRBacksUpTheSlowOne(t *testing.T) {
	b := clustertest.New(now)
	samrMaps(b)
	spec, _ := speculate(t, newSAMR(t, nil, nil), b)
	check(t, spec, []want{{"ti", "n2", 100_000}})
}

// samrReducers is SAMR §II-B (3): reducers at 0.33, 0.66, 0.66 by Hadoop's
// weights; R_i has only finished copying, and the sort stage is short.
func samrReducers(b *clustertest.Builder) {
	b.Node("n1", "r1", 8, 16384, 3, 0)
	b.Node("n2", "r1", 8, 16384, 0, 0)
	b.App("j", "sort", 0, 3)
	startAt(b, "j", "ri", events.Reduce, "n1", now-120_000, 1.0/3, "sort", 0)
	startAt(b, "j", "rj", events.Reduce, "n1", now-120_000, 2.0/3, "reduce", 0)
	startAt(b, "j", "rk", events.Reduce, "n1", now-120_000, 2.0/3, "reduce", 0)
}

func TestSectionIIBReducers(t *testing.T) {
	tests := []struct {
		name  string
		store func(t *testing.T) *profiles.DB
		want  []want
	}{
		// PS 0.6 vs 0.8 with the learned weights: R_i's rate is 75 % of the
		// others', above 1 - STaC = 70 % of APR: not slow, no backup.
		{"history knows copying is 60 %: no needless backup", func(t *testing.T) *profiles.DB { return storeWith(t, realReduce) }, nil},
		// Without history SAMR starts from Hadoop's weights: 0.33 vs 0.66.
		{"no history yet: Hadoop's weights, R_i looks slow", func(*testing.T) *profiles.DB { return profiles.NewMemory() },
			[]want{{"ri", "n2", 240_000}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := clustertest.New(now)
			samrReducers(b)
			spec, _ := speculate(t, newSAMR(t, nil, tt.store(t)), b)
			check(t, spec, tt.want)
		})
	}
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

// TestStageWeightsFromHistory follows Fig. 2 with HP = 0.2: finished tasks'
// phase durations become history (step 3-4) and the weights of a running
// task blend HP of history with 1 - HP of the job's finished tasks (step 2).
func TestStageWeightsFromHistory(t *testing.T) {
	b := clustertest.New(now)
	b.Node("n1", "r1", 8, 16384, 0, 0)
	b.Node("n2", "r1", 8, 16384, 0, 0)
	b.App("j", "sort", 4, 1)
	b.Start("j", "m0", events.Map, "m0_0", "n1", false)
	b.Start("j", "m1", events.Map, "m1_0", "n1", false)
	b.Start("j", "r0", events.Reduce, "r0_0", "n1", false)
	b.At(now + 100_000)
	b.Finish("m0_0", events.StateSucceeded, &events.PhaseDurations{Map: 80_000, Sort: 20_000})
	b.Finish("m1_0", events.StateSucceeded, &events.PhaseDurations{Map: 60_000, Sort: 40_000})
	b.Finish("r0_0", events.StateSucceeded, &events.PhaseDurations{Shuffle: 60_000, Sort: 5_000, Merge: 5_000, Reduce: 20_000})
	p := newSAMR(t, nil, nil)
	speculate(t, p, b)

	// History on n1: first (0.8, 0.2) replaces the defaults, then
	// 0.2·(0.8, 0.2) + 0.8·(0.6, 0.4) = (0.64, 0.36).
	h := p.History("sort", "n1", events.Map)
	if !near(h.M1, 0.64) || !near(h.M2, 0.36) {
		t.Errorf("map history n1 = %+v, want M1 0.64 M2 0.36", h)
	}
	r := p.History("sort", "n1", events.Reduce)
	if !near(r.R1, 60.0/90) || !near(r.R2, 10.0/90) || !near(r.R3, 20.0/90) {
		t.Errorf("reduce history n1 = %+v", r)
	}
	if d := p.History("sort", "n2", events.Map); d != taskstat.HadoopWeights {
		t.Errorf("n2 has no history: %+v, want Hadoop's defaults", d)
	}
	app := b.State.App("j")
	// Job's maps averaged (0.7, 0.3): 0.2·0.64 + 0.8·0.7 = 0.688 on n1.
	if w := p.Weights(app, "n1", events.Map); !near(w.M1, 0.688) || !near(w.M2, 0.312) {
		t.Errorf("tuned weights n1 = %+v, want M1 0.688", w)
	}
	// On n2 the history is Hadoop's (1, 0): 0.2·1 + 0.8·0.7 = 0.76.
	if w := p.Weights(app, "n2", events.Map); !near(w.M1, 0.76) {
		t.Errorf("tuned weights n2 = %+v, want M1 0.76", w)
	}
	b.App("k", "sort", 4, 0)
	if w := p.Weights(b.State.App("k"), "n1", events.Map); !near(w.M1, 0.64) {
		t.Errorf("a new job uses history alone: %+v", w)
	}
	b.App("w", "wordcount", 4, 0)
	if w := p.Weights(b.State.App("w"), "n1", events.Map); w != taskstat.HadoopWeights {
		t.Errorf("history is per job type: %+v", w)
	}
}

// TestHistorySurvivesRestart: what one instance learned and flushed, a new
// instance on the same store reads at construction.
func TestHistorySurvivesRestart(t *testing.T) {
	store := profiles.NewMemory()
	b := clustertest.New(now)
	b.Node("n1", "r1", 8, 16384, 0, 0)
	b.App("j", "sort", 1, 0)
	b.Start("j", "m0", events.Map, "m0_0", "n1", false)
	b.At(now + 50_000)
	b.Finish("m0_0", events.StateSucceeded, &events.PhaseDurations{Map: 30_000, Sort: 20_000})
	first := newSAMR(t, nil, store)
	speculate(t, first, b)

	if got := newSAMR(t, nil, store).History("sort", "n1", events.Map); got != taskstat.HadoopWeights {
		t.Fatalf("nothing flushed yet, a new instance must start from defaults: %+v", got)
	}
	if err := first.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	second := newSAMR(t, nil, store)
	got, want := second.History("sort", "n1", events.Map), first.History("sort", "n1", events.Map)
	if got != want || !near(got.M1, 0.6) {
		t.Fatalf("after restart: %+v, want %+v (M1 0.6)", got, want)
	}
}

// TestBackupCap is eq. 15: backups < BP · running tasks.
func TestBackupCap(t *testing.T) {
	for _, tt := range []struct {
		bp   float64
		want int
	}{{0.2, 2}, {0.35, 4}, {0, 0}} {
		b := clustertest.New(now)
		b.Node("n1", "r1", 16, 32768, 10, 0)
		b.Node("n2", "r1", 16, 32768, 0, 0)
		b.App("j", "sort", 10, 0)
		for i, id := range []string{"s0", "s1", "s2", "s3", "s4"} {
			startAt(b, "j", id, events.Map, "n1", now-200_000-int64(i)*1000, 0.1, "map", 0.15)
		}
		for _, id := range []string{"f0", "f1", "f2", "f3", "f4"} {
			startAt(b, "j", id, events.Map, "n1", now-100_000, 0.5, "map", 0.75)
		}
		spec, _ := speculate(t, newSAMR(t, args{"samr": {"bp": tt.bp}}, nil), b)
		if len(spec) != tt.want {
			t.Errorf("BP %.2f: %d backups, want %d (< BP·10)", tt.bp, len(spec), tt.want)
		}
		for _, h := range spec {
			if h.Task[0] != 's' {
				t.Errorf("BP %.2f: backed up fast task %s", tt.bp, h.Task)
			}
		}
	}
}

// TestNoBackupOnSlowNode: n4 runs maps at a quarter of the others' rate; it
// is marked map-slow and gets no backup even when it is the only node with
// room.
func TestNoBackupOnSlowNode(t *testing.T) {
	b := clustertest.New(now)
	for _, n := range []string{"n1", "n2", "n3", "n4"} {
		b.Node(n, "r1", 4, 8192, 4, 0)
	}
	b.Heartbeat("n4", 2, 0)
	b.App("j", "sort", 8, 0)
	for i, n := range []string{"n1", "n2", "n3", "n4"} {
		for k := range 2 {
			id := string(rune('a'+i)) + string(rune('0'+k))
			pp := 0.8
			if n == "n4" {
				pp = 0.2
			}
			startAt(b, "j", id, events.Map, n, now-80_000, pp*2/3, "map", pp)
		}
	}
	p := newSAMR(t, nil, nil)
	spec, class := speculate(t, p, b)
	if len(spec) != 0 {
		t.Errorf("backups on a map-slow node: %+v", spec)
	}
	if len(class) != 1 || class[0].Node != "n4" || !class[0].MapSlow || class[0].ReduceSlow {
		t.Fatalf("node-class hints %+v, want n4 map-slow", class)
	}
	b.At(now + 1000)
	b.Heartbeat("n2", 3, 0)
	spec, _ = speculate(t, p, b)
	if len(spec) != 1 || spec[0].Node != "n2" || spec[0].Task[0] != 'd' {
		t.Fatalf("with room on n2: %+v, want one backup of an n4 task on n2", spec)
	}
}

func TestSlowNodes(t *testing.T) {
	fresh := func(id string, r float64) samr.NodeRate { return samr.NodeRate{Node: id, Fresh: true, TrR: r} }
	tests := []struct {
		name  string
		rates []samr.NodeRate
		want  []string
	}{
		// ATrR = 0.8125; 0.25 < 0.8·0.8125; eq. 14: 1 < 0.3·4.
		{"eq. 12: one slow of four", []samr.NodeRate{fresh("a", 1), fresh("b", 1), fresh("c", 1), fresh("d", 0.25)}, []string{"d"}},
		// With three nodes at 1.25 the boundary (1-STrC)·ATrR is at 0.9375.
		{"eq. 12: just above (1-STrC)·ATrR is not slow",
			[]samr.NodeRate{fresh("a", 1.25), fresh("b", 1.25), fresh("c", 1.25), fresh("d", 0.94)}, nil},
		{"eq. 12: just below (1-STrC)·ATrR is slow",
			[]samr.NodeRate{fresh("a", 1.25), fresh("b", 1.25), fresh("c", 1.25), fresh("d", 0.935)}, []string{"d"}},
		{"eq. 14: at most 2 of 10 (SlowTrackerNum < 3)", []samr.NodeRate{
			fresh("a", 1), fresh("b", 1), fresh("c", 1), fresh("d", 1), fresh("e", 1), fresh("f", 1),
			fresh("g", 0.3), fresh("h", 0.1), fresh("i", 0.2), fresh("j", 0.4)}, []string{"h", "i"}},
		{"eq. 14: three nodes allow none (1 < 0.9 fails)", []samr.NodeRate{fresh("a", 1), fresh("b", 1), fresh("c", 0.1)}, nil},
		{"a node without running tasks keeps its class", []samr.NodeRate{
			fresh("a", 1), fresh("b", 1), fresh("c", 1), {Node: "d", Slow: true, Ratio: 0.3}, {Node: "e", Ratio: 0.1}}, []string{"d"}},
		{"all equal: none", []samr.NodeRate{fresh("a", 1), fresh("b", 1), fresh("c", 1), fresh("d", 1)}, nil},
	}
	for _, tt := range tests {
		got, _ := samr.SlowNodes(tt.rates, 0.2, 0.3)
		if len(got) != len(tt.want) {
			t.Errorf("%s: slow = %v, want %v", tt.name, got, tt.want)
			continue
		}
		for _, n := range tt.want {
			if !got[n] {
				t.Errorf("%s: slow = %v, want %v", tt.name, got, tt.want)
			}
		}
	}
}

func TestConfig(t *testing.T) {
	p := newSAMR(t, nil, nil)
	if c := p.Config(); c != samr.DefaultConfig() || c.HP != 0.2 || c.STaC != 0.3 || c.STrC != 0.2 || c.STrP != 0.3 || c.BP != 0.2 {
		t.Fatalf("defaults = %+v", c)
	}
	p = newSAMR(t, args{"samr": {"hp": 0.5, "stac": 0.4, "strc": 0.1, "strp": 0.5, "bp": 0.1}}, nil)
	if c := p.Config(); c.HP != 0.5 || c.STaC != 0.4 || c.STrC != 0.1 || c.STrP != 0.5 || c.BP != 0.1 {
		t.Fatalf("decoded = %+v", c)
	}
	if _, err := samr.New(context.Background(), policy.Handle{Args: args{"samr": {"stac": 1.5}}}); err == nil {
		t.Fatal("stac 1.5 must be rejected")
	}
}

// TestLastMapStragglerAgainstFinishedSiblings: maps m1..m3 ran 120 s each and finished; m0
// has run 90 s at 25 %, alone in its wave. Eq. 7 over the running tasks alone would make
// m0's rate its own APR (never below it); the finished maps' rates are the reference.
func TestLastMapStragglerAgainstFinishedSiblings(t *testing.T) {
	for _, tt := range []struct {
		name     string
		progress float64
		want     []want
	}{
		{"straggler backed up", 0.25, []want{{"m0", "n2", -1}}},
		{"faster than its siblings: left alone", 0.9, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			b := clustertest.New(now)
			b.Node("n1", "r1", 8, 16384, 8, 0)
			b.Node("n2", "r1", 8, 16384, 7, 0)
			b.App("j", "sort", 4, 0)
			for _, id := range []string{"m1", "m2", "m3"} {
				b.At(now - 200_000)
				b.Start("j", id, events.Map, id+"_0", "n1", false)
				b.At(now - 80_000)
				b.Finish(id+"_0", events.StateSucceeded, nil)
			}
			b.At(now)
			startAt(b, "j", "m0", events.Map, "n1", now-90_000, tt.progress*2/3, "map", tt.progress)
			spec, _ := speculate(t, newSAMR(t, nil, nil), b)
			check(t, spec, tt.want)
		})
	}
}

// TestReduceWaitingForMapsNotSpeculated: a reducer copying while its job's
// maps still run progresses at the maps' pace; a backup would wait for the
// same maps. Once the maps are done, the slow reducer is backed up.
func TestReduceWaitingForMapsNotSpeculated(t *testing.T) {
	setup := func(b *clustertest.Builder) {
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
	b := clustertest.New(now)
	setup(b)
	spec, _ := speculate(t, newSAMR(t, nil, nil), b)
	check(t, spec, nil)

	b = clustertest.New(now)
	setup(b)
	b.Finish("m0_0", events.StateSucceeded, nil)
	spec, _ = speculate(t, newSAMR(t, nil, nil), b)
	check(t, spec, []want{{"r1", "n2", -1}})
}
