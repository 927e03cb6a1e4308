package sidecar

import (
	"bufio"
	"bytes"
	"context"
	"os"
	"runtime"
	"runtime/pprof"
	"strconv"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/rmsidecar/rmsidecar/cluster"
	"github.com/rmsidecar/rmsidecar/config"
	"github.com/rmsidecar/rmsidecar/engine"
	"github.com/rmsidecar/rmsidecar/events"
	"github.com/rmsidecar/rmsidecar/policy"
	"github.com/rmsidecar/rmsidecar/policy/plugins"
	"github.com/rmsidecar/rmsidecar/profiles"
)

// soakScript is one app's lifecycle in steps of soakStepMS (event time): the
// step each event happens at. Apps start one per step, so about
// soakAppSteps apps run at once, the rest finish and wait out their
// retention.
const (
	soakStepMS   = 100 // one app submitted every 100 ms: 36,000 apps an hour
	soakMaps     = 3
	soakAppSteps = 502 // submit at 0 ... app.finished at 501
	soakHBPerApp = 8   // heartbeats per step, round robin over the nodes
)

// soakGen produces the event stream of the soak: nodes nodes registering,
// then step after step the events of every app alive in that step.
type soakGen struct {
	nodes int
	hb    int
	seq   uint64
	buf   []events.Event
}

func (g *soakGen) node(i int) string { return "nm" + strconv.Itoa(i%g.nodes) + ".soak:8041" }

func (g *soakGen) add(ev events.Event) {
	g.seq++
	ev.V, ev.ID = 1, "s"+strconv.FormatUint(g.seq, 36)
	g.buf = append(g.buf, ev)
}

// register returns the node registrations.
func (g *soakGen) register() []events.Event {
	g.buf = g.buf[:0]
	for i := range g.nodes {
		g.add(events.Event{Type: events.NodeRegistered, TS: 1, Node: g.node(i), Rack: "/r" + strconv.Itoa(i%100),
			VCores: 16, MemoryMB: 65536})
	}
	return g.buf
}

// step returns the events of step k: app k is submitted, app k-s does what
// its lifecycle has at step s.
func (g *soakGen) step(k int) []events.Event {
	g.buf = g.buf[:0]
	ts := int64(1000 + k*soakStepMS)
	for s := 0; s < soakAppSteps && s <= k; s++ {
		id := k - s
		app := "application_1700000000000_" + strconv.Itoa(id)
		task := func(kind string, i int) string { return "task_" + app[12:] + "_" + kind + "_" + strconv.Itoa(i) }
		attempt := func(kind string, i int) string {
			return "attempt_" + app[12:] + "_" + kind + "_" + strconv.Itoa(i) + "_0"
		}
		node := func(i int) string { return g.node(id*7 + i) }
		switch s {
		case 0:
			g.add(events.Event{Type: events.AppSubmitted, TS: ts, App: app, Name: "soak", Queue: "default", User: "u",
				JobType: "wordcount", Maps: soakMaps, Reduces: 1, InputPaths: []string{"/in/" + strconv.Itoa(id%50)}})
			for i := range soakMaps {
				g.add(events.Event{Type: events.TaskPending, TS: ts, App: app, Task: task("m", i), Kind: events.Map,
					Splits: []events.Split{{Path: "/in/x", Hosts: []string{node(i)}}}})
			}
			g.add(events.Event{Type: events.TaskPending, TS: ts, App: app, Task: task("r", 0), Kind: events.Reduce})
		case 1:
			for i := range soakMaps {
				g.add(events.Event{Type: events.ContainerAllocated, TS: ts, App: app, Task: task("m", i), Attempt: attempt("m", i),
					Container: "container_" + app[12:] + "_" + strconv.Itoa(i), Node: node(i), VCores: 1, MemoryMB: 2048,
					Locality: events.NodeLocal})
			}
		case 100, 200:
			for i := range soakMaps {
				g.add(events.Event{Type: events.TaskProgress, TS: ts, App: app, Task: task("m", i), Attempt: attempt("m", i),
					Progress: float64(s) / 300, Phase: events.PhaseMap, RecordsDone: int64(s) * 1000, RecordsTotal: 300_000})
			}
		case 300:
			for i := range soakMaps {
				g.add(events.Event{Type: events.TaskFinished, TS: ts, App: app, Task: task("m", i), Attempt: attempt("m", i),
					State: events.StateSucceeded})
				g.add(events.Event{Type: events.MapOutput, TS: ts, App: app, Task: task("m", i), Attempt: attempt("m", i),
					Node: node(i), Partitions: []events.PartitionSize{{ID: 0, Bytes: 1 << 20}}})
			}
		case 301:
			g.add(events.Event{Type: events.ContainerAllocated, TS: ts, App: app, Task: task("r", 0), Attempt: attempt("r", 0),
				Container: "container_" + app[12:] + "_r", Node: node(5), VCores: 1, MemoryMB: 4096})
		case 400:
			g.add(events.Event{Type: events.TaskProgress, TS: ts, App: app, Task: task("r", 0), Attempt: attempt("r", 0),
				Progress: 0.7, Phase: events.PhaseReduce, MapsFetched: soakMaps, MapsTotal: soakMaps})
		case 500:
			g.add(events.Event{Type: events.TaskFinished, TS: ts, App: app, Task: task("r", 0), Attempt: attempt("r", 0),
				State: events.StateSucceeded})
		case 501:
			g.add(events.Event{Type: events.AppFinished, TS: ts, App: app, State: "SUCCEEDED"})
		}
	}
	for range soakHBPerApp {
		running := 1
		g.add(events.Event{Type: events.NodeHeartbeat, TS: ts, Node: g.node(g.hb), UsedVCores: 4, UsedMemoryMB: 8192,
			Load1: 2, CPUUtil: 0.3, RunningContainers: &running})
		g.hb++
	}
	return g.buf
}

// rssBytes reads the resident set size from /proc (0 where there is none).
func rssBytes() uint64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		if f := bytes.Fields(sc.Bytes()); len(f) >= 2 && string(f[0]) == "VmRSS:" {
			kb, _ := strconv.ParseUint(string(f[1]), 10, 64)
			return kb << 10
		}
	}
	return 0
}

// BenchmarkSoak streams 1,000,000 application lifecycles (3 maps and a
// reduce each, about 26 events with the heartbeats) at 10,000 nodes through
// the engine with the default policy stack and the default model retention,
// and logs the RSS and the live heap every 100,000 apps. Memory must be flat
// in the second half (growth < 5 %) and peak at most 150 MB; without
// retention it grows by every finished app. Run it with
//
//	go test -run '^$' -bench BenchmarkSoak -benchtime=1x ./sidecar/
//
// SOAK_APPS overrides the app count (quick looks); SOAK_NO_RETENTION=1 turns
// retention off for comparison.
func BenchmarkSoak(b *testing.B) {
	apps := 1_000_000
	if v, err := strconv.Atoi(os.Getenv("SOAK_APPS")); err == nil && v > 0 {
		apps = v
	}
	ctx := context.Background()
	cfg, err := config.Load("", nil, nil) // the defaults
	if err != nil {
		b.Fatal(err)
	}
	store := profiles.NewMemory()
	defer store.Close()
	for range b.N {
		stack, err := plugins.NewRegistry().Build(context.Background(), "yarn", policy.Handle{Profiles: store, Log: zerolog.Nop(), Seed: 1})
		if err != nil {
			b.Fatal(err)
		}
		retain := cluster.Retention{AfterMS: cfg.Model.RetainFinished.Milliseconds(), MaxFinished: cfg.Model.MaxFinished}
		if os.Getenv("SOAK_NO_RETENTION") != "" {
			retain = cluster.Retention{} // the model as it was: every app kept
		}
		st := cluster.New(cluster.WithRetention(retain))
		eng := engine.New(stack, engine.Options{State: st, Log: zerolog.Nop()})
		g := &soakGen{nodes: 10_000}
		reg := g.register()
		for i := range reg {
			eng.Apply(ctx, &reg[i])
		}
		g.buf = nil // the registrations' buffer is ten thousand events: not part of the steady state
		var (
			peakRSS, rssHalf, rssEnd, heapHalf, heapEnd uint64
			nEvents, nHints                             int
			start                                       = time.Now()
			ms                                          runtime.MemStats
		)
		every := max(apps/10, 1)
		steps := apps + soakAppSteps // the last apps run to the end
		for k := range steps {
			evs := g.step(k)
			if k >= apps { // no more submissions: drop the new apps' events
				evs = dropNewApps(evs, apps)
			}
			for i := range evs {
				nHints += len(eng.Apply(ctx, &evs[i]))
			}
			nEvents += len(evs)
			if done := k + 1; done%every == 0 || done == steps {
				runtime.GC()
				runtime.ReadMemStats(&ms)
				rss := rssBytes()
				peakRSS = max(peakRSS, rss)
				sum := eng.State().Summarize()
				b.Logf("apps %7d  events %9d  rss %6.1f MB  heap %6.1f MB  model apps %5d (running %d)  %.0f events/s",
					min(done, apps), nEvents, mb(rss), mb(ms.HeapAlloc), sum.Apps, sum.AppsRunning,
					float64(nEvents)/time.Since(start).Seconds())
				if rssHalf == 0 && done >= apps/2 {
					rssHalf, heapHalf = rss, ms.HeapAlloc
				}
				rssEnd, heapEnd = rss, ms.HeapAlloc
			}
		}
		if p := os.Getenv("SOAK_HEAPPROFILE"); p != "" {
			writeHeapProfile(b, p) // what is live at the end, while the engine still is
		}
		runtime.KeepAlive(eng)
		rssGrowth := 100 * (float64(rssEnd)/float64(max(rssHalf, 1)) - 1)
		heapGrowth := 100 * (float64(heapEnd)/float64(max(heapHalf, 1)) - 1)
		b.ReportMetric(mb(peakRSS), "peak-rss-MB")
		b.ReportMetric(rssGrowth, "rss-growth-2nd-half-%")
		b.ReportMetric(heapGrowth, "heap-growth-2nd-half-%")
		b.ReportMetric(float64(nEvents), "events")
		b.ReportMetric(float64(nHints), "hints")
		if apps >= 1_000_000 && (peakRSS > 150<<20 || rssGrowth >= 5) {
			b.Errorf("memory not bounded: peak RSS %.1f MB, growth in the second half %.1f %%", mb(peakRSS), rssGrowth)
		}
	}
}

// dropNewApps removes the events of apps numbered apps or more (the stream's
// tail lets the last submitted apps finish without submitting more).
func dropNewApps(evs []events.Event, apps int) []events.Event {
	out := evs[:0]
	for _, ev := range evs {
		if ev.App != "" {
			n, _ := strconv.Atoi(ev.App[len("application_1700000000000_"):])
			if n >= apps {
				continue
			}
		}
		out = append(out, ev)
	}
	return out
}

func writeHeapProfile(b *testing.B, path string) {
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	if err := pprof.WriteHeapProfile(f); err != nil {
		b.Fatal(err)
	}
}

func mb(b uint64) float64 { return float64(b) / (1 << 20) }
