package sim

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"syscall"
	"testing"
	"time"
)

const swimDay = "../testdata/traces/SWIM_FB-2009_samples_24_times_1hr_0.tsv"

// swimStack is the stack BenchmarkSWIMDay runs: yarn, the speed
// target (SIM_STACK overrides, e.g. SIM_STACK=none).
func swimStack() string {
	if s := os.Getenv("SIM_STACK"); s != "" {
		return s
	}
	return "yarn"
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
		start, cpu0 := time.Now(), cpuTime()
		s, err := newSim(context.Background(), sc, swimStack(), Options{})
		if err != nil {
			b.Fatal(err)
		}
		if err := s.run(context.Background()); err != nil {
			b.Fatal(err)
		}
		r := s.results()
		el := time.Since(start)
		b.ReportMetric(el.Seconds(), "wall_s")
		// The machine is shared: CPU time (user+sys, all threads incl. GC)
		// is the figure that does not depend on other load.
		b.ReportMetric((cpuTime() - cpu0).Seconds(), "cpu_s")
		b.ReportMetric(float64(s.m.simEvents)/el.Seconds(), "sim_events/s")
		b.ReportMetric(float64(s.m.engineEvents)/el.Seconds(), "engine_events/s")
		b.Logf("queue events by kind (submit, heartbeat, attempt end, fetch end, poll, tick) %v; events v1 by type %v",
			s.m.byKind, s.eng.Stats().ByType)
		b.Logf("stack %s: %d jobs, makespan %.0f s, %d sim events, %d engine events, wall %v", swimStack(), len(r.Jobs), r.MakespanS, s.m.simEvents, s.m.engineEvents, el)
	}
}

// BenchmarkScale simulates the first hour of the FB-2009 day (289 jobs)
// with SWIM's byte scaling on 300, 3,000 and 10,000 nodes (bytes x N/600,
// so the work grows with the cluster) under SIM_STACK (default yarn), and
// prints per size the wall and CPU time, simulated seconds per wall second,
// the task attempts simulated, and the allocations, bytes allocated and
// live heap after the run per attempt: the growth with cluster size shows
// in the per-attempt figures. One iteration each: go test -run '^$'
// -bench Scale -benchtime 1x ./sim/ (make bench-sim).
func BenchmarkScale(b *testing.B) {
	if _, err := os.Stat(swimDay); err != nil {
		b.Skip("SWIM trace not found:", err)
	}
	for _, nodes := range []int{300, 3000, 10000} {
		b.Run(fmt.Sprintf("nodes=%d", nodes), func(b *testing.B) {
			sc, err := ScenarioFromTraceOptions("swim", swimDay, TraceOptions{Nodes: nodes, ToS: 3600}, 1)
			if err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				runtime.GC()
				var m0, m1 runtime.MemStats
				runtime.ReadMemStats(&m0)
				start, cpu0 := time.Now(), cpuTime()
				s, err := newSim(context.Background(), sc, swimStack(), Options{})
				if err != nil {
					b.Fatal(err)
				}
				if err := s.run(context.Background()); err != nil {
					b.Fatal(err)
				}
				r := s.results()
				el := time.Since(start)
				cpu := cpuTime() - cpu0
				runtime.ReadMemStats(&m1)
				tasks := float64(max(1, s.m.launched))
				b.ReportMetric(el.Seconds(), "wall_s")
				b.ReportMetric(cpu.Seconds(), "cpu_s")
				b.ReportMetric(r.MakespanS/el.Seconds(), "sim_s/wall_s")
				b.ReportMetric(float64(s.m.launched), "attempts")
				b.ReportMetric(float64(m1.Mallocs-m0.Mallocs)/tasks, "allocs/attempt")
				b.ReportMetric(float64(m1.TotalAlloc-m0.TotalAlloc)/tasks, "B/attempt")
				b.ReportMetric(float64(m1.HeapAlloc)/1e6, "heap_MB")
				runtime.KeepAlive(s)
				b.Logf("stack %s, %d nodes: %d jobs, %d attempts, makespan %.0f s in %v wall, %v CPU",
					swimStack(), nodes, len(r.Jobs), s.m.launched, r.MakespanS, el.Round(time.Millisecond), cpu.Round(time.Millisecond))
			}
		})
	}
}

// benchYAML is a busy synthetic hour: 200 nodes, 300 jobs of 4-40 maps.
func benchScenario(b *testing.B) *Scenario {
	b.Helper()
	yml := "seed: 3\ncluster:\n  racks: 8\n  nodes: [{count: 200, vcores: 8, memory_mb: 16384}]\nyarn: {node_local_delay: 1, rack_local_delay: 1}\n" +
		"stragglers: {task_prob: 0.05}\nworkload:\n  jobs:\n"
	for i := range 300 {
		yml += fmt.Sprintf("    - {name: j%d, submit_s: %d, input_mb: %d, reduces: %d, map_s_per_block: 20, shuffle_ratio: 0.5}\n",
			i, i*12, 512*(1+i%10), 1+i%8)
	}
	sc, err := ParseScenario("bench.yaml", []byte(yml))
	if err != nil {
		b.Fatal(err)
	}
	return sc
}

// BenchmarkEventLoop measures the simulator's throughput under the none
// stack: queue events (heartbeats, attempt ends, flow completions, polls,
// ticks) and the events v1 it emits into the engine, per second.
func BenchmarkEventLoop(b *testing.B) {
	sc := benchScenario(b)
	var simEv, engEv uint64
	start, cpu0 := time.Now(), cpuTime()
	for b.Loop() {
		s, err := newSim(context.Background(), sc, "none", Options{})
		if err != nil {
			b.Fatal(err)
		}
		if err := s.run(context.Background()); err != nil {
			b.Fatal(err)
		}
		simEv += s.m.simEvents
		engEv += s.m.engineEvents
	}
	el := time.Since(start).Seconds()
	cpu := (cpuTime() - cpu0).Seconds()
	b.ReportMetric(float64(simEv+engEv)/cpu, "events/cpu_s")
	b.ReportMetric(float64(simEv)/el, "sim_events/s")
	b.ReportMetric(float64(engEv)/el, "engine_events/s")
	b.ReportMetric(float64(simEv+engEv)/el, "events/s")
}

// cpuTime is the process's user+sys CPU time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
