package sim

import (
	"context"
	"os"
	"testing"
	"time"
)

const swimDay = "../../shared/traces/SWIM_FB-2009_samples_24_times_1hr_0.tsv"

// swimStack is the stack BenchmarkSWIMDay runs (SIM_STACK overrides).
func swimStack() string {
	if s := os.Getenv("SIM_STACK"); s != "" {
		return s
	}
	return "none"
}

// BenchmarkSWIMDay simulates the FB-2009 day (5,894 jobs) on 600 nodes and
// prints the wall time and event rates.
func BenchmarkSWIMDay(b *testing.B) {
	if _, err := os.Stat(swimDay); err != nil {
		b.Skip("SWIM trace not found:", err)
	}
	sc, err := ScenarioFromTrace("swim", swimDay, 600, 1)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		start := time.Now()
		s, err := newSim(sc, swimStack(), Options{})
		if err != nil {
			b.Fatal(err)
		}
		if err := s.run(context.Background()); err != nil {
			b.Fatal(err)
		}
		r := s.results()
		el := time.Since(start)
		b.ReportMetric(el.Seconds(), "wall_s")
		b.ReportMetric(float64(s.m.simEvents)/el.Seconds(), "sim_events/s")
		b.ReportMetric(float64(s.m.engineEvents)/el.Seconds(), "engine_events/s")
		b.Logf("by kind %v", s.m.byKind)
		b.Logf("stack %s: %d jobs, makespan %.0f s, %d sim events, %d engine events, wall %v", swimStack(), len(r.Jobs), r.MakespanS, s.m.simEvents, s.m.engineEvents, el)
	}
}
