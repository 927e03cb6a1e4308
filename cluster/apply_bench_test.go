package cluster

import (
	"math/rand/v2"
	"runtime"
	"strconv"
	"testing"

	"github.com/rmsidecar/rmsidecar/events"
)

// steadyState builds the state `rmsidecar bench` meets: nodes nodes and
// apps apps of perApp running map attempts each, and the steady stream that
// follows (per second one heartbeat per node and a progress report for
// every third attempt, visited with a stride of three as the bench does).
func steadyState(nodes, apps, perApp, n int) (*State, []events.Event) {
	s := New()
	seq := 0
	id := func() string { seq++; return "b" + strconv.FormatInt(int64(seq), 36) }
	node := func(i int) string { return "nm" + strconv.Itoa(i) + ".bench:8041" }
	for i := 0; i < nodes; i++ {
		s.Apply(&events.Event{V: 1, ID: id(), Type: events.NodeRegistered, TS: 1, Node: node(i), Rack: "/r" + strconv.Itoa(i/40),
			VCores: 16, MemoryMB: 65536})
	}
	attempt := func(c int) (app, task string) {
		a := c / perApp
		return "application_1_" + strconv.Itoa(a), "task_1_" + strconv.Itoa(a) + "_m_" + strconv.Itoa(c%perApp)
	}
	containers := apps * perApp
	for c := 0; c < containers; c++ {
		app, task := attempt(c)
		s.Apply(&events.Event{V: 1, ID: id(), Type: events.TaskPending, TS: 2, App: app, Task: task, Kind: events.Map})
		s.Apply(&events.Event{V: 1, ID: id(), Type: events.ContainerAllocated, TS: 3, App: app, Task: task,
			Attempt: task + "_0", Container: "c" + strconv.Itoa(c), Node: node(c % nodes), VCores: 1, MemoryMB: 1024})
	}
	evs := make([]events.Event, n)
	perSecond := nodes + containers/3
	ts := int64(1000)
	for i := range evs {
		k := i % perSecond
		if k == 0 && i > 0 {
			ts += 1000
		}
		ev := &evs[i]
		*ev = events.Event{V: 1, ID: id(), TS: ts + int64(k)*1000/int64(perSecond)}
		if k < nodes {
			ev.Type, ev.Node = events.NodeHeartbeat, node(k)
			ev.UsedVCores, ev.UsedMemoryMB, ev.Load1, ev.CPUUtil = 10, 10240, 4, 0.5
			continue
		}
		c := ((k-nodes)*3 + (i/perSecond)%3) % containers
		app, task := attempt(c)
		ev.Type, ev.App, ev.Task, ev.Attempt = events.TaskProgress, app, task, task+"_0"
		ev.Progress, ev.Phase = min(0.99, 0.02*float64(i/perSecond+1)), events.PhaseMap
	}
	return s, evs
}

// BenchmarkApplySteady is the state's share of the end-to-end bench: the
// bench's cluster size (10,000 nodes, 100,000 running attempts) and event
// mix (a quarter heartbeats, the rest progress reports on random attempts,
// so most lookups miss the CPU caches).
func BenchmarkApplySteady(b *testing.B) {
	s, evs := steadyState(10_000, 2_000, 50, 1_000_000)
	applyTimed(b, s, evs)
}

// BenchmarkApplySteadyShuffled is BenchmarkApplySteady with each second's
// events in a random order (every event still newer than the one before it
// for its node or attempt): look-ups in no order, where the cursors that
// follow the stream's order (attemptIndex.next, nodeIndex.next) cannot
// predict and the look-up is the hash slot's alone.
func BenchmarkApplySteadyShuffled(b *testing.B) {
	s, evs := steadyState(10_000, 2_000, 50, 1_000_000)
	perSecond := 10_000 + 2_000*50/3
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < len(evs); i += perSecond {
		sec := evs[i:min(len(evs), i+perSecond)]
		r.Shuffle(len(sec), func(x, y int) { sec[x], sec[y] = sec[y], sec[x] })
	}
	applyTimed(b, s, evs)
}

// applyTimed applies b.N events of evs (cycling) to s, checks that each
// changed the state, and also reports the applying thread's CPU per event.
func applyTimed(b *testing.B, s *State, evs []events.Event) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	b.ResetTimer()
	t0 := threadCPUTime()
	changed := 0
	for i := 0; i < b.N; i++ {
		if s.Apply(&evs[i%len(evs)]) {
			changed++
		}
	}
	cpu := threadCPUTime() - t0
	b.StopTimer()
	b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "thread-cpu-ns/event")
	if b.N <= len(evs) && changed != b.N {
		b.Fatalf("%d of %d events changed the state", changed, b.N)
	}
}

// BenchmarkBuild builds the bench's cluster from nothing (10,000 nodes on
// 250 racks, 2,000 apps of 50 running attempts): what a sidecar pays when
// it starts on a busy cluster, and what `rmsidecar bench` pays before it
// measures.
func BenchmarkBuild(b *testing.B) {
	b.ReportAllocs()
	for range b.N {
		steadyState(10_000, 2_000, 50, 0)
	}
}
