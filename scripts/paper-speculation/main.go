// Command paper-speculation runs the speculation experiments of this project
// (scenarios/samr-*, erul-*, exmcp-*, sepb-*) in the simulator and prints,
// per claim of the papers, the paper's number beside the measured one, and
// per scenario the makespan, backups launched and won, and wasted seconds of
// every stack, as mean ± 95 % CI over the seeds (claims paired by seed).
//
//	go run ./scripts/paper-speculation [-seeds N] [-scenarios DIR] [-only samr,erul,exmcp,sepb]
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/rmsidecar/rmsidecar/sim"
	"github.com/rmsidecar/rmsidecar/sim/report"
)

// experiment is one scenario with the stacks it compares.
type experiment struct {
	group    string
	scenario string
	stacks   []string
}

// claim compares two stacks of one experiment: (a - b) / b.
type claim struct {
	group, text, scenario, a, b, paper string
}

var experiments = []experiment{
	{"samr", "samr-sort.yaml", []string{"none", "naive", "late", "yarn", "samr"}},
	{"samr", "samr-wordcount.yaml", []string{"none", "naive", "late", "yarn", "samr"}},
	{"erul", "erul-sort.yaml", []string{"none", "late", "yarn", "erul"}},
	{"erul", "erul-wordcount-skew.yaml", []string{"none", "late", "yarn", "erul"}},
	{"exmcp", "exmcp-sort.yaml", []string{"late", "mcp", "exmcp"}},
	{"exmcp", "exmcp-wordcount.yaml", []string{"late", "mcp", "exmcp"}},
	{"exmcp", "exmcp-grep.yaml", []string{"late", "mcp", "exmcp"}},
	{"sepb", "sepb-batch-5.yaml", []string{"late", "late+sepb", "yarn", "yarn+sepb"}},
	{"sepb", "sepb-batch-10.yaml", []string{"late", "late+sepb", "yarn", "yarn+sepb"}},
	{"sepb", "sepb-batch-20.yaml", []string{"late", "late+sepb", "yarn", "yarn+sepb"}},
}

var claims = []claim{
	{"samr", "SAMR vs Hadoop (naive), Sort", "samr-sort.yaml", "samr", "naive", "-24 %"},
	{"samr", "SAMR vs LATE, Sort", "samr-sort.yaml", "samr", "late", "-14 %"},
	{"samr", "SAMR vs Hadoop (naive), WordCount", "samr-wordcount.yaml", "samr", "naive", "-17 %"},
	{"erul", "ERUL vs LATE, Sort", "erul-sort.yaml", "erul", "late", "-14 %"},
	{"erul", "ERUL vs none, Sort", "erul-sort.yaml", "erul", "none", "-16 %"},
	{"exmcp", "exMCP vs MCP, Sort", "exmcp-sort.yaml", "exmcp", "mcp", "-13 %"},
	{"exmcp", "exMCP vs MCP, WordCount", "exmcp-wordcount.yaml", "exmcp", "mcp", "-6 %"},
	{"exmcp", "exMCP vs MCP, Grep", "exmcp-grep.yaml", "exmcp", "mcp", "-8 %"},
	{"sepb", "LATE+SEPB vs LATE, 5-job batch", "sepb-batch-5.yaml", "late+sepb", "late", "-3 to -10 %"},
	{"sepb", "LATE+SEPB vs LATE, 10-job batch", "sepb-batch-10.yaml", "late+sepb", "late", "-3 to -10 %"},
	{"sepb", "LATE+SEPB vs LATE, 20-job batch", "sepb-batch-20.yaml", "late+sepb", "late", "-3 to -10 %"},
}

// perSeed holds one stack's figures, one entry per seed (seed i+1 at i).
type perSeed struct {
	makespan, launched, won, wasted []float64
}

func main() {
	if err := run(context.Background(), os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "paper-speculation:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, argv []string, w io.Writer) error {
	fs := flag.NewFlagSet("paper-speculation", flag.ContinueOnError)
	dir := fs.String("scenarios", "scenarios", "directory of the scenario files")
	seeds := fs.Int("seeds", 5, "seeds 1..N per run (in parallel over the cores); figures are mean ± 95 % CI")
	only := fs.String("only", "samr,erul,exmcp,sepb", "groups to run")
	if err := fs.Parse(argv); err != nil {
		return err
	}
	if *seeds < 1 {
		return fmt.Errorf("-seeds: want >= 1, got %d", *seeds)
	}
	groups := strings.Split(*only, ",")
	results := map[string]map[string]perSeed{} // scenario -> stack -> per seed
	for _, ex := range experiments {
		if !slices.Contains(groups, ex.group) {
			continue
		}
		sc, err := sim.LoadScenario(filepath.Join(*dir, ex.scenario))
		if err != nil {
			return err
		}
		results[ex.scenario] = map[string]perSeed{}
		fmt.Fprintf(w, "%s (seeds 1-%d, mean ± 95 %% CI)\n", ex.scenario, *seeds)
		fmt.Fprintf(w, "  %-12s %18s %9s %6s %10s\n", "stack", "makespan s", "launched", "won", "wasted s")
		for _, st := range ex.stacks {
			p, err := runSeeds(ctx, sc, st, *seeds)
			if err != nil {
				return fmt.Errorf("%s %s: %w", ex.scenario, st, err)
			}
			results[ex.scenario][st] = p
			m, h := report.MeanCI95(p.makespan)
			fmt.Fprintf(w, "  %-12s %18s %9.1f %6.1f %10.1f\n", st, pm(m, h), report.Mean(p.launched), report.Mean(p.won), report.Mean(p.wasted))
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "%-40s %-14s %s\n", "claim", "paper", "measured (paired by seed, mean ± 95 % CI; * the interval crosses 0)")
	fmt.Fprintln(w, strings.Repeat("-", 100))
	for _, c := range claims {
		r, ok := results[c.scenario]
		if !ok {
			continue
		}
		fmt.Fprintf(w, "%-40s %-14s %s\n", c.text, c.paper, pairedChange(r[c.a].makespan, r[c.b].makespan))
	}
	for _, sc := range []string{"erul-sort.yaml"} {
		if e, ok := results[sc]["erul"]; ok && report.Mean(e.launched) > 0 {
			won, launched := sum(e.won), sum(e.launched)
			fmt.Fprintf(w, "%-40s %-14s %.0f %% (%.0f of %.0f over the seeds)\n", "ERUL backup success, Sort", ">= 95 % map",
				won/launched*100, won, launched)
		}
	}
	return nil
}

// runSeeds runs stack on sc for seeds 1..n, as many at once as there are
// cores; each run is deterministic for its seed.
func runSeeds(ctx context.Context, sc *sim.Scenario, stack string, n int) (perSeed, error) {
	out := perSeed{makespan: make([]float64, n), launched: make([]float64, n), won: make([]float64, n), wasted: make([]float64, n)}
	errs := make([]error, n)
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			c := *sc // as sim --seeds: a run reads its scenario, the seed is its own
			c.Seed = uint64(i + 1)
			r, err := sim.Run(ctx, &c, stack, sim.Options{})
			if err != nil {
				errs[i] = fmt.Errorf("seed %d: %w", i+1, err)
				return
			}
			out.makespan[i], out.launched[i], out.won[i], out.wasted[i] = r.MakespanS, float64(r.Spec.Launched), float64(r.Spec.Won), r.Spec.WastedS
		}()
	}
	wg.Wait()
	return out, errors.Join(errs...)
}

// pairedChange is (a - b) / b per seed, as mean ± 95 % CI in percent.
func pairedChange(a, b []float64) string {
	d := make([]float64, len(a))
	for i := range a {
		d[i] = (a[i] - b[i]) / b[i] * 100
	}
	return report.ChangeCI(d)
}

func pm(m, h float64) string {
	if math.IsNaN(h) {
		return fmt.Sprintf("%.1f", m)
	}
	return fmt.Sprintf("%.1f ± %.1f", m, h)
}

func sum(xs []float64) float64 {
	t := 0.0
	for _, x := range xs {
		t += x
	}
	return t
}
