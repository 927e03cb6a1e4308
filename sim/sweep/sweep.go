// Package sweep checks speculation policies on heterogeneous clusters they
// were not tuned for: Generate draws a scenario from a seed (node classes and
// speeds, background load, random stragglers, degrading and recovering nodes,
// job mixes and submission patterns, 10 to 500 nodes), Run simulates every
// stack on it, and Summarize tells, per stack, how it compares with no
// speculation and with stock YARN's speculator.
package sweep

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/rmsidecar/rmsidecar/sim"
	"github.com/rmsidecar/rmsidecar/sim/report"
)

// Stacks are the speculation stacks a sweep compares; "none" and "yarn" are
// the references.
var Stacks = []string{"none", "yarn", "late", "samr", "erul", "exmcp"}

// MaxWastedShare is the stated bound on a speculation stack's waste: the
// container-seconds of backups that lost, as a share of the cluster's
// container-seconds during the run, averaged over a sweep's scenarios.
const MaxWastedShare = 0.05

// Bounds limit what Generate draws.
type Bounds struct {
	MinNodes, MaxNodes int
	// MaxJobs bounds the jobs of a scenario (default 8).
	MaxJobs int
}

// DefaultBounds are the issue's: 10 to 500 nodes.
func DefaultBounds() Bounds { return Bounds{MinNodes: 10, MaxNodes: 500, MaxJobs: 8} }

// Traits are what a generated scenario holds, for grouping results.
type Traits struct {
	Nodes, Jobs   int
	VCores        int // per node
	Classes       int
	Stragglers    bool // task_prob > 0
	Degrading     bool // some node slows down mid-run
	Recovering    bool // ... and comes back
	BackgroundMax float64
}

// Generate draws scenario number seed as scenario YAML (so a failing case
// can be saved and rerun with `rmsidecar sim --scenario`). The same seed and
// bounds give the same bytes.
func Generate(seed uint64, b Bounds) ([]byte, Traits) {
	if b.MaxJobs <= 0 {
		b.MaxJobs = 8
	}
	rng := rand.New(rand.NewPCG(seed, 0x5eed5eed))
	u := func(lo, hi float64) float64 { return lo + rng.Float64()*(hi-lo) }
	var tr Traits
	// Cluster size, log-uniform: small clusters are as likely as big ones.
	tr.Nodes = int(math.Round(math.Exp(u(math.Log(float64(b.MinNodes)), math.Log(float64(b.MaxNodes))))))
	tr.Nodes = min(max(tr.Nodes, b.MinNodes), b.MaxNodes)
	racks := max(1, tr.Nodes/20)
	tr.Classes = 1 + rng.IntN(3)
	vcores := []int{4, 8}[rng.IntN(2)]
	tr.VCores = vcores

	var y strings.Builder
	fmt.Fprintf(&y, "# sweep scenario %d: %d nodes in %d classes\nseed: %d\ncluster:\n  racks: %d\n  nodes:\n", seed, tr.Nodes, tr.Classes, seed, racks)
	left := tr.Nodes
	for c := 0; c < tr.Classes; c++ {
		n := left
		if c < tr.Classes-1 {
			n = max(1, int(float64(tr.Nodes)*u(0.2, 0.5)))
			n = min(n, left-(tr.Classes-1-c))
		}
		left -= n
		speed, load := 1.0, 0.0
		if c > 0 {
			speed = u(0.3, 0.9)
			if rng.Float64() < 0.5 {
				load = u(0.05, 0.5)
			}
		}
		tr.BackgroundMax = max(tr.BackgroundMax, load)
		mapSpeed, reduceSpeed := speed, speed*u(0.8, 1.2)
		fmt.Fprintf(&y, "    - {count: %d, vcores: %d, memory_mb: %d, map_speed: %.3f, reduce_speed: %.3f", n, vcores, vcores*2048, mapSpeed, min(reduceSpeed, 1.2))
		if load > 0 {
			fmt.Fprintf(&y, ", load: {mean: %.3f, stddev: %.3f, period_s: %.0f}", load, load/2, u(20, 60))
		}
		y.WriteString("}\n")
	}
	y.WriteString("  network: {node_gbps: 1, rack_uplink_gbps: 10, latency_ms: 0.2}\n  hdfs: {block_mb: 128, replication: 3}\n")
	y.WriteString("yarn: {heartbeat_s: 1, node_local_delay: 1, rack_local_delay: 2, slowstart: 0.05,\n" +
		"       map_container: {vcores: 1, memory_mb: 1024}, reduce_container: {vcores: 1, memory_mb: 2048}}\n")

	taskProb := 0.0
	if rng.Float64() < 0.7 {
		taskProb = u(0.01, 0.1)
	}
	tr.Stragglers = taskProb > 0
	fmt.Fprintf(&y, "stragglers: {task_prob: %.3f, slowdown: [2, %.1f]", taskProb, u(3, 8))
	if rng.Float64() < 0.5 {
		tr.Degrading = true
		y.WriteString(", node_degrade: [")
		nd := 1 + rng.IntN(max(1, tr.Nodes/20))
		for i := range nd {
			from := u(20, 200)
			to := 1e6 // stays slow
			if rng.Float64() < 0.5 {
				to = from + u(60, 600)
				tr.Recovering = true
			}
			if i > 0 {
				y.WriteString(", ")
			}
			fmt.Fprintf(&y, "{node: %d, from_s: %.0f, to_s: %.0f, factor: %.2f}", rng.IntN(tr.Nodes), from, to, u(0.15, 0.5))
		}
		y.WriteString("]")
	}
	y.WriteString("}\n")

	// Jobs: a mix of kinds, each one to three waves of the cluster's
	// containers divided among the jobs, submitted at once, spread over two
	// minutes, or one after another.
	tr.Jobs = 1 + rng.IntN(b.MaxJobs)
	slots := tr.Nodes * vcores
	pattern := rng.IntN(3)
	y.WriteString("workload:\n  jobs:\n")
	submit := 0.0
	for j := range tr.Jobs {
		kind := []string{"sort", "wordcount", "grep"}[rng.IntN(3)]
		maps := max(2, int(float64(slots)*u(0.5, 3)/float64(tr.Jobs)))
		var reduces int
		var msPerBlock, rsPerGB, shuffle float64
		switch kind {
		case "sort":
			reduces, msPerBlock, rsPerGB, shuffle = max(1, maps/4), u(15, 30), u(40, 90), 1.0
		case "wordcount":
			reduces, msPerBlock, rsPerGB, shuffle = max(1, maps/20), u(30, 60), u(20, 40), u(0.1, 0.4)
		default:
			reduces, msPerBlock, rsPerGB, shuffle = 1, u(8, 15), u(5, 15), 0.01
		}
		switch pattern {
		case 1:
			submit = u(0, 120)
		case 2:
			if j > 0 {
				submit += u(10, 60)
			}
		}
		fmt.Fprintf(&y, "    - {name: %s-%d, type: %s, submit_s: %.0f, input_gb: %.3f, reduces: %d, map_s_per_block: %.1f, reduce_s_per_gb: %.1f, shuffle_ratio: %.2f, skew: %.2f}\n",
			kind, j, kind, submit, float64(maps)*128/1024, reduces, msPerBlock, rsPerGB, shuffle, u(0, 0.5))
	}
	return []byte(y.String()), tr
}

// Row is one stack's run of one generated scenario.
type Row struct {
	Seed   uint64
	Traits Traits
	Stack  string
	Run    report.Run
}

// Run simulates every stack on scenario seed.
func Run(ctx context.Context, seed uint64, b Bounds, stacks []string) ([]Row, error) {
	data, tr := Generate(seed, b)
	sc, err := sim.ParseScenario(fmt.Sprintf("sweep-%d.yaml", seed), data)
	if err != nil {
		return nil, fmt.Errorf("sweep scenario %d: %w", seed, err)
	}
	var out []Row
	for _, st := range stacks {
		r, err := sim.Run(ctx, sc, st, sim.Options{})
		if err != nil {
			return nil, fmt.Errorf("sweep scenario %d, stack %s: %w", seed, st, err)
		}
		r.Jobs, r.Timeline = nil, nil // keep rows small
		out = append(out, Row{Seed: seed, Traits: tr, Stack: st, Run: r})
	}
	return out, nil
}

// Worse is how far a run is behind a reference on makespan or mean job
// time, whichever is worse (0.05 = 5 % longer).
func Worse(r, ref report.Run) float64 {
	return max(r.MakespanS/ref.MakespanS, r.MeanJCTS/ref.MeanJCTS) - 1
}

// Summary is one stack over a sweep.
type Summary struct {
	Stack string
	// Mean and worst makespan ratio against none and against yarn.
	VsNone, WorstVsNone, VsYARN, WorstVsYARN float64
	// Mean job time ratio against none and yarn.
	JCTVsNone, JCTVsYARN float64
	// Over2Pct counts scenarios where the stack is more than 2 % behind none
	// on makespan or mean job time; WorstSeed is the worst of them.
	Over2Pct  int
	WorstSeed uint64
	// VsYARNHard is the mean makespan ratio against yarn on scenarios with
	// stragglers or degrading nodes.
	VsYARNHard float64
	// Backups launched, won, and wasted container-seconds per scenario; the
	// wasted share of the cluster's container-seconds over the makespan.
	Launched, Won, WastedS, WastedShare float64
	Scenarios                           int
}

// Summarize folds rows (every stack of every scenario, none and yarn among
// them) into one Summary per stack, in the order of stacks.
func Summarize(rows []Row, stacks []string) []Summary {
	bySeed := map[uint64]map[string]report.Run{}
	traits := map[uint64]Traits{}
	for _, r := range rows {
		if bySeed[r.Seed] == nil {
			bySeed[r.Seed] = map[string]report.Run{}
		}
		bySeed[r.Seed][r.Stack] = r.Run
		traits[r.Seed] = r.Traits
	}
	seeds := make([]uint64, 0, len(bySeed))
	for s := range bySeed {
		seeds = append(seeds, s)
	}
	slices.Sort(seeds)
	var out []Summary
	for _, st := range stacks {
		s := Summary{Stack: st}
		worst := -1.0
		hard := 0
		for _, seed := range seeds {
			runs := bySeed[seed]
			r, ok := runs[st]
			none, okN := runs["none"]
			yarn, okY := runs["yarn"]
			if !ok || !okN || !okY {
				continue
			}
			s.Scenarios++
			mn, my := r.MakespanS/none.MakespanS, r.MakespanS/yarn.MakespanS
			s.VsNone += mn
			s.VsYARN += my
			s.JCTVsNone += r.MeanJCTS / none.MeanJCTS
			s.JCTVsYARN += r.MeanJCTS / yarn.MeanJCTS
			s.WorstVsNone = max(s.WorstVsNone, mn)
			s.WorstVsYARN = max(s.WorstVsYARN, my)
			if w := Worse(r, none); w > 0.02 {
				s.Over2Pct++
				if w > worst {
					worst, s.WorstSeed = w, seed
				}
			}
			if tr := traits[seed]; tr.Stragglers || tr.Degrading {
				s.VsYARNHard += my
				hard++
			}
			s.Launched += float64(r.Spec.Launched)
			s.Won += float64(r.Spec.Won)
			s.WastedS += r.Spec.WastedS
			if t := traits[seed]; r.MakespanS > 0 {
				cs := r.MakespanS * float64(t.Nodes*t.VCores)
				s.WastedShare += r.Spec.WastedS / cs
			}
		}
		if n := float64(s.Scenarios); n > 0 {
			s.VsNone /= n
			s.VsYARN /= n
			s.JCTVsNone /= n
			s.JCTVsYARN /= n
			s.Launched /= n
			s.Won /= n
			s.WastedS /= n
			s.WastedShare /= n
		}
		if hard > 0 {
			s.VsYARNHard /= float64(hard)
		}
		out = append(out, s)
	}
	return out
}

// Table prints summaries as a fixed-width table.
func Table(sums []Summary) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%-7s %5s %10s %9s %10s %9s %9s %9s %7s %9s %8s %7s %9s %7s\n",
		"stack", "runs", "mkspn/none", "worst", "mkspn/yarn", "worst", "yarn-hard", "JCT/none", ">2%", "worst-seed",
		"backups", "won", "wasted s", "waste%")
	for _, s := range sums {
		fmt.Fprintf(&b, "%-7s %5d %10.3f %9.3f %10.3f %9.3f %9.3f %9.3f %7d %9d %8.1f %7.1f %9.0f %6.2f%%\n",
			s.Stack, s.Scenarios, s.VsNone, s.WorstVsNone, s.VsYARN, s.WorstVsYARN, s.VsYARNHard, s.JCTVsNone,
			s.Over2Pct, s.WorstSeed, s.Launched, s.Won, s.WastedS, 100*s.WastedShare)
	}
	return b.String()
}
