package bench

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/rmsidecar/rmsidecar/cluster"
	"github.com/rmsidecar/rmsidecar/engine"
	"github.com/rmsidecar/rmsidecar/events"
	"github.com/rmsidecar/rmsidecar/internal/memlimit"
	"github.com/rmsidecar/rmsidecar/profiles"
	"github.com/rmsidecar/rmsidecar/sidecar"
)

// BenchmarkEngine applies the steady workload at 10,000 nodes and 100,000
// running containers and reports events/s (go test -bench Engine ./bench).
func BenchmarkEngine(b *testing.B) {
	o := Quick()
	o.EngineEvents = max(b.N, 100_000)
	o.Log = zerolog.Nop()
	ctx := context.Background()
	store := profiles.NewMemory()
	defer store.Close()
	stack, err := buildStack(o.Stack, store, o.Log)
	if err != nil {
		b.Fatal(err)
	}
	w, eng := setupEngine(ctx, o, stack)
	b.ResetTimer()
	spent, cpu, thread := applySteady(ctx, w, eng, b.N)
	b.ReportMetric(float64(b.N)/spent.Seconds(), "events/s")
	b.ReportMetric(perCPU(b.N, cpu), "events/cpu-s")
	b.ReportMetric(perCPU(b.N, thread), "events/thread-cpu-s")
}

// BenchmarkEndToEnd measures the Kafka path against a bare sarama consumer.
func BenchmarkEndToEnd(b *testing.B) {
	o := Quick()
	o.KafkaEvents = 100_000
	o.Log = zerolog.Nop()
	for range b.N {
		r, err := benchKafka(context.Background(), o)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(r.raw, "raw/s")
		b.ReportMetric(r.e2e, "e2e/s")
		b.ReportMetric(r.decode, "decode/s")
		b.ReportMetric(r.e2e/r.raw, "ratio")
		b.ReportMetric(r.e2eCPU/r.rawCPU, "cpu-ratio")
	}
}

// BenchmarkFirstScan applies the steady stream until the first speculation
// scan that proposes copies over the full-size cluster (every job past the 5 %
// gate at once), timing the Apply calls: the hint-latency measurement's worst
// case (go test -bench FirstScan -benchtime 5x ./bench).
func BenchmarkFirstScan(b *testing.B) {
	o := Quick()
	o.Log = zerolog.Nop()
	ctx := context.Background()
	hints := 0
	var scan, scanCPU, slowest time.Duration
	var rounds []time.Duration // each round's thread CPU
	runtime.LockOSThread()     // so the thread CPU of the scan is its own
	defer runtime.UnlockOSThread()
	for range b.N {
		b.StopTimer()
		store := profiles.NewMemory()
		stack, err := buildStack(o.Stack, store, o.Log)
		if err != nil {
			b.Fatal(err)
		}
		w, eng := setupEngine(ctx, o, stack)
		var ev events.Event
		if os.Getenv("BENCH_GC_FIRST") != "" {
			runtime.GC()
		}
		b.StartTimer()
		for n := 0; n == 0; {
			w.next(&ev)
			start, c0 := time.Now(), threadCPUTime()
			n = len(eng.Apply(ctx, &ev))
			if d := time.Since(start); n > 0 {
				scan += d
				c := threadCPUTime() - c0
				scanCPU += c
				rounds = append(rounds, c)
			} else {
				slowest = max(slowest, d)
			}
			hints += n
		}
		b.StopTimer()
		store.Close()
	}
	b.ReportMetric(float64(hints)/float64(b.N), "hints/op")
	b.ReportMetric(float64(scan.Microseconds())/1000/float64(b.N), "ms/hint-scan")
	// The same on the thread's CPU clock: what the scan costs, whatever
	// else the machine runs (wall time includes waiting for a core).
	b.ReportMetric(float64(scanCPU.Microseconds())/1000/float64(b.N), "cpu-ms/hint-scan")
	b.ReportMetric(float64(slowest.Microseconds())/1000, "max-ms/other-event")
	// The cheapest and the median round: other processes' load slows
	// rounds (cache misses cost more on a shared machine) but never speeds
	// one up, so these move less from run to run than the mean.
	if len(rounds) > 0 {
		slices.Sort(rounds)
		b.ReportMetric(float64(rounds[0].Microseconds())/1000, "min-cpu-ms/hint-scan")
		b.ReportMetric(float64(rounds[len(rounds)/2].Microseconds())/1000, "median-cpu-ms/hint-scan")
	}
}

// fullSizeEngine builds the full-size cluster in a fresh engine, applies the
// steady stream (Full's engine events) and collects: the state a live
// sidecar holds at 10,000 nodes and 100,000 containers, times scale.
// Close the store. The workload's loads vary and its ids are YARN's as
// kind says.
func fullSizeEngine(ctx context.Context, b *testing.B, scale float64, kind heapKind) (*engine.Engine, *profiles.DB) {
	b.Helper()
	o := Quick()
	o.Nodes, o.Containers = int(float64(o.Nodes)*scale), int(float64(o.Containers)*scale)
	o.Log = zerolog.Nop()
	store := profiles.NewMemory()
	stack, err := buildStack(o.Stack, store, o.Log)
	if err != nil {
		b.Fatal(err)
	}
	w := newWorkload(o.Nodes, o.Containers)
	w.varyLoads, w.yarnIDs = kind.varyLoads, kind.yarnIDs
	w, eng := setupWorkload(ctx, o, stack, w)
	applySteady(ctx, w, eng, Full().EngineEvents)
	runtime.GC()
	return eng, store
}

// BenchmarkLiveHeap builds the full-size cluster, applies the steady stream
// and reports the live heap after a collection (go test -bench LiveHeap
// -memprofile heap.out ./bench; go tool pprof -sample_index inuse_space).
// BENCH_HEAP_PROFILE=FILE writes the heap profile at that point,
// BENCH_HEAP_PROFILE_RATE=N samples one allocation per N bytes for it.
func BenchmarkLiveHeap(b *testing.B) { liveHeap(b, heapKind{}) }

// BenchmarkLiveHeapVaryingLoads is BenchmarkLiveHeap with a new load at
// every heartbeat, as a cluster reporting real CPU use sends through the
// bridge (bridgeLoad), instead of each node's constant one.
func BenchmarkLiveHeapVaryingLoads(b *testing.B) { liveHeap(b, heapKind{varyLoads: true}) }

// BenchmarkLiveHeapYARN is BenchmarkLiveHeapVaryingLoads with the ids of a
// real cluster: YARN's app, task, attempt and container ids and the
// bridge's event ids, where the default stream's are a few bytes.
func BenchmarkLiveHeapYARN(b *testing.B) { liveHeap(b, heapKind{varyLoads: true, yarnIDs: true}) }

// heapKind is the workload a live-heap benchmark measures.
type heapKind struct{ varyLoads, yarnIDs bool }

func liveHeap(b *testing.B, kind heapKind) {
	ctx := context.Background()
	if v := os.Getenv("BENCH_HEAP_PROFILE_RATE"); v != "" {
		// A finer sampling than the default one per 512 KB: the profile's
		// figures per allocation site are then close to exact.
		n, err := strconv.Atoi(v)
		if err != nil || n <= 0 {
			b.Fatalf("BENCH_HEAP_PROFILE_RATE=%q: not a positive number of bytes", v)
		}
		defer func(old int) { runtime.MemProfileRate = old }(runtime.MemProfileRate)
		runtime.MemProfileRate = n
	}
	for range b.N {
		eng, store := fullSizeEngine(ctx, b, 1, kind)
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		b.ReportMetric(float64(ms.HeapAlloc)/(1<<20), "live-MB")
		b.ReportMetric(float64(ms.HeapObjects), "objects")
		if path := os.Getenv("BENCH_HEAP_PROFILE"); path != "" {
			f, err := os.Create(path)
			if err != nil {
				b.Fatal(err)
			}
			if err := pprof.Lookup("heap").WriteTo(f, 0); err != nil {
				b.Fatal(err)
			}
			f.Close()
		}
		runtime.KeepAlive(eng)
		store.Close()
	}
}

// BenchmarkCheckpointPeak measures what the bench's RSS figure leaves out:
// a live sidecar's checkpoint at full size. It builds the state of
// BenchmarkLiveHeap, then saves one checkpoint the way the loop does (the
// state's and engine's copies, encoded into a bbolt profiles file) and
// reports the process's peak RSS before and after the save, the size of
// the saved file, the bytes the copies and the save allocated and
// the process CPU of the save and of loading the checkpoint back.
// BENCH_CKPT_SCALE (e.g. 0.5, 2) scales the state, to see what grows with it.
// BENCH_MEMORY_HEADROOM_MB=N runs it under the sidecar's soft memory limit
// with that headroom (runtime.memory_headroom_mb; unset or 0: none).
func BenchmarkCheckpointPeak(b *testing.B) {
	ctx := context.Background()
	scale := 1.0
	if v := os.Getenv("BENCH_CKPT_SCALE"); v != "" {
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || f <= 0 {
			b.Fatalf("BENCH_CKPT_SCALE=%q: not a positive number", v)
		}
		scale = f
	}
	if v := os.Getenv("BENCH_MEMORY_HEADROOM_MB"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			b.Fatalf("BENCH_MEMORY_HEADROOM_MB=%q: not a number of MB >= 0", v)
		}
		defer memlimit.Start(memlimit.Headroom(n))()
	}
	for range b.N {
		eng, store := fullSizeEngine(ctx, b, scale, heapKind{})
		before := peakRSSMB()
		path := filepath.Join(b.TempDir(), "profiles.db")
		db, err := profiles.Open(path, profiles.Options{})
		if err != nil {
			b.Fatal(err)
		}
		var msc, ms0, ms1 runtime.MemStats
		runtime.ReadMemStats(&msc)
		c := &sidecar.Checkpoint{V: 1, Cluster: eng.State().CheckpointForSave(), Engine: eng.Checkpoint()}
		runtime.ReadMemStats(&ms0)
		cpu0 := cpuTime()
		ck := sidecar.ProfileCheckpoints{Store: db}
		if err := ck.Save(ctx, c); err != nil {
			b.Fatal(err)
		}
		saveCPU := cpuTime() - cpu0
		runtime.ReadMemStats(&ms1)
		after := peakRSSMB()
		cpu0 = cpuTime()
		got, err := ck.Load(ctx)
		if err != nil || got == nil {
			b.Fatalf("load: %v", err)
		}
		loadCPU := cpuTime() - cpu0
		if err := db.Close(); err != nil {
			b.Fatal(err)
		}
		fi, err := os.Stat(path)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(before, "peak-RSS-MB-before")
		b.ReportMetric(after, "peak-RSS-MB-after")
		b.ReportMetric(float64(fi.Size())/(1<<20), "file-MB")
		b.ReportMetric(float64(ms1.TotalAlloc-ms0.TotalAlloc)/(1<<20), "save-alloc-MB")
		// The copies' bytes: what the loop holds while a save is in flight.
		b.ReportMetric(float64(ms0.TotalAlloc-msc.TotalAlloc)/(1<<20), "copy-alloc-MB")
		b.ReportMetric(saveCPU.Seconds(), "save-cpu-s")
		b.ReportMetric(loadCPU.Seconds(), "load-cpu-s")
		runtime.KeepAlive(eng)
		runtime.KeepAlive(got)
		store.Close()
	}
}

// BenchmarkReplay applies a recorded event log (BENCH_EVENTS, JSONL, e.g.
// from `rmsidecar sim --emit-events`) to a fresh engine running
// BENCH_STACK (default yarn) over a state that forgets finished apps after
// 1 ms, as the simulator's does: the engine's cost per event as the
// simulator sees it, without the simulator. The log is decoded before the
// timer starts. Skipped without BENCH_EVENTS.
func BenchmarkReplay(b *testing.B) {
	path := os.Getenv("BENCH_EVENTS")
	if path == "" {
		b.Skip("BENCH_EVENTS not set")
	}
	stackName := os.Getenv("BENCH_STACK")
	if stackName == "" {
		stackName = "yarn"
	}
	f, err := os.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	var log []events.Event
	r := events.NewReader(f)
	for {
		ev, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			b.Fatal(err)
		}
		log = append(log, ev)
	}
	f.Close()
	ctx := context.Background()
	store := profiles.NewMemory()
	defer store.Close()
	b.ResetTimer()
	var cpu, thread time.Duration
	for range b.N {
		b.StopTimer()
		stack, err := buildStack(stackName, store, zerolog.Nop())
		if err != nil {
			b.Fatal(err)
		}
		eng := engine.New(stack, engine.Options{Log: zerolog.Nop(),
			State: cluster.New(cluster.WithRetention(cluster.Retention{AfterMS: 1}))})
		runtime.GC()
		b.StartTimer()
		c, t := replay(ctx, eng, log)
		cpu += c
		thread += t
	}
	n := b.N * len(log)
	b.ReportMetric(perCPU(n, cpu), "events/cpu-s")
	b.ReportMetric(perCPU(n, thread), "events/thread-cpu-s")
	b.ReportMetric(float64(thread.Nanoseconds())/float64(n), "thread-ns/event")
}

// replay applies log on one locked thread and returns the process's and
// the thread's CPU time.
func replay(ctx context.Context, eng *engine.Engine, log []events.Event) (cpu, thread time.Duration) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	c0, t0 := cpuTime(), threadCPUTime()
	for i := range log {
		eng.Apply(ctx, &log[i]) // the engine does not write to its events: the log can be applied again
	}
	return cpuTime() - c0, threadCPUTime() - t0
}

// TestYARNIDs: the YARN-named workload names every attempt of the stream
// as its setup allocated it, in YARN's forms, with event ids unique.
func TestYARNIDs(t *testing.T) {
	w := newWorkload(10, 100)
	w.yarnIDs = true
	attempts, ids := map[string]string{}, map[string]bool{}
	w.setup(func(ev *events.Event) {
		if ids[ev.ID] || !strings.HasPrefix(ev.ID, "yb-") {
			t.Fatalf("event id %q repeated or not the bridge's", ev.ID)
		}
		ids[ev.ID] = true
		if ev.Type == events.ContainerAllocated {
			attempts[ev.Attempt] = ev.Task
		}
	})
	if got := attempts["attempt_1763719200000_0001_m_000007_0"]; got != "task_1763719200000_0001_m_000007" {
		t.Errorf("attempt 7 of app 1 has task %q", got)
	}
	if got := attempts["attempt_1763719200000_0002_m_000051_0"]; got != "task_1763719200000_0002_m_000051" {
		t.Errorf("finished attempt 1 of app 2 has task %q", got)
	}
	if len(attempts) != 100+2*finishedPerApp {
		t.Errorf("%d attempts, want %d", len(attempts), 100+2*finishedPerApp)
	}
	var ev events.Event
	for range 1000 {
		w.next(&ev)
		if ids[ev.ID] {
			t.Fatalf("event id %q repeated", ev.ID)
		}
		ids[ev.ID] = true
		if ev.Type == events.TaskProgress && attempts[ev.Attempt] != ev.Task {
			t.Fatalf("progress of unknown attempt %q (task %q)", ev.Attempt, ev.Task)
		}
	}
}
