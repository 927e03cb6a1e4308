// Command paper-tmar runs the TMaR experiments of this project in the
// simulator and prints each claim of the paper (Jeddi and Fazlossadat, "TMaR:
// a two-stage MapReduce scheduler for heterogeneous environments", J. Big Data
// 2022, §"Results analysis" and Table 5) beside the number measured here.
//
//	go run ./scripts/paper-tmar [-seeds N] [-scenario FILE] [-json FILE]
//
// The base scenario (scenarios/tmar-flat-10.yaml) is the paper's
// heterogeneous setup at 10 hosts, every host on one non-blocking Gigabit
// Ethernet switch as the paper says (scenarios/tmar-hetero-10.yaml is the same
// with 1 Gbps rack uplinks, where the shuffle is bound by the uplinks); this program scales it to 20 and 30 hosts
// and runs the paper's four jobs (WordCount, Sort, Grep, K-means) under stock
// YARN, tmar and tmar-power. The Map_Matrix and Reduce_Matrix of the paper's
// preprocessing stage are seeded from the scenario's own task model (what a
// profiling run on the simulated cluster would measure), through policy_args.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/rs/zerolog"

	"go.yaml.in/yaml/v3"

	"github.com/rmsidecar/rmsidecar/sim"
	"github.com/rmsidecar/rmsidecar/sim/report"
	"github.com/rmsidecar/rmsidecar/sim/trace"
)

// jobKind is one of the paper's benchmarks (its Tables 3 and 4).
type jobKind struct {
	name         string
	mapSPerBlock float64 // CPU-intensive maps run long
	reduceSPerGB float64
	selectivity  float64 // map selectivity MS: 2 shuffle-heavy, 0.5 shuffle-light
	claim        float64 // paper's makespan change vs Hadoop-stock (%), 0 if none given
}

var kinds = []jobKind{
	{"wordcount", 40, 20, 2.0, -29},
	{"sort", 15, 40, 1.0, -36},
	{"grep", 15, 20, 0.5, -14},
	{"kmeans", 40, 20, 0.5, 0},
}

// sizes are hosts and input GB (160 to 2,800 maps of 128 MB).
var sizes = []struct {
	hosts   int
	inputGB float64
}{{10, 20}, {20, 100}, {30, 350}}

var stacks = []string{"yarn", "tmar", "tmar-power"}

func main() {
	if err := run(context.Background(), os.Args[1:], os.Stdout); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return
		}
		fmt.Fprintln(os.Stderr, "paper-tmar:", err)
		os.Exit(1)
	}
}

type cell struct {
	Kind     string  `json:"kind"`
	Hosts    int     `json:"hosts"`
	Maps     int     `json:"maps"`
	Stack    string  `json:"stack"`
	Makespan float64 `json:"makespan_s"`
	XRackGB  float64 `json:"cross_rack_gb"`
	Energy   float64 `json:"energy_kwh"`
	// PlanS is what TMaR's reduce-stage plan predicted for the job's
	// completion when it bound the partitions (tmar stacks only).
	PlanS float64      `json:"plan_s,omitempty"`
	Runs  []report.Run `json:"-"`
	// Per seed (1..N), for the claims' confidence intervals.
	SeedMakespan []float64 `json:"seed_makespan_s"`
	SeedXRackGB  []float64 `json:"seed_cross_rack_gb"`
	SeedEnergy   []float64 `json:"seed_energy_kwh"`
	SeedPlanS    []float64 `json:"seed_plan_s,omitempty"`
}

func run(ctx context.Context, argv []string, w io.Writer) error {
	fs := flag.NewFlagSet("paper-tmar", flag.ContinueOnError)
	base := fs.String("scenario", "scenarios/tmar-flat-10.yaml", "base scenario (10 hosts); scenarios/tmar-hetero-10.yaml has 1 Gbps rack uplinks")
	seeds := fs.Int("seeds", 3, "seeds 1..N per configuration; figures are means")
	jsonOut := fs.String("json", "", "also write every cell as JSON to this file")
	only := fs.String("kinds", "", "comma list of jobs to run (default: all)")
	hostsOnly := fs.Int("hosts", 0, "run only this cluster size (10, 20 or 30; default: all)")
	powerOnly := fs.Bool("power-only", false, "run only the Table 5 energy comparison (tmar vs tmar-power)")
	traceDir := fs.String("trace", "", "write each run's events (JSONL) and debug-level policy log here")
	var opt setup
	fs.BoolVar(&opt.spawn, "spawn", false, "run PRB's N_R = ceil(size / R_split) reducers per partition, as the paper's executor does\n(the simulator's yarn.spawn_reducers and tmar's spawn_reducers); default: one reducer per partition, as stock\nMapReduce on the unmodified cluster the sidecar drives")
	fs.Float64Var(&opt.skew, "skew", 0.3, "partition skew of every job (Zipf exponent; 0: equal partitions)")
	fs.StringVar(&opt.tmarArgs, "tmar-args", "", "YAML mapping merged into the policy_args of tmar and tmar-power (e.g. 'r_split_bytes: 536870912')")
	fs.StringVar(&opt.powerArgs, "power-args", "", "YAML mapping merged into tmar-power's policy_args only (e.g. 'tie_s: 5')")
	if err := fs.Parse(argv); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q (see -h)", fs.Arg(0))
	}
	if *powerOnly {
		pcells, err := powerRuns(ctx, *base, *seeds, opt)
		if err != nil {
			return err
		}
		printPower(w, pcells)
		return nil
	}
	var cells []cell
	for _, k := range kinds {
		if *only != "" && !slices.Contains(strings.Split(*only, ","), k.name) {
			continue
		}
		for _, sz := range sizes {
			if *hostsOnly != 0 && sz.hosts != *hostsOnly {
				continue
			}
			for _, st := range stacks {
				c := cell{Kind: k.name, Hosts: sz.hosts, Stack: st}
				for seed := 1; seed <= *seeds; seed++ {
					sc, err := scenario(*base, k, sz.hosts, sz.inputGB, uint64(seed), opt)
					if err != nil {
						return err
					}
					opts := sim.Options{}
					if *traceDir != "" {
						closeTrace, err := traceTo(&opts, *traceDir, fmt.Sprintf("%s-%d-%s-seed%d", k.name, sz.hosts, st, seed))
						if err != nil {
							return err
						}
						defer closeTrace()
					}
					r, err := sim.Run(ctx, sc, st, opts)
					if err != nil {
						return fmt.Errorf("%s %d hosts %s: %w", k.name, sz.hosts, st, err)
					}
					c.Makespan += r.MakespanS / float64(*seeds)
					c.XRackGB += float64(r.CrossRackShuffleBytes) / 1e9 / float64(*seeds)
					c.Energy += r.EnergyKWh / float64(*seeds)
					c.PlanS += r.Extra["tmar_plan_jct_s"] / float64(*seeds)
					c.Maps = r.Jobs[0].Maps
					c.SeedMakespan = append(c.SeedMakespan, r.MakespanS)
					c.SeedXRackGB = append(c.SeedXRackGB, float64(r.CrossRackShuffleBytes)/1e9)
					c.SeedEnergy = append(c.SeedEnergy, r.EnergyKWh)
					c.SeedPlanS = append(c.SeedPlanS, r.Extra["tmar_plan_jct_s"])
				}
				cells = append(cells, c)
			}
		}
	}
	printTable(w, cells)
	if *only != "" || *hostsOnly != 0 {
		return nil // the claims average over every job and size
	}
	printClaims(w, cells)
	pcells, err := powerRuns(ctx, *base, *seeds, opt)
	if err != nil {
		return err
	}
	printPower(w, pcells)
	if *jsonOut != "" {
		b, _ := json.MarshalIndent(cells, "", "  ")
		if err := os.WriteFile(*jsonOut, b, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// traceTo points the run's event log and debug-level policy log at
// DIR/NAME.events.jsonl and DIR/NAME.log.jsonl (TMaR logs its plan there).
func traceTo(opts *sim.Options, dir, name string) (func(), error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("trace dir: %w", err)
	}
	ev, err := os.Create(filepath.Join(dir, name+".events.jsonl"))
	if err != nil {
		return nil, fmt.Errorf("trace: %w", err)
	}
	lg, err := os.Create(filepath.Join(dir, name+".log.jsonl"))
	if err != nil {
		ev.Close()
		return nil, fmt.Errorf("trace: %w", err)
	}
	opts.Events = ev
	opts.Log = zerolog.New(lg).Level(zerolog.DebugLevel)
	return func() { ev.Close(); lg.Close() }, nil
}

// setup holds the command's choices that shape every scenario.
type setup struct {
	spawn               bool    // PRB's executor: N_R reducers per partition
	skew                float64 // partition skew of the jobs
	tmarArgs, powerArgs string  // YAML merged into policy_args
}

// scenario scales the base to hosts and swaps in one job of kind k, with
// Map_Matrix / Reduce_Matrix seeds derived from the task model.
func scenario(path string, k jobKind, hosts int, inputGB float64, seed uint64, opt setup) (*sim.Scenario, error) {
	sc, err := sim.LoadScenario(path)
	if err != nil {
		return nil, err
	}
	base := 0
	for _, g := range sc.Cluster.Nodes {
		base += g.Count
	}
	if hosts%base != 0 {
		return nil, fmt.Errorf("%s has %d hosts; %d is not a multiple", path, base, hosts)
	}
	for i := range sc.Cluster.Nodes {
		sc.Cluster.Nodes[i].Count *= hosts / base
	}
	sc.Seed = seed
	sc.Name = fmt.Sprintf("tmar-%s-%d", k.name, hosts)
	blockMB := float64(sc.Cluster.HDFS.BlockMB)
	if blockMB == 0 {
		blockMB = 128
	}
	input := int64(inputGB * (1 << 30))
	nMaps := int((input + int64(blockMB)*(1<<20) - 1) / (int64(blockMB) * (1 << 20)))
	shuffle := float64(input) * k.selectivity
	reduces := max(1, int(shuffle/(1<<30)))
	sc.Jobs = []trace.Job{{Name: k.name, Type: k.name, Queue: "default", User: "bench", InputBytes: input, Maps: nMaps, Reduces: reduces,
		MapSPerBlock: k.mapSPerBlock, ReduceSPerGB: k.reduceSPerGB, ShuffleRatio: k.selectivity, Skew: opt.skew}}

	// Preprocessing (the paper's profiling stage): per node, a map's time is
	// its block's compute plus sorting its output; a reducer's time per GB
	// is merge plus reduce, all at the node's speed.
	sortMBps := sc.YARN.SortMBps
	if sortMBps == 0 {
		sortMBps = 100
	}
	mapRow, redRow := map[string]float64{}, map[string]float64{}
	id := 0
	for _, g := range sc.Cluster.Nodes {
		for range g.Count {
			id++
			node := fmt.Sprintf("node-%04d", id)
			mapRow[node] = sc.YARN.TaskOverheadS + (k.mapSPerBlock+blockMB*k.selectivity/sortMBps)/g.MapSpeed
			redRow[node] = (k.reduceSPerGB + 1000/sortMBps) / g.ReduceSpeed
		}
	}
	args := map[string]any{
		"map_matrix":    map[string]any{k.name: mapRow},
		"reduce_matrix": map[string]any{k.name: redRow},
	}
	if opt.spawn {
		// The stock baseline sends no reduce-binding, so this changes
		// nothing for yarn.
		sc.YARN.SpawnReducers = true
		args["spawn_reducers"] = true
	}
	if err := mergeYAML(args, opt.tmarArgs, "-tmar-args"); err != nil {
		return nil, err
	}
	pargs := maps.Clone(args)
	if err := mergeYAML(pargs, opt.powerArgs, "-power-args"); err != nil {
		return nil, err
	}
	var n, pn yaml.Node
	if err := n.Encode(args); err != nil {
		return nil, err
	}
	if err := pn.Encode(pargs); err != nil {
		return nil, err
	}
	if sc.PolicyArgs == nil {
		sc.PolicyArgs = map[string]*yaml.Node{}
	}
	sc.PolicyArgs["tmar"], sc.PolicyArgs["tmar-power"] = &n, &pn
	return sc, nil
}

// powerSizes is Table 5's setup: WordCount with 40, 50 and 76 maps (5,
// 6.5 and 9.5 GB) on small, medium and large clusters (the paper's 10, 25
// and 30 hosts; 20 here, the base scales by 10).
var powerSizes = []struct {
	hosts   int
	inputGB float64
}{{10, 5}, {20, 6.5}, {30, 9.5}}

type powerCell struct {
	Hosts    int
	Maps     int
	Stack    string
	Makespan float64
	Energy   float64 // the simulator's: every node draws idle + dynamic power over the makespan
	BusyKJ   float64 // the paper's: a core draws its share of P_max only while it runs a task
	// Per seed, for the claim's confidence interval.
	SeedMakespan, SeedEnergy, SeedBusyKJ []float64
}

// powerRuns runs Table 5's WordCount jobs under tmar and tmar-power.
func powerRuns(ctx context.Context, base string, seeds int, opt setup) ([]powerCell, error) {
	wc := kinds[0]
	var out []powerCell
	for _, sz := range powerSizes {
		for _, st := range []string{"tmar", "tmar-power"} {
			c := powerCell{Hosts: sz.hosts, Stack: st}
			for seed := 1; seed <= seeds; seed++ {
				sc, err := scenario(base, wc, sz.hosts, sz.inputGB, uint64(seed), opt)
				if err != nil {
					return nil, err
				}
				be := &busyEnergy{}
				r, err := sim.Run(ctx, sc, st, sim.Options{Events: be})
				if err != nil {
					return nil, fmt.Errorf("power %d hosts %s: %w", sz.hosts, st, err)
				}
				if be.err != nil {
					return nil, fmt.Errorf("power %d hosts %s: reading events: %w", sz.hosts, st, be.err)
				}
				c.Makespan += r.MakespanS / float64(seeds)
				c.Energy += r.EnergyKWh / float64(seeds)
				c.BusyKJ += be.joules / 1000 / float64(seeds)
				c.Maps = r.Jobs[0].Maps
				c.SeedMakespan = append(c.SeedMakespan, r.MakespanS)
				c.SeedEnergy = append(c.SeedEnergy, r.EnergyKWh)
				c.SeedBusyKJ = append(c.SeedBusyKJ, be.joules/1000)
			}
			out = append(out, c)
		}
	}
	return out, nil
}

// busyEnergy reads the run's events (JSONL) and adds up the paper's energy
// accounting (Table 1: a resource drawing P for a task of t seconds uses
// P x t; idle resources draw nothing): every attempt uses its container's
// share of its node's P_max for as long as it runs.
type busyEnergy struct {
	buf    []byte
	nodes  map[string][2]float64 // node -> P_max, vcores
	starts map[string]struct {
		ts    int64
		watts float64
	}
	joules float64
	err    error
}

func (b *busyEnergy) Write(p []byte) (int, error) {
	b.buf = append(b.buf, p...)
	for {
		i := bytes.IndexByte(b.buf, '\n')
		if i < 0 {
			return len(p), nil
		}
		b.line(b.buf[:i])
		b.buf = b.buf[i+1:]
	}
}

func (b *busyEnergy) line(l []byte) {
	var e struct {
		Type      string  `json:"type"`
		TS        int64   `json:"ts"`
		Node      string  `json:"node"`
		Attempt   string  `json:"attempt"`
		VCores    float64 `json:"vcores"`
		PowerMaxW float64 `json:"power_max_w"`
	}
	if err := json.Unmarshal(l, &e); err != nil {
		b.err = err
		return
	}
	if b.nodes == nil {
		b.nodes = map[string][2]float64{}
		b.starts = map[string]struct {
			ts    int64
			watts float64
		}{}
	}
	switch e.Type {
	case "node.registered":
		b.nodes[e.Node] = [2]float64{e.PowerMaxW, e.VCores}
	case "container.allocated":
		n := b.nodes[e.Node]
		v := max(e.VCores, 1)
		if n[1] > 0 {
			b.starts[e.Attempt] = struct {
				ts    int64
				watts float64
			}{e.TS, n[0] * v / n[1]}
		}
	case "task.finished":
		if st, ok := b.starts[e.Attempt]; ok {
			b.joules += st.watts * float64(e.TS-st.ts) / 1000
			delete(b.starts, e.Attempt)
		}
	}
}

func printPower(w io.Writer, cells []powerCell) {
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Table 5 setup (WordCount, 40/50/76 maps): energy tmar-power vs tmar")
	fmt.Fprintf(w, "%5s %5s  %-11s %11s %11s %16s\n", "hosts", "maps", "stack", "makespan s", "energy kWh", "busy energy kJ")
	for _, c := range cells {
		fmt.Fprintf(w, "%5d %5d  %-11s %11.1f %11.4f %16.1f\n", c.Hosts, c.Maps, c.Stack, c.Makespan, c.Energy, c.BusyKJ)
	}
	var mk, en, busy [][2][]float64
	for i := 0; i+1 < len(cells); i += 2 {
		t, p := cells[i], cells[i+1]
		mk = append(mk, [2][]float64{p.SeedMakespan, t.SeedMakespan})
		en = append(en, [2][]float64{p.SeedEnergy, t.SeedEnergy})
		busy = append(busy, [2][]float64{p.SeedBusyKJ, t.SeedBusyKJ})
	}
	if len(en) == 0 {
		return
	}
	fmt.Fprintf(w, "%-52s %-18s %s simulator's energy, %s paper's busy energy (makespan %s)\n",
		"energy tmar-power vs tmar, Table 5 setup", "-5 to -12 %", changeCI(en), changeCI(busy), changeCI(mk))
}

// changeCI is the change of a against b in percent, averaged over the
// configurations of each seed (pairs[i] = {a, b} per seed), as mean ± 95 %
// CI over the seeds, marked * when the interval crosses 0.
func changeCI(pairs [][2][]float64) string {
	if len(pairs) == 0 {
		return "n/a"
	}
	n := len(pairs[0][0])
	perSeed := make([]float64, n)
	for s := range n {
		for _, p := range pairs {
			perSeed[s] += pct(p[0][s], p[1][s]) / float64(len(pairs))
		}
	}
	return report.ChangeCI(perSeed)
}

func find(cells []cell, kind string, hosts int, stack string) cell {
	for _, c := range cells {
		if c.Kind == kind && c.Hosts == hosts && c.Stack == stack {
			return c
		}
	}
	return cell{}
}

func pct(a, b float64) float64 {
	if b == 0 {
		return 0
	}
	return (a - b) / b * 100
}

func printTable(w io.Writer, cells []cell) {
	fmt.Fprintf(w, "%-10s %5s %5s  %-11s %11s %10s %11s %8s\n", "job", "hosts", "maps", "stack", "makespan s", "x-rack GB", "energy kWh", "plan s")
	for _, c := range cells {
		plan := ""
		if c.PlanS > 0 {
			plan = fmt.Sprintf("%.1f", c.PlanS)
		}
		fmt.Fprintf(w, "%-10s %5d %5d  %-11s %11.1f %10.2f %11.4f %8s\n", c.Kind, c.Hosts, c.Maps, c.Stack, c.Makespan, c.XRackGB, c.Energy, plan)
	}
	fmt.Fprintln(w, "plan s: the job's completion TMaR's reduce-stage plan (PRB, eq. 3-5) predicted when it bound the partitions")
	fmt.Fprintln(w)
}

func printClaims(w io.Writer, cells []cell) {
	fmt.Fprintf(w, "%-52s %-18s %s\n", "claim (TMaR paper)", "paper", "measured: mean over sizes 10/20/30 hosts, ± 95 % CI over seeds (* crosses 0)")
	fmt.Fprintln(w, strings.Repeat("-", 110))
	for _, k := range kinds {
		var mk, xr, plan [][2][]float64
		for _, sz := range sizes {
			y, t := find(cells, k.name, sz.hosts, "yarn"), find(cells, k.name, sz.hosts, "tmar")
			mk = append(mk, [2][]float64{t.SeedMakespan, y.SeedMakespan})
			xr = append(xr, [2][]float64{t.SeedXRackGB, y.SeedXRackGB})
			plan = append(plan, [2][]float64{t.SeedPlanS, y.SeedMakespan})
		}
		paper := "not given"
		if k.claim != 0 {
			paper = fmt.Sprintf("%+.0f %%", k.claim)
		}
		fmt.Fprintf(w, "%-52s %-18s %s (TMaR's plan predicted %s)\n", "makespan tmar vs yarn, "+k.name, paper, changeCI(mk), changeCI(plan))
		fmt.Fprintf(w, "%-52s %-18s %s\n", "cross-rack shuffle tmar vs yarn, "+k.name, "less", changeCI(xr))
	}
	var en, mk [][2][]float64
	for _, k := range kinds {
		for _, sz := range sizes {
			t, p := find(cells, k.name, sz.hosts, "tmar"), find(cells, k.name, sz.hosts, "tmar-power")
			en = append(en, [2][]float64{p.SeedEnergy, t.SeedEnergy})
			mk = append(mk, [2][]float64{p.SeedMakespan, t.SeedMakespan})
		}
	}
	fmt.Fprintf(w, "%-52s %-18s %s (makespan %s)\n", "energy tmar-power vs tmar, same makespan (Table 5)", "-5 to -12 %", changeCI(en), changeCI(mk))
}

// mergeYAML sets the keys of the YAML mapping src (a flag's value) in dst.
func mergeYAML(dst map[string]any, src, flagName string) error {
	if src == "" {
		return nil
	}
	var m map[string]any
	if err := yaml.Unmarshal([]byte(src), &m); err != nil {
		return fmt.Errorf("%s: not a YAML mapping: %w", flagName, err)
	}
	maps.Copy(dst, m)
	return nil
}
