package bench

import (
	"fmt"
	"io"
	"os"
	"runtime/metrics"
	"strings"
	"time"
)

// memTrace samples the process's memory every 2 ms while the hint latency
// is measured (BENCH_MEM_TRACE=1) and prints the sample at the peak RSS:
// what rss_offered_mb is made of (the heap, the runtime's other classes, the
// binary's pages). A diagnostic: reading /proc every 2 ms costs CPU and
// about 3 MB/s of allocation, so its runs are not for the latency figures.
type memTrace struct {
	stop chan struct{}
	done chan string
}

// memTraceNames are the runtime/metrics the trace reads; the last two are
// counters it reports over the phase.
func memTraceNames() []string {
	return []string{
		"/gc/heap/live:bytes", "/gc/heap/goal:bytes", "/gc/gomemlimit:bytes",
		"/memory/classes/heap/objects:bytes", "/memory/classes/heap/unused:bytes",
		"/memory/classes/heap/free:bytes", "/memory/classes/heap/stacks:bytes",
		"/memory/classes/os-stacks:bytes",
		"/memory/classes/metadata/mspan/inuse:bytes", "/memory/classes/metadata/mspan/free:bytes",
		"/memory/classes/metadata/mcache/inuse:bytes", "/memory/classes/metadata/mcache/free:bytes",
		"/memory/classes/metadata/other:bytes", "/memory/classes/other:bytes",
		"/memory/classes/profiling/buckets:bytes",
		"/gc/heap/allocs:bytes", "/gc/cycles/total:gc-cycles",
	}
}

// startMemTrace starts the trace when BENCH_MEM_TRACE is set; nil otherwise.
func startMemTrace() *memTrace {
	if os.Getenv("BENCH_MEM_TRACE") == "" {
		return nil
	}
	t := &memTrace{stop: make(chan struct{}), done: make(chan string, 1)}
	go t.run()
	return t
}

func (t *memTrace) run() {
	names := memTraceNames()
	samples := make([]metrics.Sample, len(names))
	for i, n := range names {
		samples[i].Name = n
	}
	allocs, cycles := len(names)-2, len(names)-1
	metrics.Read(samples)
	alloc0, gc0 := samples[allocs].Value.Uint64(), samples[cycles].Value.Uint64()
	start := time.Now()
	tick := time.NewTicker(2 * time.Millisecond)
	defer tick.Stop()
	var peak strings.Builder
	peakRSS := 0.0
	for {
		select {
		case <-t.stop:
			metrics.Read(samples)
			el := time.Since(start).Seconds()
			fmt.Fprintf(&peak, "phase: %.1f MB allocated/s, %d collections in %.1f s\n",
				float64(samples[allocs].Value.Uint64()-alloc0)/el/(1<<20), samples[cycles].Value.Uint64()-gc0, el)
			t.done <- peak.String()
			return
		case <-tick.C:
		}
		st := procStatusMB()
		if st["VmRSS"] <= peakRSS {
			continue
		}
		peakRSS = st["VmRSS"]
		metrics.Read(samples)
		peak.Reset()
		fmt.Fprintf(&peak, "peak at %.2f s: VmRSS %.1f MB = RssAnon %.1f + RssFile %.1f (+ RssShmem %.1f)\n",
			time.Since(start).Seconds(), st["VmRSS"], st["RssAnon"], st["RssFile"], st["RssShmem"])
		for i, s := range samples[:allocs] {
			fmt.Fprintf(&peak, "  %-44s %8.2f MB\n", names[i], float64(s.Value.Uint64())/(1<<20))
		}
	}
}

// finish stops the trace and writes its report to w.
func (t *memTrace) finish(w io.Writer) {
	if t == nil {
		return
	}
	close(t.stop)
	fmt.Fprint(w, <-t.done)
}
