package baseline

import (
	"context"
	"math"
	"runtime"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/rmsidecar/rmsidecar/cluster"
	"github.com/rmsidecar/rmsidecar/events"
	"github.com/rmsidecar/rmsidecar/policy/taskstat"
)

// bigCluster is the shape of `rmsidecar bench`: 10,000 nodes, 2,000 jobs of
// 50 running maps (every 97th a straggler) and 5 finished ones, every
// running map past its first progress report.
func bigCluster(b *testing.B, p *YARN) *cluster.State {
	b.Helper()
	return someCluster(p, 10_000, 2_000, 5)
}

// someCluster is bigCluster's shape at a size: jobs jobs of 50 running maps
// and finished finished ones on nodes nodes.
func someCluster(p *YARN, nodes, jobs, finished int) *cluster.State {
	const running = 50
	ctx := context.Background()
	st := cluster.New()
	seq := 0
	apply := func(ev events.Event) {
		seq++
		ev.V, ev.ID = events.Version, "e"+strconv.Itoa(seq)
		if st.Apply(&ev) {
			p.Observe(ctx, &ev, st)
		}
	}
	node := func(i int) string { return "nm" + strconv.Itoa(i) + ".bench:8041" }
	const t0 = 1_000_000
	for n := range nodes {
		apply(events.Event{Type: events.NodeRegistered, TS: t0, Node: node(n), Rack: "/r" + strconv.Itoa(n/40), VCores: 32, MemoryMB: 131072})
		apply(events.Event{Type: events.NodeHeartbeat, TS: t0, Node: node(n), UsedVCores: 10, UsedMemoryMB: 10240})
	}
	c := 0
	for j := range jobs {
		app := "application_1_" + strconv.Itoa(j)
		apply(events.Event{Type: events.AppSubmitted, TS: t0, App: app, Maps: running + finished})
		for k := range running + finished {
			task := "task_1_" + strconv.Itoa(j) + "_m_" + strconv.Itoa(k)
			at := task + "_0"
			apply(events.Event{Type: events.TaskPending, TS: t0, App: app, Task: task, Kind: events.Map})
			apply(events.Event{Type: events.ContainerAllocated, TS: t0, App: app, Task: task, Attempt: at,
				Container: "c" + strconv.Itoa(c), Node: node(c % nodes)})
			c++
			if k < finished {
				apply(events.Event{Type: events.TaskFinished, TS: t0 + 40_000 + int64(k)*500, App: app, Task: task, Attempt: at, State: events.StateSucceeded})
				continue
			}
			rate := 0.4
			if c%97 == 0 {
				rate = 0.05
			}
			apply(events.Event{Type: events.TaskProgress, TS: t0 + 60_000, App: app, Task: task, Attempt: at, Progress: rate, Phase: events.PhaseMap})
		}
	}
	return st
}

// BenchmarkYARNScan10k is the scan that proposes a copy for every one of the
// 2,000 jobs at once (the hint-latency measurement's tick).
func BenchmarkYARNScan10k(b *testing.B) {
	p := &YARN{cfg: DefaultYARNConfig(), durations: taskstat.NewDurations(), jobs: map[*cluster.App]*yarnJob{}}
	st := bigCluster(b, p)
	ctx := context.Background()
	hints := 0
	for b.Loop() {
		p.nextScan = 0
		for _, j := range p.jobs {
			for i := range j.tasks {
				j.tasks[i].proposal = false
			}
			j.lastProposed = math.MinInt64
		}
		hs, _ := p.Speculate(ctx, st)
		hints = len(hs)
	}
	if hints != 2000 {
		b.Fatalf("%d hints, want one per job", hints)
	}
	b.ReportMetric(float64(hints), "hints/op")
}

// BenchmarkYARNScan10kCold is BenchmarkYARNScan10k with the caches evicted
// before every scan (64 MB read between scans, untimed), as in the live
// sidecar, where the steady event stream leaves little of the records,
// attempts and nodes in cache: the misses are what the scan costs there. It
// also reports the fastest and the median scan, which a busy machine moves
// less than the mean.
func BenchmarkYARNScan10kCold(b *testing.B) {
	p := &YARN{cfg: DefaultYARNConfig(), durations: taskstat.NewDurations(), jobs: map[*cluster.App]*yarnJob{}}
	st := bigCluster(b, p)
	ctx := context.Background()
	evict := make([]int64, 8<<20)
	var sink int64
	var times []time.Duration
	for b.Loop() {
		b.StopTimer()
		p.nextScan = 0
		for _, j := range p.jobs {
			for i := range j.tasks {
				j.tasks[i].proposal = false
			}
			j.lastProposed = math.MinInt64
		}
		for i := 0; i < len(evict); i += 8 {
			sink += evict[i]
			evict[i] = sink
		}
		b.StartTimer()
		start := time.Now()
		hs, _ := p.Speculate(ctx, st)
		times = append(times, time.Since(start))
		if len(hs) != 2000 {
			b.Fatalf("%d hints, want one per job", len(hs))
		}
	}
	slices.Sort(times)
	b.ReportMetric(float64(times[0].Microseconds())/1000, "min-ms")
	b.ReportMetric(float64(times[len(times)/2].Microseconds())/1000, "median-ms")
	runtime.KeepAlive(sink)
}
