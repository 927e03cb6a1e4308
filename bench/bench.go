// Package bench is `rmsidecar bench`: engine throughput, the Kafka path
// (an embedded kfake broker read by a bare sarama consumer and by the
// sidecar end to end), hint latency and memory, on a generated cluster. It
// drives package sidecar from outside, so the production packages do not
// import the embedded broker.
package bench

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/IBM/sarama"
	"github.com/rs/zerolog"
	"github.com/twmb/franz-go/pkg/kfake"

	"github.com/rmsidecar/rmsidecar/config"
	"github.com/rmsidecar/rmsidecar/engine"
	"github.com/rmsidecar/rmsidecar/events"
	"github.com/rmsidecar/rmsidecar/events/kafka"
	"github.com/rmsidecar/rmsidecar/internal/memlimit"
	"github.com/rmsidecar/rmsidecar/policy"
	"github.com/rmsidecar/rmsidecar/policy/plugins"
	"github.com/rmsidecar/rmsidecar/profiles"
	"github.com/rmsidecar/rmsidecar/sidecar"
)

// Options size the benchmark.
type Options struct {
	Nodes      int    // default 10,000
	Containers int    // running containers, default 100,000
	Stack      string // policy stack, default "yarn"
	// EngineEvents is how many events the in-process measurement applies.
	EngineEvents int
	// KafkaEvents is how many messages the end-to-end and raw-consumer
	// measurements read.
	KafkaEvents int
	// OfferedRate and LatencyFor drive the hint-latency measurement.
	OfferedRate int
	LatencyFor  time.Duration
	// MemoryHeadroomMB is the soft memory limit's headroom the sidecar's
	// phases (engine, end to end, hint latency) run under, as
	// runtime.memory_headroom_mb sets it for `rmsidecar run`; 0: none. The
	// bare consumer and the decoder run without it: they are the baseline.
	MemoryHeadroomMB int
	Log              zerolog.Logger
}

// Result is the contract's `rmsidecar bench --json` object.
type Result struct {
	V                 int     `json:"v"`
	EngineEventsPerS  float64 `json:"engine_events_per_s"`
	E2EEventsPerS     float64 `json:"e2e_events_per_s"`
	RawConsumePerS    float64 `json:"raw_consume_per_s"`
	HintP50MS         float64 `json:"hint_p50_ms"`
	HintP99MS         float64 `json:"hint_p99_ms"`
	HintP999MS        float64 `json:"hint_p999_ms"`
	RSSMB             float64 `json:"rss_mb"`
	Nodes             int     `json:"nodes"`
	Containers        int     `json:"containers"`
	Stack             string  `json:"stack"`
	Hints             int     `json:"hints_at_offered_rate"`
	OfferedPerS       float64 `json:"offered_per_s"`
	AchievedOfferPerS float64 `json:"achieved_offer_per_s"`
	// Per CPU-second of the whole process: the same rates, independent of
	// how busy the machine is (the wall-clock rates above are not).
	EngineEventsPerCPUS float64 `json:"engine_events_per_cpu_s"`
	E2EEventsPerCPUS    float64 `json:"e2e_events_per_cpu_s"`
	RawConsumePerCPUS   float64 `json:"raw_consume_per_cpu_s"`
	// EngineEventsPerThreadCPUS counts only the CPU of the thread applying
	// the events (no GC workers, no other goroutines): the engine's own cost.
	EngineEventsPerThreadCPUS float64 `json:"engine_events_per_thread_cpu_s"`
	// DecodeEventsPerS decodes the messages the Kafka measurements read
	// (their record values, in one goroutine, no broker): the decoder alone.
	DecodeEventsPerS    float64 `json:"decode_events_per_s"`
	DecodeEventsPerCPUS float64 `json:"decode_events_per_cpu_s"`
	// Ratios to the bare sarama consumer of the same run (wall clock, and
	// per CPU-second): how far each stage alone and the whole path are from
	// reading the topic and doing nothing.
	E2EToRaw       float64 `json:"e2e_to_raw"`
	E2EToRawCPU    float64 `json:"e2e_to_raw_cpu"`
	DecodeToRaw    float64 `json:"decode_to_raw"`
	DecodeToRawCPU float64 `json:"decode_to_raw_cpu"`
	EngineToRaw    float64 `json:"engine_to_raw"`
	EngineToRawCPU float64 `json:"engine_to_raw_cpu"`
	// E2ECheckpoints is how many checkpoints the sidecar began while the
	// end-to-end rate was timed (each costs a full-state copy and encode).
	E2ECheckpoints int `json:"e2e_checkpoints"`
	// RSSOfferedMB is the peak resident set while events are offered at
	// OfferedRate to the full-size state (the hint-latency phase): freed
	// pages are returned and VmHWM is reset before it starts (Linux; 0
	// where that cannot be done).
	RSSOfferedMB float64 `json:"rss_offered_mb"`
	// MemoryHeadroomMB is Options.MemoryHeadroomMB, or 0 when GOMEMLIMIT in
	// the environment replaced it.
	MemoryHeadroomMB int `json:"memory_headroom_mb"`
}

// cpuTime is the process's user+system CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// ratio is a/b, 0 when b is not a measurement.
func ratio(a, b float64) float64 {
	if b <= 0 {
		return 0
	}
	return a / b
}

func perCPU(n int, cpu time.Duration) float64 {
	if cpu <= 0 {
		return 0
	}
	return float64(n) / cpu.Seconds()
}

// Quick and Full are the sizes of `bench --quick` and `bench`.
func Quick() Options {
	return Options{Nodes: 10_000, Containers: 100_000, Stack: "yarn", EngineEvents: 300_000,
		KafkaEvents: 100_000, OfferedRate: 100_000, LatencyFor: 2 * time.Second,
		MemoryHeadroomMB: config.DefaultMemoryHeadroomMB}
}

// Full is the full-size benchmark.
func Full() Options {
	o := Quick()
	o.EngineEvents, o.KafkaEvents, o.LatencyFor = 3_000_000, 500_000, 5*time.Second
	return o
}

// workload generates a cluster of Nodes nodes running Containers
// containers (50 per app), then a steady stream in the proportions of a real
// cluster: every node heartbeats each second, every container reports
// progress every three seconds.
type workload struct {
	nodes, containers, perApp int
	seq                       uint64
	ts                        int64
	i                         int
	// varyLoads gives every heartbeat a new load, as the bridge sends from
	// YARN's nodeCPUUsage, instead of each node's constant one.
	varyLoads bool
	// yarnIDs renames apps, tasks, attempts and containers as YARN names
	// them and events as the bridge does (yarnify), 20-40 bytes each where
	// the default stream's are a few.
	yarnIDs bool
	idTS    int64  // yarnIDs: the newest event time, of the event ids' sequence
	idSeq   uint64 // yarnIDs: the sequence number within idTS
}

const benchEpoch = 1_763_719_200_000

func newWorkload(nodes, containers int) *workload {
	return &workload{nodes: nodes, containers: containers, perApp: 50, ts: benchEpoch}
}

func (w *workload) id() string { w.seq++; return "b" + strconv.FormatUint(w.seq, 36) }

func nodeName(i int) string { return "nm" + strconv.Itoa(i) + ".bench:8041" }
func appName(i int) string  { return "application_1_" + strconv.Itoa(i) }

// setup emits the events that build the cluster: nodes, apps, and per app
// perApp running maps plus finishedPerApp finished ones (speculators need
// finished tasks to estimate from).
func (w *workload) setup(emit func(*events.Event)) {
	if w.yarnIDs {
		inner := emit
		emit = func(ev *events.Event) { w.yarnify(ev); inner(ev) }
	}
	for n := range w.nodes {
		emit(&events.Event{V: 1, ID: w.id(), Type: events.NodeRegistered, TS: w.ts, Node: nodeName(n),
			Rack: "/rack" + strconv.Itoa(n/40), VCores: 32, MemoryMB: 131072})
	}
	apps := (w.containers + w.perApp - 1) / w.perApp
	for a := range apps {
		emit(&events.Event{V: 1, ID: w.id(), Type: events.AppSubmitted, TS: w.ts, App: appName(a), Name: "job",
			Queue: "default", User: "u", JobType: "sort", Maps: w.perApp + finishedPerApp})
		for f := range finishedPerApp {
			task := "task_1_" + strconv.Itoa(a) + "_m_f" + strconv.Itoa(f)
			emit(&events.Event{V: 1, ID: w.id(), Type: events.TaskPending, TS: w.ts - 60_000, App: appName(a), Task: task, Kind: events.Map})
			emit(&events.Event{V: 1, ID: w.id(), Type: events.ContainerAllocated, TS: w.ts - 60_000, App: appName(a), Task: task,
				Attempt: task + "_0", Container: "cf" + strconv.Itoa(a) + "_" + strconv.Itoa(f), Node: nodeName((a*7 + f) % w.nodes)})
			emit(&events.Event{V: 1, ID: w.id(), Type: events.TaskFinished, TS: w.ts - 60_000 + 40_000 + int64(f)*500, App: appName(a),
				Task: task, Attempt: task + "_0", State: events.StateSucceeded})
		}
	}
	for c := range w.containers {
		app, task := w.attempt(c)
		emit(&events.Event{V: 1, ID: w.id(), Type: events.TaskPending, TS: w.ts, App: app, Task: task, Kind: events.Map})
		emit(&events.Event{V: 1, ID: w.id(), Type: events.ContainerAllocated, TS: w.ts + 1, App: app, Task: task,
			Attempt: task + "_0", Container: "c" + strconv.Itoa(c), Node: nodeName(c % w.nodes)})
	}
	w.ts += 1000
}

// finishedPerApp tasks of every app have finished before the measurement.
const finishedPerApp = 5

func (w *workload) attempt(c int) (app, task string) {
	a := c / w.perApp
	return appName(a), "task_1_" + strconv.Itoa(a) + "_m_" + strconv.Itoa(c%w.perApp)
}

// next fills ev with the next steady-state event. Per second of event time
// there are Nodes heartbeats and Containers/3 progress reports.
func (w *workload) next(ev *events.Event) {
	perSecond := w.nodes + w.containers/3
	k := w.i % perSecond
	if k == 0 && w.i > 0 {
		w.ts += 1000
	}
	at := w.ts + int64(k)*1000/int64(perSecond)
	*ev = events.Event{V: 1, ID: w.id(), TS: at}
	if k < w.nodes {
		ev.Type, ev.Node = events.NodeHeartbeat, nodeName(k)
		ev.UsedVCores, ev.UsedMemoryMB = 10, 10240
		ev.Load1, ev.CPUUtil = 4+float64(k%7), 0.3+float64(k%5)/10
		if w.varyLoads {
			ev.Load1, ev.CPUUtil = bridgeLoad(uint64(w.i), 32)
		}
	} else {
		c := (k - w.nodes) * 3 % w.containers
		c += (w.i / perSecond) % 3
		c %= w.containers
		app, task := w.attempt(c)
		round := float64(w.i/perSecond) + 1
		ev.Type, ev.App, ev.Task, ev.Attempt = events.TaskProgress, app, task, task+"_0"
		// Most tasks progress steadily; every 97th is a straggler.
		rate := 0.02
		if c%97 == 0 {
			rate = 0.004
		}
		ev.Progress = min(0.99, rate*round*(1+float64(c%11)/10))
		ev.Phase = events.PhaseMap
	}
	if w.yarnIDs {
		w.yarnify(ev)
	}
	w.i++
}

// yarnCluster is the cluster timestamp of the YARN-style ids.
const yarnCluster = "_1763719200000_"

// yarnify renames ev's ids from the default stream's to YARN's (app
// application_<cluster>_0001, task task_<cluster>_0001_m_000007, attempt
// attempt_<cluster>_0001_m_000007_0, container
// container_e01_<cluster>_0001_01_000009) and the bridge's event ids
// (yb-<ts>-<n>). The default stream's strings are made as before, so its
// allocations (and what the tiny allocator packs together) do not change.
func (w *workload) yarnify(ev *events.Event) {
	if ev.TS > w.idTS { // the bridge's poll time: the newest event time
		w.idTS, w.idSeq = ev.TS, 0
	}
	w.idSeq++
	ev.ID = "yb-" + strconv.FormatInt(w.idTS, 10) + "-" + strconv.FormatUint(w.idSeq, 10)
	if ev.App != "" {
		a, _ := strconv.Atoi(strings.TrimPrefix(ev.App, "application_1_"))
		ev.App = "application" + yarnCluster + zeroPad(a+1, 4)
	}
	if ev.Task != "" {
		// task_1_<app>_m_<i>, or _m_f<i> for a finished one (after the running ones).
		rest := strings.TrimPrefix(ev.Task, "task_1_")
		app, i, _ := strings.Cut(rest, "_m_")
		a, _ := strconv.Atoi(app)
		k, _ := strconv.Atoi(strings.TrimPrefix(i, "f"))
		if strings.HasPrefix(i, "f") {
			k += w.perApp
		}
		suffix := zeroPad(a+1, 4) + "_m_" + zeroPad(k, 6)
		ev.Task = "task" + yarnCluster + suffix
		if ev.Attempt != "" {
			ev.Attempt = "attempt" + yarnCluster + suffix + "_0"
		}
		if ev.Container != "" {
			ev.Container = "container_e01" + yarnCluster + zeroPad(a+1, 4) + "_01_" + zeroPad(k+2, 6)
		}
	}
}

// zeroPad is n in decimal with leading zeros to at least width digits.
func zeroPad(n, width int) string {
	s := strconv.Itoa(n)
	for len(s) < width {
		s = "0" + s
	}
	return s
}

// bridgeLoad is a heartbeat's load as the bridge reports it (yarnclient's
// heartbeat): busy vcores from YARN's nodeCPUUsage, a Java float that
// reaches the sidecar as its shortest decimal, and their share of vcores.
// The value is a hash of i, so every heartbeat has another.
func bridgeLoad(i uint64, vcores int) (load1, cpuUtil float64) {
	h := (i + 1) * 0x9e3779b97f4a7c15
	h ^= h >> 29
	busy := float32(float64(h>>11) / (1 << 53) * float64(vcores))
	load1, err := strconv.ParseFloat(strconv.FormatFloat(float64(busy), 'g', -1, 32), 64)
	if err != nil {
		panic(err) // a float's own text always parses
	}
	return load1, math.Min(1, load1/float64(vcores))
}

func buildStack(stack string, store policy.ProfileStore, log zerolog.Logger) (*policy.Stack, error) {
	st, err := plugins.NewRegistry().Build(context.Background(), stack, policy.Handle{Profiles: store, Log: log, Seed: 1})
	if err != nil {
		return nil, fmt.Errorf("bench stack: %w", err)
	}
	return st, nil
}

// Run measures the engine, the Kafka path and hint latency, and reads
// the process's peak RSS.
func Run(ctx context.Context, o Options) (Result, error) {
	res := Result{V: 1, Nodes: o.Nodes, Containers: o.Containers, Stack: o.Stack}
	if os.Getenv("GOMEMLIMIT") == "" {
		res.MemoryHeadroomMB = max(0, o.MemoryHeadroomMB)
	}
	store := profiles.NewMemory()
	defer store.Close()

	// 1. Engine in process, under the sidecar's soft limit.
	stopLimit := memlimit.Start(memlimit.Headroom(o.MemoryHeadroomMB))
	stack, err := buildStack(o.Stack, store, o.Log)
	if err != nil {
		stopLimit()
		return res, err
	}
	w, eng := setupEngine(ctx, o, stack)
	spent, cpu, thread := applySteady(ctx, w, eng, o.EngineEvents)
	stopLimit()
	if ctx.Err() != nil {
		return res, ctx.Err()
	}
	res.EngineEventsPerS = float64(o.EngineEvents) / spent.Seconds()
	res.EngineEventsPerCPUS = perCPU(o.EngineEvents, cpu)
	res.EngineEventsPerThreadCPUS = perCPU(o.EngineEvents, thread)
	// RSS at the benchmark's size: state, policies and the engine's working
	// set, before the Kafka measurements add their buffers.
	res.RSSMB = peakRSSMB()
	eng = nil
	runtime.GC()

	// 2. Hint latency at the offered rate, and the RSS meanwhile. Before the
	// Kafka measurements: the embedded broker's heap (the topic's records,
	// 320-380 MB) grew the runtime's metadata by about 2 MB and paged in the
	// broker's code, which the sidecar's RSS figure then carried.
	lat, offered, hints, rss, err := benchLatency(ctx, o)
	if err != nil {
		return res, err
	}
	res.RSSOfferedMB = rss
	res.OfferedPerS, res.AchievedOfferPerS, res.Hints = float64(o.OfferedRate), offered, len(lat)
	if len(lat) > 0 {
		slices.Sort(lat)
		res.HintP50MS = float64(lat[len(lat)/2].Microseconds()) / 1000
		res.HintP99MS = float64(lat[min(len(lat)-1, len(lat)*99/100)].Microseconds()) / 1000
		res.HintP999MS = float64(lat[min(len(lat)-1, len(lat)*999/1000)].Microseconds()) / 1000
	}
	res.Hints = hints
	// The Kafka phase starts from a collected heap, as it did after the
	// engine phase: the latency phase's state is garbage now.
	runtime.GC()

	// 3. Kafka: the same messages read by a bare sarama consumer and by the
	// sidecar end to end.
	k, err := benchKafka(ctx, o)
	if err != nil {
		return res, err
	}
	res.RawConsumePerS, res.E2EEventsPerS = k.raw, k.e2e
	res.RawConsumePerCPUS, res.E2EEventsPerCPUS = k.rawCPU, k.e2eCPU
	res.E2ECheckpoints = k.checkpoints
	res.DecodeEventsPerS, res.DecodeEventsPerCPUS = k.decode, k.decodeCPU
	res.E2EToRaw, res.E2EToRawCPU = ratio(k.e2e, k.raw), ratio(k.e2eCPU, k.rawCPU)
	res.DecodeToRaw, res.DecodeToRawCPU = ratio(k.decode, k.raw), ratio(k.decodeCPU, k.rawCPU)
	res.EngineToRaw, res.EngineToRawCPU = ratio(res.EngineEventsPerS, k.raw), ratio(res.EngineEventsPerCPUS, k.rawCPU)

	return res, nil
}

// setupEngine builds the cluster in a fresh engine.
func setupEngine(ctx context.Context, o Options, stack *policy.Stack) (*workload, *engine.Engine) {
	return setupWorkload(ctx, o, stack, newWorkload(o.Nodes, o.Containers))
}

// setupWorkload builds w's cluster in a fresh engine.
func setupWorkload(ctx context.Context, o Options, stack *policy.Stack, w *workload) (*workload, *engine.Engine) {
	eng := engine.New(stack, engine.Options{Log: o.Log})
	w.setup(func(ev *events.Event) { eng.Apply(ctx, ev) })
	return w, eng
}

// applySteady applies n steady-state events and returns the time spent in
// Apply only (generating the events is not timed): wall clock, CPU of the
// process (GC workers included), and CPU of the applying thread alone
// (Apply and the GC assists it pays; 0 where the OS does not tell).
func applySteady(ctx context.Context, w *workload, eng *engine.Engine, n int) (spent, cpu, thread time.Duration) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	// 1,024 events (640 KB) per timed batch: 20,000, as before, held 12.5 MB
	// of harness in the heap whose peak RSS is the sidecar's figure.
	batch := make([]events.Event, min(n, 1024))
	for done := 0; done < n && ctx.Err() == nil; {
		k := min(len(batch), n-done)
		for i := range k {
			w.next(&batch[i])
		}
		start, c0, t0 := time.Now(), cpuTime(), threadCPUTime()
		for i := range k {
			eng.Apply(ctx, &batch[i])
		}
		spent += time.Since(start)
		cpu += cpuTime() - c0
		thread += threadCPUTime() - t0
		done += k
	}
	return spent, cpu, thread
}

// steadyLog encodes w's next n steady-state events as JSONL.
func steadyLog(w *workload, n int) ([]byte, int) {
	var b bytes.Buffer
	count := 0
	var ev events.Event
	for range n {
		w.next(&ev)
		enc, _ := events.Encode(&ev)
		b.Write(enc)
		b.WriteByte('\n')
		count++
	}
	return b.Bytes(), count
}

type kafkaRates struct {
	raw, e2e, rawCPU, e2eCPU float64
	decode, decodeCPU        float64
	checkpoints              int
}

// benchDecode decodes every line of log (the record values the Kafka
// measurements read) into one reused event with the consumer's decoder, in
// one goroutine: the decode stage alone, without broker or sarama. It
// returns messages per second and per CPU-second.
func benchDecode(ctx context.Context, log []byte) (rate, perCPUS float64, err error) {
	var (
		dec   events.MessageDecoder
		ev    events.Event
		n     int
		start = time.Now()
		c0    = cpuTime()
	)
	pprof.Do(ctx, pprof.Labels("bench", "decode"), func(context.Context) {
		for rest := log; len(rest) > 0 && err == nil; n++ {
			line, tail, _ := bytes.Cut(rest, []byte{'\n'})
			rest = tail
			if derr := dec.DecodeInto(line, &ev); derr != nil {
				err = fmt.Errorf("bench decode message %d: %w", n, derr)
			}
		}
	})
	if err != nil {
		return 0, 0, err
	}
	return float64(n) / time.Since(start).Seconds(), perCPU(n, cpuTime()-c0), nil
}

func benchKafka(ctx context.Context, o Options) (r kafkaRates, err error) {
	const topic = "bench.events"
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(4, topic), kfake.SeedTopics(1, "bench.nodes", "bench.dlq", "bench.hints"))
	if err != nil {
		return r, fmt.Errorf("bench broker: %w", err)
	}
	defer c.Close()
	brokers := c.ListenAddrs()
	kc := kafka.Client{Brokers: brokers, Version: "3.9.0", ClientID: "bench"}

	// The sidecar starts from a checkpoint of the full-size cluster, as after
	// a restart, so the messages meet the state they would meet in
	// production; the topic holds the steady stream that follows.
	store := profiles.NewMemory()
	defer store.Close()
	stack, err := buildStack(o.Stack, store, o.Log)
	if err != nil {
		return r, err
	}
	w, eng := setupEngine(ctx, o, stack)
	ck := &sidecar.Checkpoint{V: 1, Cluster: eng.State().Checkpoint(), Engine: eng.Checkpoint()}
	eng = nil
	if err := (sidecar.ProfileCheckpoints{Store: store}).Save(ctx, ck); err != nil {
		return r, err
	}
	ck = nil
	runtime.GC()
	log, _ := steadyLog(w, o.KafkaEvents)
	prod, err := kafka.NewProducer(kc)
	if err != nil {
		return r, err
	}
	st, err := kafka.ProduceLog(ctx, prod, bytes.NewReader(log), kafka.ProduceOptions{Topic: topic, Batch: 2000})
	prod.Close()
	if err != nil {
		return r, err
	}
	total := st.Produced
	if r.decode, r.decodeCPU, err = benchDecode(ctx, log); err != nil {
		return r, err
	}

	// Bare sarama: a consumer group that only counts.
	cfg, err := kafka.SaramaConfig(kc)
	if err != nil {
		return r, err
	}
	g, err := sarama.NewConsumerGroup(brokers, "bench-raw", cfg)
	if err != nil {
		return r, fmt.Errorf("bench raw consumer: %w", err)
	}
	// Both rates are timed from the first message on, so joining the group
	// is not counted against either.
	counter := &countingHandler{want: total, done: make(chan struct{}), first: make(chan time.Time, 1)}
	rctx, cancel := context.WithCancel(ctx)
	rawCPU0 := cpuTime()
	pprof.Do(rctx, pprof.Labels("bench", "raw"), func(rctx context.Context) {
		go func() {
			for rctx.Err() == nil {
				_ = g.Consume(rctx, []string{topic}, counter)
			}
		}()
	})
	select {
	case <-counter.done:
	case <-time.After(2 * time.Minute):
	}
	var start time.Time
	select {
	case start = <-counter.first:
	default:
		start = time.Now()
	}
	r.raw = float64(counter.n.Load()) / time.Since(start).Seconds()
	if c := counter.firstCPU.Load(); c > 0 {
		rawCPU0 = time.Duration(c)
	}
	r.rawCPU = perCPU(int(counter.n.Load()), cpuTime()-rawCPU0)
	cancel()
	_ = g.Close()

	// The sidecar, end to end: decode, apply, policies, commit.
	ccfg, err := config.Load("", nil, nil)
	if err != nil {
		return r, err
	}
	dir, err := os.MkdirTemp("", "rmsidecar-bench")
	if err != nil {
		return r, err
	}
	defer os.RemoveAll(dir)
	ccfg.Kafka.Brokers, ccfg.Kafka.EventsTopic, ccfg.Kafka.NodeTopic = brokers, topic, "bench.nodes"
	ccfg.Kafka.DeadLetterTopic, ccfg.Kafka.HintsTopic, ccfg.Kafka.Instance = "bench.dlq", "bench.hints", "bench"
	ccfg.Kafka.Group = "bench-sidecar"
	ccfg.Policies.Stack = o.Stack
	ccfg.Actuators.Enabled = []string{"http"}
	ccfg.Actuators.Journal = dir + "/actuated.jsonl"
	ccfg.HTTP.Addr = ""
	ccfg.Engine.QueueSize = 16384
	// The sidecar runs under its soft limit from its start (loading the
	// checkpoint) on, as `rmsidecar run` does.
	defer memlimit.Start(memlimit.Headroom(o.MemoryHeadroomMB))()
	sc, err := sidecar.New(ctx, sidecar.Options{Config: ccfg, Profiles: store, Log: o.Log, DeterministicTicks: true})
	if err != nil {
		return r, err
	}
	sctx, stop := context.WithCancel(ctx)
	errc := make(chan error, 1)
	// Profile label bench=e2e (go tool pprof -tagfocus): every goroutine
	// the sidecar starts inherits it.
	pprof.Do(sctx, pprof.Labels("bench", "e2e"), func(sctx context.Context) {
		go func() { errc <- sc.Run(sctx) }()
	})
	deadline := time.Now().Add(2 * time.Minute)
	for sc.Loop().Applied() == 0 && time.Now().Before(deadline) && ctx.Err() == nil {
		time.Sleep(100 * time.Microsecond)
	}
	start, c0, ck0 := time.Now(), cpuTime(), sc.Loop().CheckpointsBegun()
	for sc.Loop().Applied()+sc.Loop().Rejected() < uint64(total) && time.Now().Before(deadline) && ctx.Err() == nil {
		time.Sleep(time.Millisecond)
	}
	n := int(sc.Loop().Applied() + sc.Loop().Rejected())
	r.e2e = float64(n) / time.Since(start).Seconds()
	r.e2eCPU = perCPU(n, cpuTime()-c0)
	r.checkpoints = int(sc.Loop().CheckpointsBegun() - ck0)
	stop()
	if err := <-errc; err != nil {
		return r, err
	}
	return r, nil
}

type countingHandler struct {
	n        atomic.Int64
	want     int
	once     sync.Once
	done     chan struct{}
	first    chan time.Time
	firstCPU atomic.Int64
}

func (*countingHandler) Setup(sarama.ConsumerGroupSession) error   { return nil }
func (*countingHandler) Cleanup(sarama.ConsumerGroupSession) error { return nil }
func (h *countingHandler) ConsumeClaim(s sarama.ConsumerGroupSession, c sarama.ConsumerGroupClaim) error {
	for m := range c.Messages() {
		s.MarkMessage(m, "")
		n := h.n.Add(1)
		if n == 1 {
			h.firstCPU.Store(int64(cpuTime()))
			h.first <- time.Now()
		}
		if int(n) >= h.want {
			h.once.Do(func() { close(h.done) })
		}
	}
	return nil
}

// benchLatency offers events at OfferedRate straight into a running loop
// (the Kafka hop is measured above) and records event-received -> hint
// latencies, and the peak RSS while it offers them (0 where VmHWM cannot
// be reset). It runs under the sidecar's soft limit.
func benchLatency(ctx context.Context, o Options) ([]time.Duration, float64, int, float64, error) {
	defer memlimit.Start(memlimit.Headroom(o.MemoryHeadroomMB))()
	store := profiles.NewMemory()
	defer store.Close()
	stack, err := buildStack(o.Stack, store, o.Log)
	if err != nil {
		return nil, 0, 0, 0, err
	}
	// The queue of `rmsidecar run` (engine.queue_size's default): 16,384
	// queued messages held 2.5 MB the sidecar does not have.
	ccfg, err := config.Load("", nil, nil)
	if err != nil {
		return nil, 0, 0, 0, err
	}
	queue := ccfg.Engine.QueueSize
	w, eng := setupEngine(ctx, o, stack)
	// The peak from here on is the sidecar's at the offered rate: the
	// earlier phases' freed pages go back to the OS first, then VmHWM
	// restarts from the current RSS.
	debug.FreeOSMemory()
	rssOK := resetPeakRSS() == nil
	mt := startMemTrace()
	var (
		mu   sync.Mutex
		lats []time.Duration
	)
	loop := sidecar.NewLoop(eng, sidecar.LoopOptions{QueueSize: queue, Metrics: sidecar.NewMetrics(), Log: o.Log,
		OnLatency: func(d time.Duration, n int) {
			mu.Lock()
			for range n {
				lats = append(lats, d)
			}
			mu.Unlock()
		}})
	lctx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- loop.Run(lctx) }()
	// The consumer decodes into recycled events (kafka.Release); a new one
	// per offered event made 55 of the phase's 73 MB/s of allocation the
	// harness's, and the soft limit's rate term grew the heap for it.
	evs := newEventRing(offerRing)
	// Offer in 1 ms slices of rate/1000 events, the way a fetch delivers batches.
	perMS := max(1, o.OfferedRate/1000)
	start := time.Now()
	sent := 0
	for time.Since(start) < o.LatencyFor && ctx.Err() == nil {
		due := start.Add(time.Duration(sent/perMS) * time.Millisecond)
		if d := time.Until(due); d > 0 {
			time.Sleep(d)
		}
		for range perMS {
			ev := evs.get(uint64(sent), loop.Applied())
			w.next(ev)
			if err := loop.Enqueue(ctx, kafka.Message{Event: ev, Received: time.Now()}); err != nil {
				stop()
				return nil, 0, 0, 0, err
			}
			sent++
		}
	}
	offered := float64(sent) / time.Since(start).Seconds()
	if _, err := loop.Sync(ctx, true); err != nil && !errors.Is(err, sidecar.ErrStopped) {
		stop()
		return nil, 0, 0, 0, err
	}
	var rss float64
	if rssOK {
		rss = peakRSSMB()
	}
	mt.finish(os.Stderr)
	stop()
	if err := <-done; err != nil {
		return nil, 0, 0, 0, err
	}
	mu.Lock()
	defer mu.Unlock()
	return lats, offered, len(lats), rss, nil
}

// offerRing is how many offered events benchLatency recycles: 10 ms at
// 100,000 events/s (576 KB); an event the loop has not applied yet when
// its slot comes round again is replaced by a new one.
const offerRing = 1024

// eventRing recycles the events offered to a loop once it has applied them.
type eventRing struct {
	evs []*events.Event
	seq []uint64 // seq[i]: the offer number of evs[i]
}

func newEventRing(n int) *eventRing {
	return &eventRing{evs: make([]*events.Event, n), seq: make([]uint64, n)}
}

// get returns the event to fill for offer number seq, given that the loop
// has applied the first applied offers (all of them valid events, in
// order): the slot's old event once the loop is done with it, else a new
// one. The loop's atomic count orders its last use before the reuse.
func (r *eventRing) get(seq, applied uint64) *events.Event {
	i := seq % uint64(len(r.evs))
	if r.evs[i] == nil || applied <= r.seq[i] {
		r.evs[i] = new(events.Event)
	}
	r.seq[i] = seq
	return r.evs[i]
}

// resetPeakRSS resets the process's VmHWM to its current RSS (Linux:
// "5" to /proc/self/clear_refs).
func resetPeakRSS() error {
	return os.WriteFile("/proc/self/clear_refs", []byte("5"), 0)
}

// procStatusMB reads /proc/self/status's kB fields, in MB.
func procStatusMB() map[string]float64 {
	out := map[string]float64{}
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return out
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		v, ok = strings.CutSuffix(strings.TrimSpace(v), "kB")
		if !ok {
			continue
		}
		if n, err := strconv.ParseFloat(strings.TrimSpace(v), 64); err == nil {
			out[k] = n / 1024
		}
	}
	return out
}

// peakRSSMB reads the process's peak resident set (VmHWM) on Linux; 0 elsewhere.
func peakRSSMB() float64 { return procStatusMB()["VmHWM"] }
