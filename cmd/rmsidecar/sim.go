package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync"

	"github.com/spf13/cobra"

	"github.com/rmsidecar/rmsidecar/config"
	"github.com/rmsidecar/rmsidecar/internal/memlimit"
	"github.com/rmsidecar/rmsidecar/policy"
	"github.com/rmsidecar/rmsidecar/sim"
	"github.com/rmsidecar/rmsidecar/sim/report"
)

// defaultMemLimitMiB is sim's soft memory limit unless --memory-limit or
// GOMEMLIMIT says otherwise (memlimit.Sim says what it saves on the
// FB-2010 day).
const defaultMemLimitMiB = 1024

type simOptions struct {
	scenario   string
	trace      string
	policies   string
	seed       uint64
	out        string
	emitEvents string
	nodes      int
	parallel   int
	quiet      bool
	seeds      int
	traceNodes int
	window     string
	limitJobs  int
	cpuProfile string
	memProfile string
	memLimit   int
	tasksOut   string
	args       []string // the command line, for results.json's meta
}

func newSimCmd(a *app) *cobra.Command {
	var o simOptions
	cmd := &cobra.Command{
		Use:   "sim (--scenario FILE.yaml | --trace swim:FILE | --trace rumen:FILE | --trace sls:FILE) [--policies STACKS]",
		Short: "Simulate a workload under one or more policy stacks and write a report",
		Long: `sim runs a deterministic discrete-event simulation of a YARN/MapReduce cluster
(docs/simulator.md) once per policy stack, with the same policy code the live
sidecar runs, and writes DIR/results.json plus DIR/report/ (table.txt, runs.csv,
jobs.csv, makespan.svg, jct_cdf.svg, slowdown_cdf.svg, timeline.svg,
heatmap.svg (node utilization over time), gantt.svg (a per-node task timeline
of the first stack, bounded), speculation.svg, index.html, and tasks.csv when
every stack ended at most 20000 task attempts; --tasks-out streams them for
any run). The table is also printed on stdout.

Interrupted (SIGINT, SIGTERM), sim still writes results.json and the report
for what finished: unfinished jobs are left out of the job metrics, results.json
meta says "partial": true with jobs_done / jobs_total (with --seeds, only the
seeds that finished are in the summary: seeds_done / seeds_total), a line on
stderr says so, and the exit status stays non-zero (1).

The workload is a scenario YAML (cluster, YARN settings, stragglers, jobs; see
scenarios/ and docs/contract.md) or a trace: swim:FILE (SWIM TSV; bytes
scaled by --nodes / --trace-nodes, 600 by default, as SWIM does; an optional
7th column, the input path label of SWIM's withInputPaths files, makes jobs
of one label read one shared dataset), rumen:FILE (Rumen job history) or
sls:FILE (Hadoop SLS job JSON). A trace runs on --nodes identical nodes
(default: 600 for swim; for rumen and sls the recorded hosts, with sls's
num.nodes).

Each policy reads its settings from the scenario's policy_args.<name>, else from
the --config file's policies.<name> (the way to configure a --trace run), else
its defaults (docs/policies.md).

The same scenario and --seed give byte-identical results.json. --seeds N runs
N seeds (in parallel) and adds a summary: every metric as mean ± 95% confidence
interval, and each stack's change against yarn (else the first stack) paired by
seed, marked * where the interval crosses 0 (report/seeds.txt, results.json
seed_stats). --emit-events
writes the first stack's events (events v1 JSONL), so a simulated run can be
replayed into the live sidecar.`,
		Example: `  rmsidecar sim --scenario scenarios/samr-sort.yaml --policies none,naive,late,yarn,samr --out out/samr-sort
  rmsidecar sim --trace swim:testdata/traces/SWIM_FB-2009_samples_24_times_1hr_0_first50jobs.tsv --nodes 50 --policies yarn
  rmsidecar sim --trace rumen:testdata/traces/rumen-2jobs2min.json --policies yarn --emit-events out/rumen.jsonl
  rmsidecar sim --trace sls:sim/trace/testdata/sls-4jobs.json --policies yarn,late
  rmsidecar sim --scenario scenarios/sepb-batch-5.yaml --policies late,late+sepb --seeds 10 --parallel 0`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			o.args = a.args
			return runSim(cmd, a, o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.scenario, "scenario", "", "scenario YAML file")
	f.StringVar(&o.trace, "trace", "", "trace as FORMAT:FILE, FORMAT swim, rumen or sls")
	f.StringVar(&o.policies, "policies", "", "comma list of policy stacks, one run each (default: config policies.stack)")
	f.Uint64Var(&o.seed, "seed", 0, "seed (default: the scenario's seed, 1 for traces)")
	f.StringVar(&o.out, "out", "out", "output directory for results.json and report/")
	f.StringVar(&o.emitEvents, "emit-events", "", "write the first stack's events to this JSONL file")
	f.IntVar(&o.nodes, "nodes", 0, "cluster size for --trace (default 600, the FB-2009 cluster, for swim; the recorded hosts for rumen and sls)")
	f.IntVar(&o.parallel, "parallel", 1, "stacks simulated at once; with --seeds, seeds at once (0: one per CPU); results do not depend on it")
	f.IntVar(&o.traceNodes, "trace-nodes", 0, "--trace swim: size of the cluster the trace was recorded on; bytes scale by --nodes / this (default 600, FB-2009; FB-2010 came from about 3000)")
	f.StringVar(&o.window, "window", "", "--trace: keep the jobs submitted in FROM:TO seconds of the trace (e.g. 0:3600; TO empty: to the end), shifted to start at 0")
	f.IntVar(&o.limitJobs, "limit-jobs", 0, "--trace: keep the first N jobs (after --window)")
	f.IntVar(&o.seeds, "seeds", 1, "simulate seeds SEED..SEED+N-1 and report every metric as mean ± 95% CI, changes vs the baseline (yarn, else the first stack) paired by seed")
	f.BoolVar(&o.quiet, "quiet", false, "no progress line and no table on stdout (progress: tasks done, rate and ETA on stderr; on a non-terminal a line every 5 s)")
	f.StringVar(&o.tasksOut, "tasks-out", "", "write the first stack's task attempts to this CSV file as they end (streamed)")
	f.StringVar(&o.cpuProfile, "cpuprofile", "", "write a CPU profile of the simulation to this file (go tool pprof)")
	f.IntVar(&o.memLimit, "memory-limit", defaultMemLimitMiB, "soft memory limit of the simulation in MiB, raised to 1.5 times the live heap when that is more, with the collector paced at GOGC 400 under it unless GOGC is set (0: none; GOMEMLIMIT in the environment takes precedence); results do not depend on it")
	f.StringVar(&o.memProfile, "memprofile", "", "write a heap profile of the simulation to this file (go tool pprof), taken at the run's peak live heap (sampled every 0.5 s)")
	cmd.MarkFlagsMutuallyExclusive("scenario", "trace")
	cmd.MarkFlagsOneRequired("scenario", "trace")
	return cmd
}

func runSim(cmd *cobra.Command, a *app, o simOptions) error {
	ctx := cmd.Context()
	defer memlimit.Start(memlimit.Sim(o.memLimit))()
	cfg, err := a.loadConfig()
	if err != nil {
		return err
	}
	log := a.logger(cfg)
	list := o.policies
	if list == "" {
		list = cfg.Policies.Stack
	}
	stacks, err := policy.ParseStacks(list)
	if err != nil {
		return badInput("--policies: %v", err)
	}

	reg := newRegistry()
	// Settings under the config's policies.<name> apply to the policies the
	// scenario's policy_args does not set (a --trace run has no scenario file).
	args := config.PolicyArgs(cfg.Policies.Settings)
	if _, err := reg.BuildStacks(context.Background(), stacks, policy.Handle{Log: log, Args: args}); err != nil {
		return badInput("--policies: %v", err)
	}

	var sc *sim.Scenario
	switch {
	case o.scenario != "":
		if o.nodes != 0 || o.traceNodes != 0 || o.window != "" || o.limitJobs != 0 {
			return badInput("--nodes, --trace-nodes, --window and --limit-jobs apply to --trace only; set them in %s (cluster, workload.trace)", o.scenario)
		}
		if sc, err = sim.LoadScenario(o.scenario); err != nil {
			return &inputError{err: err}
		}
	default:
		format, path, ok := strings.Cut(o.trace, ":")
		if !ok || (format != "swim" && format != "rumen" && format != "sls") || path == "" {
			return badInput("--trace %q: want swim:FILE, rumen:FILE or sls:FILE", o.trace)
		}
		seed := o.seed
		if seed == 0 {
			seed = 1
		}
		topts := sim.TraceOptions{Nodes: o.nodes, TraceNodes: o.traceNodes, LimitJobs: o.limitJobs}
		if o.window != "" {
			from, to, ok := strings.Cut(o.window, ":")
			f, err1 := strconv.ParseFloat(strings.TrimSpace(from), 64)
			t, err2 := strconv.ParseFloat(strings.TrimSpace(to), 64)
			if to == "" {
				t, err2 = 0, nil
			}
			if !ok || err1 != nil || err2 != nil || f < 0 || t < 0 || (t > 0 && t <= f) {
				return badInput("--window %q: want FROM:TO seconds of the trace, FROM < TO (TO empty: to the end)", o.window)
			}
			topts.FromS, topts.ToS = f, t
		}
		if sc, err = sim.ScenarioFromTraceOptions(format, path, topts, seed); err != nil {
			return &inputError{err: err}
		}
	}
	if o.seed != 0 {
		sc.Seed = o.seed
	}
	if !o.quiet {
		nodes := sc.Cluster.NodeCount()
		if tn, scale := traceScale(o, nodes); tn > 0 {
			fmt.Fprintf(a.io.err, "trace %s: %d jobs on %d nodes; recorded on %d nodes, bytes scaled by %.3g (--nodes / --trace-nodes)\n",
				o.trace, len(sc.Jobs), nodes, tn, scale)
		}
	}

	opts := sim.Options{Registry: reg, Log: log, Parallel: max(1, o.parallel), PolicyArgs: args}
	if o.emitEvents != "" {
		if err := os.MkdirAll(filepath.Dir(o.emitEvents), 0o755); err != nil {
			return fmt.Errorf("--emit-events: %w", err)
		}
		f, err := os.Create(o.emitEvents)
		if err != nil {
			return fmt.Errorf("--emit-events: %w", err)
		}
		defer f.Close()
		w := bufio.NewWriterSize(f, 1<<20)
		defer w.Flush()
		opts.Events = w
	}
	if o.tasksOut != "" {
		if err := os.MkdirAll(filepath.Dir(o.tasksOut), 0o755); err != nil {
			return fmt.Errorf("--tasks-out: %w", err)
		}
		f, err := os.Create(o.tasksOut)
		if err != nil {
			return fmt.Errorf("--tasks-out: %w", err)
		}
		defer f.Close()
		w := bufio.NewWriterSize(f, 1<<20)
		defer w.Flush()
		opts.Tasks = w
	}
	if o.seeds < 1 {
		return badInput("--seeds: must be >= 1, got %d", o.seeds)
	}
	prog := newSimProgress(a, o, len(sc.Jobs), len(stacks))
	if o.seeds > 1 {
		return runSeeds(ctx, a, o, sc, stacks, opts, prog)
	}
	opts.Progress = prog.callback(0)
	stopProfile, err := startCPUProfile(o.cpuProfile)
	if err != nil {
		return err
	}
	stopMem, err := startMemProfile(o.memProfile)
	if err != nil {
		stopProfile()
		return err
	}
	res, simErr := sim.Simulate(ctx, sc, stacks, opts)
	stopProfile()
	if err := stopMem(); err != nil {
		return err
	}
	prog.finish()
	partial := false
	if simErr != nil {
		if !interrupted(ctx, simErr) {
			return fmt.Errorf("simulate: %w", simErr)
		}
		partial = true // write what finished, then fail
	}
	res.Meta, err = simMeta(o, sc, stacks, []uint64{sc.Seed})
	if err != nil {
		return err
	}
	if partial {
		res.Meta.Partial = true
		res.Meta.JobsDone, res.Meta.JobsTotal = jobsDone(res), len(sc.Jobs)*len(stacks)
	}
	if err := report.Write(o.out, res); err != nil {
		return fmt.Errorf("--out %s: %w", o.out, err)
	}
	if !o.quiet {
		if err := report.WriteTable(a.io.out, res); err != nil {
			return err
		}
		fmt.Fprintf(a.io.out, "\nwrote %s and %s/\n", filepath.Join(o.out, report.ResultsFile), filepath.Join(o.out, report.ReportDir))
	}
	if partial {
		return partialError(o, res.Meta, ctx.Err())
	}
	return nil
}

// interrupted reports whether err is the run's context ending (SIGINT,
// SIGTERM), after which the results so far are written.
func interrupted(ctx context.Context, err error) bool {
	return ctx.Err() != nil && errors.Is(err, ctx.Err())
}

// jobsDone counts the finished jobs of res's runs (an interrupted run
// lists only those).
func jobsDone(res report.Results) int {
	n := 0
	for _, r := range res.Runs {
		n += len(r.Jobs)
	}
	return n
}

// partialError is the error an interrupted run ends with, after its
// partial results were written: the exit status stays non-zero.
func partialError(o simOptions, m *report.Meta, cause error) error {
	what := fmt.Sprintf("%d of %d jobs", m.JobsDone, m.JobsTotal)
	if m.SeedsTotal > 0 {
		what += fmt.Sprintf(", %d of %d seeds", m.SeedsDone, m.SeedsTotal)
	}
	return fmt.Errorf("simulation interrupted: partial results (%s done) in %s and %s/: %w", what,
		filepath.Join(o.out, report.ResultsFile), filepath.Join(o.out, report.ReportDir), cause)
}

// startCPUProfile starts a CPU profile into path ("" : none) and returns
// the function that stops it.
func startCPUProfile(path string) (func(), error) {
	if path == "" {
		return func() {}, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("--cpuprofile: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("--cpuprofile: %w", err)
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}, nil
}

// runSeeds simulates the scenario with seeds sc.Seed .. sc.Seed+N-1, at most
// --parallel (default: the CPUs) at once, and reports every metric as mean ±
// 95 % CI with the change against the baseline paired by seed. The first
// seed's runs are results.json's runs (and its report), the summary is
// results.json's seed_stats and report/seeds.txt. Interrupted, it writes
// the summary over the seeds that finished (the runs of the first of them,
// else the first seed's partial runs) and fails.
func runSeeds(ctx context.Context, a *app, o simOptions, sc *sim.Scenario, stacks []string, opts sim.Options, prog *simProgress) error {
	workers := o.parallel
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	opts.Parallel = 1
	first := sc.Seed
	perSeed := make([]report.Results, o.seeds)
	errs := make([]error, o.seeds)
	started := make([]bool, o.seeds)
	sem := make(chan struct{}, workers)
	var wg sync.WaitGroup
	for i := range o.seeds {
		sem <- struct{}{}
		if ctx.Err() != nil {
			break // interrupted: start no more seeds
		}
		started[i] = true
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			c := *sc
			c.Seed = first + uint64(i)
			o := opts
			o.Progress = prog.callback(i)
			if i > 0 {
				o.Events, o.Tasks = nil, nil // --emit-events, --tasks-out: the first seed's first stack
				o.NoDetail = true            // the report draws one seed's detail
			}
			perSeed[i], errs[i] = sim.Simulate(ctx, &c, stacks, o)
			prog.seedDone()
		}()
	}
	wg.Wait()
	prog.finish()
	var done []report.Results
	partial := false
	jobs := 0
	for i, err := range errs {
		switch {
		case !started[i]:
			partial = true
		case err == nil:
			done = append(done, perSeed[i])
			jobs += jobsDone(perSeed[i])
		case interrupted(ctx, err):
			partial = true
			jobs += jobsDone(perSeed[i])
		default:
			return fmt.Errorf("simulate seed %d: %w", first+uint64(i), err)
		}
	}
	res := perSeed[0]
	if partial && len(done) > 0 {
		res = done[0] // the first seed that finished
	}
	var stats *report.SeedStats
	if len(done) > 1 || (len(done) == 1 && !partial) {
		st := report.Summarize(done) // (an interval needs two seeds)
		stats = &st
	}
	if res.V == 0 { // the first seed never started
		res = report.Results{V: report.Version, Scenario: sc.Name, Seed: first}
	}
	res.SeedStats = stats
	seeds := []uint64{res.Seed}
	if stats != nil {
		seeds = stats.Seeds
	}
	meta, err := simMeta(o, sc, stacks, seeds)
	if err != nil {
		return err
	}
	if partial {
		meta.Partial = true
		meta.JobsDone, meta.JobsTotal = jobs, len(sc.Jobs)*len(stacks)*o.seeds
		meta.SeedsDone, meta.SeedsTotal = len(done), o.seeds
	}
	res.Meta = meta
	if err := report.Write(o.out, res); err != nil {
		return fmt.Errorf("--out %s: %w", o.out, err)
	}
	var table bytes.Buffer
	if stats != nil {
		if err := report.WriteSeedTable(&table, res.Scenario, *stats); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(o.out, report.ReportDir, "seeds.txt"), table.Bytes(), 0o644); err != nil {
			return fmt.Errorf("--out %s: %w", o.out, err)
		}
	}
	if !o.quiet {
		if _, err := a.io.out.Write(table.Bytes()); err != nil {
			return err
		}
		fmt.Fprintf(a.io.out, "\nwrote %s (seed_stats; runs of seed %d) and %s/\n", filepath.Join(o.out, report.ResultsFile), res.Seed,
			filepath.Join(o.out, report.ReportDir))
	}
	if partial {
		return partialError(o, meta, ctx.Err())
	}
	return nil
}

// simProgress feeds the progress line from the runs' sim.Progress calls
// (several stacks and seeds at once): tasks done of all runs' tasks, with
// the jobs done, the simulated time (one run) or the seeds done beside it.
type simProgress struct {
	mu        sync.Mutex
	bar       *report.Progress // nil with --quiet
	runs      int              // stacks x seeds
	seeds     int
	seedsDone int
	last      map[[2]string]sim.Progress // by seed and stack
	latest    sim.Progress               // the last one reported, for its totals
	hook      func(sim.Progress)
}

// simProgressHook, when set (tests), sees every sim.Progress call, also
// with --quiet; a test cancels the run's context from it.
var simProgressHook func(sim.Progress)

func newSimProgress(a *app, o simOptions, jobs, stacks int) *simProgress {
	p := &simProgress{runs: stacks * o.seeds, seeds: o.seeds, last: map[[2]string]sim.Progress{}, hook: simProgressHook}
	if !o.quiet {
		p.bar = report.NewProgress(a.io.err, 0, isTerminal(a.io.err)).WithUnit("tasks")
	}
	return p
}

// callback is the sim.Progress of seed index seed (nil when nothing
// listens).
func (p *simProgress) callback(seed int) func(sim.Progress) {
	if p.bar == nil && p.hook == nil {
		return nil
	}
	key := strconv.Itoa(seed)
	return func(pr sim.Progress) {
		if p.hook != nil {
			p.hook(pr)
		}
		if p.bar == nil {
			return
		}
		p.mu.Lock()
		p.last[[2]string{key, pr.Stack}] = pr
		p.latest = pr
		p.mu.Unlock()
		p.render()
	}
}

// render draws the line from every run's latest progress.
func (p *simProgress) render() {
	if p.bar == nil {
		return
	}
	p.mu.Lock()
	pr := p.latest
	var tasks, jobs int
	for _, x := range p.last {
		tasks += x.TasksDone
		jobs += x.JobsDone
	}
	note := fmt.Sprintf("%s/%s jobs", strconv.Itoa(jobs), strconv.Itoa(pr.Jobs*p.runs))
	if p.runs == 1 {
		note += ", sim " + simDuration(pr.SimS)
	}
	if p.seeds > 1 {
		note += fmt.Sprintf(", %d/%d seeds", p.seedsDone, p.seeds)
	}
	p.mu.Unlock()
	p.bar.Update(tasks, pr.Tasks*p.runs, note)
}

// seedDone counts a finished seed and redraws the line, so its last state
// says every seed that finished.
func (p *simProgress) seedDone() {
	p.mu.Lock()
	p.seedsDone++
	p.mu.Unlock()
	p.render()
}

func (p *simProgress) finish() {
	if p.bar != nil {
		p.bar.Finish()
	}
}

// simDuration is simulated seconds as 42s, 12m05s or 3h12m.
func simDuration(s float64) string {
	switch t := int(s); {
	case t < 60:
		return fmt.Sprintf("%ds", t)
	case t < 3600:
		return fmt.Sprintf("%dm%02ds", t/60, t%60)
	default:
		return fmt.Sprintf("%dh%02dm", t/3600, t/60%60)
	}
}

// simMeta is results.json's provenance: version, arguments, the input's
// digest, cluster size and seeds.
func simMeta(o simOptions, sc *sim.Scenario, stacks []string, seeds []uint64) (*report.Meta, error) {
	input := o.scenario
	if input == "" {
		_, input, _ = strings.Cut(o.trace, ":")
	}
	data, err := os.ReadFile(input)
	if err != nil {
		return nil, fmt.Errorf("digest of %s: %w", input, err)
	}
	nodes := sc.Cluster.NodeCount()
	sum := sha256.Sum256(data)
	m := &report.Meta{Version: buildVersion(), Args: resultArgs(o.args), Input: input, Digest: hex.EncodeToString(sum[:]),
		Nodes: nodes, Seeds: seeds, Stacks: stacks}
	m.TraceNodes, m.TraceScale = traceScale(o, nodes)
	return m, nil
}

// traceScale is the origin cluster size of a --trace swim run and the
// factor its bytes are scaled by (0, 0 for scenarios and Rumen traces).
func traceScale(o simOptions, nodes int) (traceNodes int, scale float64) {
	if !strings.HasPrefix(o.trace, "swim:") || nodes == 0 {
		return 0, 0
	}
	traceNodes = o.traceNodes
	if traceNodes == 0 {
		traceNodes = sim.DefaultTraceNodes
	}
	return traceNodes, float64(nodes) / float64(traceNodes)
}

// resultArgs drops the flags that do not change the results (where they are
// written, how fast, how chatty), so the same run gives the same file.
func resultArgs(args []string) []string {
	var out []string
	for i := 0; i < len(args); i++ {
		name, _, hasValue := strings.Cut(args[i], "=")
		switch name {
		case "--out", "--parallel", "--emit-events", "--cpuprofile", "--memprofile", "--memory-limit", "--tasks-out":
			if !hasValue {
				i++ // the value is the next argument
			}
			continue
		case "--quiet":
			continue
		}
		out = append(out, args[i])
	}
	return out
}
