package erul

import (
	"context"
	"fmt"
	"math"
	"testing"

	"github.com/rmsidecar/rmsidecar/cluster"
	"github.com/rmsidecar/rmsidecar/events"
	"github.com/rmsidecar/rmsidecar/policy"
)

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*max(1, math.Abs(b)) }

// Eq. 9: the remaining time at the mean load so far.
func TestRemainingNowEq9(t *testing.T) {
	for _, tt := range []struct{ progress, elapsed, want float64 }{
		{0.5, 30, 30},
		{0.25, 60, 180},
		{0.8, 40, 10},
	} {
		if got := remainingNow(tt.progress, tt.elapsed); !near(got, tt.want) {
			t.Errorf("remainingNow(%g, %g) = %g, want %g", tt.progress, tt.elapsed, got, tt.want)
		}
	}
}

// Eq. 8, 10 (Algorithm 1 line 19) and 11 on a constructed load series: an
// attempt starts at load 1 (Algorithm 1 line 4), the load is sampled every
// δ = 5 s and rises to 3 at 20 s. At 30 s with progress 0.5:
//
//	samples       1 (start), 1, 1, 1, 3, 3, 3       n = 7
//	Z̄_now  (8)   13/7
//	Z̄_est  (10)  (1+1+3+3+3 + 13/7) / 6 = 15/7    (last k = 5 samples + mean)
//	tRemain_now (9)  (1 − 0.5)·30/0.5 = 30 s
//	tRemain_est (11) (1 + 15/7)·30 / (1 + 13/7) = 33 s
func TestERULEq11ConstructedSeries(t *testing.T) {
	const deltaMS = 5000
	s := newLoadSeries(0, 1, 5)
	for i, z := range []float64{1, 1, 1, 3, 3, 3} {
		if !s.observe(int64(i+1)*deltaMS, z, deltaMS) {
			t.Fatalf("sample %d at %d ms not taken", i, (i+1)*deltaMS)
		}
	}
	if got, want := s.mean(), 13.0/7; !near(got, want) {
		t.Fatalf("Z̄_now (eq. 8) = %g, want %g", got, want)
	}
	if got, want := s.estimate(), 15.0/7; !near(got, want) {
		t.Fatalf("Z̄_est (eq. 10) = %g, want %g", got, want)
	}
	rem := erulRemaining(remainingNow(0.5, 30), s.mean(), s.estimate())
	if !near(rem, 33) {
		t.Fatalf("tRemain_est (eq. 11) = %g s, want 33 s", rem)
	}
	// A falling load shortens the estimate below eq. 9's.
	d := newLoadSeries(0, 3, 5)
	for i, z := range []float64{3, 3, 3, 1, 1, 1} {
		d.observe(int64(i+1)*deltaMS, z, deltaMS)
	}
	if rem := erulRemaining(30, d.mean(), d.estimate()); rem >= 30 {
		t.Fatalf("falling load: tRemain_est = %g s, want < 30 s", rem)
	}
}

// Under a constant load eq. 11 reduces to eq. 9 (the LATE-like estimate).
func TestERULConstantLoadIsEq9(t *testing.T) {
	s := newLoadSeries(0, 2.5, 5)
	for i := 1; i <= 20; i++ {
		s.observe(int64(i)*5000, 2.5, 5000)
	}
	if got := erulRemaining(remainingNow(0.4, 80), s.mean(), s.estimate()); !near(got, 120) {
		t.Fatalf("constant load: tRemain_est = %g, want 120", got)
	}
}

// Algorithm 1 line 10: samples closer than δ to the previous one are dropped.
func TestLoadSeriesSamplesEveryDelta(t *testing.T) {
	s := newLoadSeries(1000, 0, 5)
	for _, tt := range []struct {
		ts   int64
		take bool
	}{{2000, false}, {5999, false}, {6000, true}, {9000, false}, {11000, true}, {4000, false}} {
		if got := s.observe(tt.ts, 10, 5000); got != tt.take {
			t.Errorf("observe at %d ms: taken = %v, want %v", tt.ts, got, tt.take)
		}
	}
	if s.count != 3 {
		t.Fatalf("count = %d, want 3", s.count)
	}
}

// Eq. 12 under map input skew (§3.2.1, the WordCount experiment with 128 MB
// and 64 MB blocks): two maps running at the same speed per MB rank equal
// whatever their split size; a map slow per MB ranks first.
func TestMapPriorityEq12Skew(t *testing.T) {
	big := mapPriority(remainingNow(0.5, 40), 128*0.5)   // 40 s left, 64 MB left
	small := mapPriority(remainingNow(0.5, 20), 64*0.5)  // 20 s left, 32 MB left
	slow := mapPriority(remainingNow(0.25, 40), 64*0.75) // 120 s left, 48 MB left
	if !near(big, 0.625) || !near(small, 0.625) {
		t.Fatalf("equal-speed maps: priorities %g and %g, want 0.625 s/MB both", big, small)
	}
	if !near(slow, 2.5) || slow <= big {
		t.Fatalf("slow map priority = %g, want 2.5 (> %g)", slow, big)
	}
	if mapPriority(10, 0) != 0 {
		t.Fatal("no data left must give priority 0")
	}
}

// Eq. 13 with α = 1/3, β = 2/3: the factor (Map_total+1)α/((Map_fetched+1)+β)
// falls as the reducer fetches map outputs.
func TestReducePriorityEq13(t *testing.T) {
	const a, b = 1.0 / 3, 2.0 / 3
	for _, tt := range []struct {
		total, fetched int
		want           float64
	}{
		{9, 2, 100 * 10.0 / 11}, // (10/3)/(11/3)
		{9, 9, 100 * 10.0 / 32}, // (10/3)/(32/3)
		{0, 0, 100 * 0.2},       // (1/3)/(5/3)
	} {
		if got := reducePriority(100, tt.total, tt.fetched, a, b); !near(got, tt.want) {
			t.Errorf("reducePriority(100, %d, %d) = %g, want %g", tt.total, tt.fetched, got, tt.want)
		}
	}
	prev := math.Inf(1)
	for f := 0; f <= 20; f++ {
		p := reducePriority(50, 20, f, a, b)
		if p >= prev {
			t.Fatalf("priority must fall as maps are fetched: f=%d gives %g after %g", f, p, prev)
		}
		prev = p
	}
}

// Eq. 14 (α = 0.3) and eq. 15.
func TestCapabilityEq14Eq15(t *testing.T) {
	c := newCapabilities(0.3)
	c.learn("n1", DataLocal, capabilitySample(true, 100, 100)) // 1.0 s/MB
	c.learn("n1", DataLocal, capabilitySample(true, 50, 100))  // 0.3·1 + 0.7·0.5
	if got, _ := c.get("n1", DataLocal); !near(got, 0.65) {
		t.Fatalf("map capability = %g, want 0.65", got)
	}
	c.learn("n1", Reduce, capabilitySample(false, 200, 0))
	c.learn("n1", Reduce, capabilitySample(false, 100, 0)) // 0.3·200 + 0.7·100
	if got, _ := c.get("n1", Reduce); !near(got, 130) {
		t.Fatalf("reduce capability = %g, want 130", got)
	}
	if _, ok := c.get("n1", OffRack); ok {
		t.Fatal("an unlearned class must be unknown")
	}
	if _, ok := c.get("n2", DataLocal); ok {
		t.Fatal("an unknown node must be unknown")
	}
	if got := firstCapability(true, 30, 90, 60); !near(got, 2) { // (30 + 90)/60
		t.Fatalf("eq. 15 map = %g, want 2", got)
	}
	if got := firstCapability(false, 30, 90, 60); !near(got, 120) {
		t.Fatalf("eq. 15 reduce = %g, want 120", got)
	}
	if got := backupTime(true, 0.5, 128); !near(got, 64) { // eq. 18
		t.Fatalf("eq. 18 map = %g, want 64", got)
	}
	if got := backupTime(false, 70, 128); !near(got, 70) {
		t.Fatalf("eq. 18 reduce = %g, want 70", got)
	}
}

// Eq. 17.
func TestLoadFactorEq17(t *testing.T) {
	if got := loadFactor(6, 3); got != 2 {
		t.Fatalf("η = %g, want 2", got)
	}
	if got := loadFactor(0, 3); got != 0 {
		t.Fatalf("η = %g, want 0", got)
	}
	if got := loadFactor(5, 0); !math.IsInf(got, 1) {
		t.Fatalf("no free slot: η = %g, want +Inf", got)
	}
}

// Eq. 16 at its two ends: at η = 0 a backup is worth it as soon as it beats
// the remaining time; as η → ∞ it must be more than twice as fast.
func TestMCPInequalityEq16(t *testing.T) {
	for _, tt := range []struct {
		name      string
		rem, back float64
		eta       float64
		want      bool
	}{
		{"η=0 just faster", 101, 100, 0, true},
		{"η=0 just slower", 99, 100, 0, false},
		{"η=0 equal", 100, 100, 0, false},
		{"η=1 bound 1.5 above", 151, 100, 1, true},
		{"η=1 bound 1.5 below", 149, 100, 1, false},
		{"η→∞ 1.99x", 199, 100, math.Inf(1), false},
		{"η→∞ 2.01x", 201, 100, math.Inf(1), true},
		{"η=1e12 1.99x", 199, 100, 1e12, false},
		{"η=1e12 2.01x", 201, 100, 1e12, true},
	} {
		if got := mcpWorthIt(tt.rem, tt.back, tt.eta); got != tt.want {
			t.Errorf("%s: mcpWorthIt(%g, %g, %g) = %v, want %v", tt.name, tt.rem, tt.back, tt.eta, got, tt.want)
		}
	}
	if b := mcpBound(0); b != 1 {
		t.Errorf("bound at η=0 = %g, want 1", b)
	}
	if b := mcpBound(math.Inf(1)); b != 2 {
		t.Errorf("bound at η→∞ = %g, want 2", b)
	}
	if b := mcpBound(1e12); math.Abs(b-2) > 1e-9 {
		t.Errorf("bound at η=1e12 = %g, want → 2", b)
	}
}

// Eq. 19: the slot-value test. With equal slot values (t_A = t_B) it is
// eq. 16; otherwise the original slot's value moves the bound.
func TestExMCPSlotValueEq19(t *testing.T) {
	for _, eta := range []float64{0, 0.5, 1, 3, math.Inf(1)} {
		for _, rem := range []float64{50, 99, 101, 149, 151, 199, 201, 400} {
			if a, b := exmcpWorthIt(rem, 100, 100, eta), mcpWorthIt(rem, 100, eta); a != b {
				t.Errorf("t_A = t_B, η=%g, rem=%g: exMCP %v, MCP %v", eta, rem, a, b)
			}
		}
	}
	for _, tt := range []struct {
		name            string
		rem, tB, tA, et float64
		want            bool
	}{
		{"η=1 slow original: 60 + 0.5·160 = 140", 100, 60, 160, 1, false},
		{"η=1 fast original: 60 + 0.5·40 = 80", 100, 60, 40, 1, true},
		{"η=0: only t_B counts", 61, 60, 1000, 0, true},
		{"η→∞: t_B + t_A", 159, 60, 100, math.Inf(1), false},
		{"η→∞: t_B + t_A above", 161, 60, 100, math.Inf(1), true},
	} {
		if got := exmcpWorthIt(tt.rem, tt.tB, tt.tA, tt.et); got != tt.want {
			t.Errorf("%s: exmcpWorthIt(%g, %g, %g, %g) = %v, want %v", tt.name, tt.rem, tt.tB, tt.tA, tt.et, got, tt.want)
		}
	}
}

// Eq. 4 for a map: 20 s left in the map phase at its EWMA bandwidth, plus
// the job's mean sort time scaled by factor_d (a 64 MB split against the
// 128 MB of the finished maps: 6 s · 0.5 = 3 s).
func TestPhaseRemainingEq4(t *testing.T) {
	st := cluster.New()
	apply := func(ev events.Event) {
		ev.ID = fmt.Sprint(len(ev.Type), ev.TS, ev.Attempt)
		st.Apply(&ev)
	}
	p, err := NewMCP(context.Background(), policy.Handle{})
	if err != nil {
		t.Fatal(err)
	}
	pl := p.(*Plugin)
	apply(events.Event{Type: events.TaskPending, TS: 0, App: "a", Task: "task_1_0001_m_000000", Kind: events.Map,
		Splits: []events.Split{{Path: "/x", Length: 128 << 20}}})
	apply(events.Event{Type: events.ContainerAllocated, TS: 0, App: "a", Task: "task_1_0001_m_000000", Attempt: "done", Node: "n1"})
	apply(events.Event{Type: events.TaskFinished, TS: 46_000, App: "a", Task: "task_1_0001_m_000000", Attempt: "done",
		State: events.StateSucceeded, PhaseMS: &events.PhaseDurations{Map: 40_000, Sort: 6_000}})
	apply(events.Event{Type: events.TaskPending, TS: 0, App: "a", Task: "task_1_0001_m_000001", Kind: events.Map,
		Splits: []events.Split{{Path: "/x", Length: 64 << 20}}})
	apply(events.Event{Type: events.ContainerAllocated, TS: 50_000, App: "a", Task: "task_1_0001_m_000001", Attempt: "run", Node: "n1"})
	at := st.Attempt("run")
	tr := pl.track(st, at)
	tr.phaseProgressed(55_000, events.PhaseMap, 0.125, 50_000, 0.3)
	if _, ok := pl.phaseRemaining(at, tr); ok {
		t.Fatal("one report into the phase and no job time for it: eq. 4 must not apply")
	}
	tr.phaseProgressed(60_000, events.PhaseMap, 0.25, 55_000, 0.3) // 0.025/s
	// No finished attempt has timed the sort phase yet: it counts as 0.
	if got, ok := pl.phaseRemaining(at, tr); !ok || !near(got, 30) {
		t.Fatalf("before any map finished: eq. 4 = %g %v, want 0.75/0.025 = 30 s", got, ok)
	}
	pl.learnPhases(st.Attempt("done"))
	tr.phaseProgressed(70_000, events.PhaseMap, 0.5, 60_000, 0.3) // 0.025/s, same rate
	got, ok := pl.phaseRemaining(at, tr)
	if !ok || !near(got, 23) {
		t.Fatalf("eq. 4 = %g %v, want 20 + 3 = 23 s", got, ok)
	}
	// The first report of the sort phase has no bandwidth yet: the job's
	// sort time scaled by factor_d stands in, (1 − 0.5)·6 s·0.5.
	tr.phaseProgressed(75_000, events.PhaseSort, 0.5, 70_000, 0.3)
	if got, ok := pl.phaseRemaining(at, tr); !ok || !near(got, 1.5) {
		t.Fatalf("sort phase, first report: eq. 4 = %g %v, want 1.5 s", got, ok)
	}
	// In the last phase, with a bandwidth, only the current phase is left:
	// 0.1/s EWMA'd with 0.1/s.
	tr.phaseProgressed(76_000, events.PhaseSort, 0.6, 75_000, 0.3)
	if got, ok := pl.phaseRemaining(at, tr); !ok || !near(got, 4) {
		t.Fatalf("sort phase: eq. 4 = %g %v, want 0.4/0.1 = 4 s", got, ok)
	}
}
