package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"runtime/pprof"
	"strings"
	"time"

	"github.com/rs/zerolog"
	"github.com/spf13/cobra"

	"github.com/rmsidecar/rmsidecar/bench"
	"github.com/rmsidecar/rmsidecar/config"
)

type benchOptions struct {
	quick    bool
	json     bool
	policies string
	nodes    int
	conts    int
	engineN  int
	kafkaN   int
	latFor   time.Duration
	cpuProf  string
	memProf  string
	headroom int
}

func newBenchCmd(a *app) *cobra.Command {
	var o benchOptions
	cmd := &cobra.Command{
		Use:   "bench [--quick] [--json]",
		Short: "Measure engine throughput, the Kafka path, hint latency and memory",
		Long: `bench builds a cluster of --nodes nodes running --containers containers and
measures, in one run:

  engine_events_per_s  events applied per second by the in-process engine with
                       the policy stack (--policies), on a stream shaped like a
                       real cluster (heartbeats every second, progress every 3 s)
  raw_consume_per_s    the same messages read from an embedded Kafka broker by a
                       bare sarama consumer group that does nothing else
  decode_events_per_s  the same messages' values decoded by the consumer's
                       decoder in one goroutine (no broker, no sarama)
  e2e_events_per_s     the same messages through the sidecar: consume, decode,
                       apply, policies, commit
  e2e_checkpoints      checkpoints the sidecar began while e2e was timed
  hint_p50_ms/p99_ms/p999_ms
                       event received -> hint emitted, at 100,000 events/s offered
  rss_mb               peak resident memory at that size, after the engine
                       measurement (its state, policies and working set)
  rss_offered_mb       peak resident memory while the hint latency is measured
                       (100,000 events/s offered to the full-size state; the
                       peak is reset before it on Linux, else 0)
  memory_headroom_mb   the soft memory limit's headroom the sidecar's
                       measurements ran under (--memory-headroom-mb)

Each rate is also given per CPU-second of the process (*_per_cpu_s), and
as a ratio to the bare consumer of the same run (e2e_to_raw, decode_to_raw,
engine_to_raw, and *_cpu per CPU-second): the table prints them side by side.
The engine, end-to-end and hint-latency measurements run under the soft
memory limit rmsidecar run keeps by default (runtime.memory_headroom_mb,
16): --memory-headroom-mb 0 runs them without it, for comparison. The bare
consumer and the decoder always run without it. GOMEMLIMIT in the
environment replaces it (memory_headroom_mb is then 0).
--json prints the contract's object; otherwise a table.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runBench(cmd.Context(), a, o)
		},
	}
	f := cmd.Flags()
	f.BoolVar(&o.quick, "quick", false, "fewer events per measurement (seconds instead of a minute)")
	f.BoolVar(&o.json, "json", false, "print one JSON object (the contract's bench object)")
	f.StringVar(&o.policies, "policies", "yarn", "policy stack to run, e.g. yarn or samr+sepb")
	f.IntVar(&o.nodes, "nodes", 10_000, "cluster size")
	f.IntVar(&o.conts, "containers", 100_000, "running containers")
	f.IntVar(&o.engineN, "engine-events", 0, "events the engine measurement applies (0: the --quick or full default)")
	f.IntVar(&o.kafkaN, "kafka-events", 0, "messages the Kafka measurements read (0: the --quick or full default)")
	f.DurationVar(&o.latFor, "latency-for", 0, "how long to offer events for the latency measurement (0: the default)")
	f.StringVar(&o.cpuProf, "cpuprofile", "", "write a CPU profile of the whole run to this file (go tool pprof)")
	f.IntVar(&o.headroom, "memory-headroom-mb", config.DefaultMemoryHeadroomMB, "soft memory limit headroom of the sidecar's measurements, as runtime.memory_headroom_mb for run (0: none, the runtime's default pacing)")
	f.StringVar(&o.memProf, "memprofile", "", "write an allocation profile (every allocation of the run) to this file at the end")
	return cmd
}

func runBench(ctx context.Context, a *app, o benchOptions) error {
	bo := bench.Full()
	if o.quick {
		bo = bench.Quick()
	}
	if o.nodes <= 0 || o.conts <= 0 {
		return badInput("--nodes and --containers must be > 0")
	}
	bo.Nodes, bo.Containers, bo.Stack = o.nodes, o.conts, o.policies
	if o.engineN > 0 {
		bo.EngineEvents = o.engineN
	}
	if o.kafkaN > 0 {
		bo.KafkaEvents = o.kafkaN
	}
	if o.latFor > 0 {
		bo.LatencyFor = o.latFor
	}
	if o.headroom < 0 {
		return badInput("--memory-headroom-mb must be >= 0")
	}
	bo.MemoryHeadroomMB = o.headroom
	bo.Log = zerolog.Nop()
	if o.cpuProf != "" {
		f, err := os.Create(o.cpuProf)
		if err != nil {
			return fmt.Errorf("bench --cpuprofile: %w", err)
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return fmt.Errorf("bench --cpuprofile: %w", err)
		}
		defer pprof.StopCPUProfile()
	}
	res, err := bench.Run(ctx, bo)
	if err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	if o.memProf != "" {
		if err := writeAllocs(o.memProf); err != nil {
			return fmt.Errorf("bench --memprofile: %w", err)
		}
	}
	if o.json {
		enc := json.NewEncoder(a.io.out)
		return enc.Encode(res)
	}
	printBench(a.io.out, res)
	return nil
}

// writeAllocs writes the allocation profile (allocs: every allocation
// sampled since the start, not only the live heap) to path.
func writeAllocs(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := pprof.Lookup("allocs").WriteTo(f, 0); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func printBench(w io.Writer, r bench.Result) {
	fmt.Fprintf(w, "rmsidecar bench: %d nodes, %d running containers, stack %s\n", r.Nodes, r.Containers, r.Stack)
	fmt.Fprintln(w, "  (wall-clock rates depend on how busy the machine is; per-CPU-second rates do not)")
	fmt.Fprintf(w, "  %-22s %14s   %14s   %8s %8s\n", "", "events/s", "per CPU-s", "x raw", "x raw/CPU")
	row := func(name string, rate, cpu, x, xCPU float64, goal string) {
		line := fmt.Sprintf("  %-22s %14.0f   %14.0f   %7.2fx %7.2fx   %s", name, rate, cpu, x, xCPU, goal)
		fmt.Fprintln(w, strings.TrimRight(line, " "))
	}
	row("bare sarama consumer", r.RawConsumePerS, r.RawConsumePerCPUS, ratio(r.RawConsumePerS, r.RawConsumePerS),
		ratio(r.RawConsumePerCPUS, r.RawConsumePerCPUS), "")
	row("decode only", r.DecodeEventsPerS, r.DecodeEventsPerCPUS, r.DecodeToRaw, r.DecodeToRawCPU, "")
	row("engine only", r.EngineEventsPerS, r.EngineEventsPerCPUS, r.EngineToRaw, r.EngineToRawCPU, "(goal >= 5,000,000/s)")
	fmt.Fprintf(w, "  %-22s %14s   %14.0f   (per CPU-s of the applying thread alone: no GC workers)\n",
		"  engine, its thread", "", r.EngineEventsPerThreadCPUS)
	row("sidecar end to end", r.E2EEventsPerS, r.E2EEventsPerCPUS, r.E2EToRaw, r.E2EToRawCPU, "(goal >= 0.8x raw)")
	fmt.Fprintf(w, "  %-22s p50 %.3f ms, p99 %.3f ms, p999 %.3f ms over %d hints at %.0f events/s offered (goal p99 <= 2 ms)\n",
		"hint latency", r.HintP50MS, r.HintP99MS, r.HintP999MS, r.Hints, r.AchievedOfferPerS)
	fmt.Fprintf(w, "  %-22s %14.0f MB   after the engine measurement\n", "peak RSS", r.RSSMB)
	fmt.Fprintf(w, "  %-22s %14.0f MB   while %.0f events/s are offered (goal <= 150)\n", "peak RSS, offered", r.RSSOfferedMB, r.OfferedPerS)
	if r.MemoryHeadroomMB > 0 {
		fmt.Fprintf(w, "  (the sidecar's measurements ran under a soft memory limit, headroom %d MB)\n", r.MemoryHeadroomMB)
	}
	if r.E2ECheckpoints > 0 {
		fmt.Fprintf(w, "  (%d checkpoint(s) began while end to end was timed)\n", r.E2ECheckpoints)
	}
}

// ratio is a/b, 0 when b is not a measurement.
func ratio(a, b float64) float64 {
	if b <= 0 {
		return 0
	}
	return a / b
}
