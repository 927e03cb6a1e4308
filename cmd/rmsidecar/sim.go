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
	"github.com/rmsidecar/rmsidecar/policy"
	"github.com/rmsidecar/rmsidecar/sim"
	"github.com/rmsidecar/rmsidecar/sim/report"
)

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
	tasksOut   string
	args       []string // the command line, for results.json's meta
}

func newSimCmd(a *app) *cobra.Command {
	var o simOptions
	cmd := &cobra.Command{
		Use:   "sim (--scenario FILE.yaml | --trace swim:FILE | --trace rumen:FILE) [--policies STACKS]",
		Short: "Simulate a workload under one or more policy stacks and write a report",
		Long: `sim runs a deterministic discrete-event simulation of a YARN/MapReduce cluster
(docs/simulator.md) once per policy stack, with the same policy code the live
sidecar runs, and writes DIR/results.json plus DIR/report/ (table.txt, runs.csv,
jobs.csv, makespan.svg, jct_cdf.svg, timeline.svg, index.html). The table is
also printed on stdout.

The workload is a scenario YAML (cluster, YARN settings, stragglers, jobs; see
scenarios/ and docs/contract.md) or a trace: swim:FILE (SWIM TSV; bytes
scaled by --nodes / --trace-nodes, 600 by default, as SWIM does) or rumen:FILE (Rumen job history). A
trace runs on --nodes identical nodes (default 600).

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
  rmsidecar sim --scenario scenarios/sepb-batch-5.yaml --policies late,late+sepb --seeds 10 --parallel 0`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			o.args = a.args
			return runSim(cmd, a, o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.scenario, "scenario", "", "scenario YAML file")
	f.StringVar(&o.trace, "trace", "", "trace as FORMAT:FILE, FORMAT swim or rumen")
	f.StringVar(&o.policies, "policies", "", "comma list of policy stacks, one run each (default: config policies.stack)")
	f.Uint64Var(&o.seed, "seed", 0, "seed (default: the scenario's seed, 1 for traces)")
	f.StringVar(&o.out, "out", "out", "output directory for results.json and report/")
	f.StringVar(&o.emitEvents, "emit-events", "", "write the first stack's events to this JSONL file")
	f.IntVar(&o.nodes, "nodes", 0, "cluster size for --trace (default 600, the FB-2009 cluster)")
	f.IntVar(&o.parallel, "parallel", 1, "stacks simulated at once; with --seeds, seeds at once (0: one per CPU); results do not depend on it")
	f.IntVar(&o.traceNodes, "trace-nodes", 0, "--trace swim: size of the cluster the trace was recorded on; bytes scale by --nodes / this (default 600, FB-2009; FB-2010 came from about 3000)")
	f.StringVar(&o.window, "window", "", "--trace: keep the jobs submitted in FROM:TO seconds of the trace (e.g. 0:3600; TO empty: to the end), shifted to start at 0")
	f.IntVar(&o.limitJobs, "limit-jobs", 0, "--trace: keep the first N jobs (after --window)")
	f.IntVar(&o.seeds, "seeds", 1, "simulate seeds SEED..SEED+N-1 and report every metric as mean ± 95% CI, changes vs the baseline (yarn, else the first stack) paired by seed")
	f.BoolVar(&o.quiet, "quiet", false, "no progress bar and no table on stdout")
	f.StringVar(&o.tasksOut, "tasks-out", "", "write the first stack's task attempts to this CSV file as they end (streamed)")
	f.StringVar(&o.cpuProfile, "cpuprofile", "", "write a CPU profile of the simulation to this file (go tool pprof)")
	cmd.MarkFlagsMutuallyExclusive("scenario", "trace")
	cmd.MarkFlagsOneRequired("scenario", "trace")
	return cmd
}

func runSim(cmd *cobra.Command, a *app, o simOptions) error {
	ctx := cmd.Context()
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
		if !ok || (format != "swim" && format != "rumen") || path == "" {
			return badInput("--trace %q: want swim:FILE or rumen:FILE", o.trace)
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
	var bar *report.Progress
	if !o.quiet {
		total := len(sc.Jobs) * len(stacks)
		bar = report.NewProgress(a.io.err, total, isTerminal(a.io.err))
		var mu sync.Mutex
		done := map[string]int{}
		opts.Progress = func(p sim.Progress) {
			mu.Lock()
			done[p.Stack] = p.JobsDone
			sum := 0
			for _, n := range done {
				sum += n
			}
			mu.Unlock()
			bar.Set(sum)
		}
	}
	if o.seeds < 1 {
		return badInput("--seeds: must be >= 1, got %d", o.seeds)
	}
	if o.seeds > 1 {
		if bar != nil {
			bar.Finish() // the seeds' own progress line follows
		}
		return runSeeds(ctx, a, o, sc, stacks, opts)
	}
	stopProfile, err := startCPUProfile(o.cpuProfile)
	if err != nil {
		return err
	}
	res, err := sim.Simulate(ctx, sc, stacks, opts)
	stopProfile()
	if bar != nil {
		bar.Finish()
	}
	if err != nil {
		if errors.Is(err, ctx.Err()) {
			return fmt.Errorf("simulation interrupted: %w", err)
		}
		return fmt.Errorf("simulate: %w", err)
	}
	res.Meta, err = simMeta(o, sc, stacks, []uint64{sc.Seed})
	if err != nil {
		return err
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
	return nil
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
// results.json's seed_stats and report/seeds.txt.
func runSeeds(ctx context.Context, a *app, o simOptions, sc *sim.Scenario, stacks []string, opts sim.Options) error {
	workers := o.parallel
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	opts.Parallel, opts.Progress = 1, nil
	first := sc.Seed
	perSeed := make([]report.Results, o.seeds)
	errs := make([]error, o.seeds)
	var bar *report.Progress
	if !o.quiet {
		bar = report.NewProgress(a.io.err, o.seeds, isTerminal(a.io.err)).WithUnit("seeds")
	}
	sem := make(chan struct{}, workers)
	var wg sync.WaitGroup
	for i := range o.seeds {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			c := *sc
			c.Seed = first + uint64(i)
			o := opts
			if i > 0 {
				o.Events = nil // --emit-events: the first seed's first stack
			}
			perSeed[i], errs[i] = sim.Simulate(ctx, &c, stacks, o)
			if bar != nil {
				bar.Add(1)
			}
		}()
	}
	wg.Wait()
	if bar != nil {
		bar.Finish()
	}
	for i, err := range errs {
		if err != nil {
			if errors.Is(err, ctx.Err()) {
				return fmt.Errorf("simulation interrupted: %w", err)
			}
			return fmt.Errorf("simulate seed %d: %w", first+uint64(i), err)
		}
	}
	stats := report.Summarize(perSeed)
	res := perSeed[0]
	res.SeedStats = &stats
	meta, err := simMeta(o, sc, stacks, stats.Seeds)
	if err != nil {
		return err
	}
	res.Meta = meta
	if err := report.Write(o.out, res); err != nil {
		return fmt.Errorf("--out %s: %w", o.out, err)
	}
	var table bytes.Buffer
	if err := report.WriteSeedTable(&table, res.Scenario, stats); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(o.out, report.ReportDir, "seeds.txt"), table.Bytes(), 0o644); err != nil {
		return fmt.Errorf("--out %s: %w", o.out, err)
	}
	if !o.quiet {
		if _, err := a.io.out.Write(table.Bytes()); err != nil {
			return err
		}
		fmt.Fprintf(a.io.out, "\nwrote %s (seed_stats; runs of seed %d) and %s/\n", filepath.Join(o.out, report.ResultsFile), first,
			filepath.Join(o.out, report.ReportDir))
	}
	return nil
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
		case "--out", "--parallel", "--emit-events", "--cpuprofile", "--tasks-out":
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
