// Command paper-speculation runs the speculation experiments of this project
// (scenarios/samr-*, erul-*, exmcp-*, sepb-*) in the simulator and prints,
// per claim of the papers, the paper's number beside the measured one, and
// per scenario the makespan, backups launched and won, and wasted seconds of
// every stack (means over seeds).
//
//	go run ./scripts/paper-speculation [-seeds N] [-scenarios DIR] [-only samr,erul,exmcp,sepb]
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/rmsidecar/rmsidecar/sim"
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

type stat struct {
	makespan, launched, won, wasted float64
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
	seeds := fs.Int("seeds", 5, "seeds 1..N per run; figures are means")
	only := fs.String("only", "samr,erul,exmcp,sepb", "groups to run")
	if err := fs.Parse(argv); err != nil {
		return err
	}
	groups := strings.Split(*only, ",")
	results := map[string]map[string]stat{} // scenario -> stack -> mean
	for _, ex := range experiments {
		if !slices.Contains(groups, ex.group) {
			continue
		}
		sc, err := sim.LoadScenario(filepath.Join(*dir, ex.scenario))
		if err != nil {
			return err
		}
		results[ex.scenario] = map[string]stat{}
		fmt.Fprintf(w, "%s (seeds 1-%d)\n", ex.scenario, *seeds)
		fmt.Fprintf(w, "  %-12s %11s %9s %6s %10s\n", "stack", "makespan s", "launched", "won", "wasted s")
		for _, st := range ex.stacks {
			var m stat
			for seed := 1; seed <= *seeds; seed++ {
				sc.Seed = uint64(seed)
				r, err := sim.Run(ctx, sc, st, sim.Options{})
				if err != nil {
					return fmt.Errorf("%s %s: %w", ex.scenario, st, err)
				}
				n := float64(*seeds)
				m.makespan += r.MakespanS / n
				m.launched += float64(r.Spec.Launched) / n
				m.won += float64(r.Spec.Won) / n
				m.wasted += r.Spec.WastedS / n
			}
			results[ex.scenario][st] = m
			fmt.Fprintf(w, "  %-12s %11.1f %9.1f %6.1f %10.1f\n", st, m.makespan, m.launched, m.won, m.wasted)
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "%-40s %-14s %s\n", "claim", "paper", "measured")
	fmt.Fprintln(w, strings.Repeat("-", 72))
	for _, c := range claims {
		r, ok := results[c.scenario]
		if !ok {
			continue
		}
		a, b := r[c.a], r[c.b]
		fmt.Fprintf(w, "%-40s %-14s %+.1f %%\n", c.text, c.paper, (a.makespan-b.makespan)/b.makespan*100)
	}
	for _, sc := range []string{"erul-sort.yaml"} {
		if r, ok := results[sc]; ok && r["erul"].launched > 0 {
			fmt.Fprintf(w, "%-40s %-14s %.0f %% (%.1f of %.1f)\n", "ERUL backup success, Sort", ">= 95 % map",
				r["erul"].won/r["erul"].launched*100, r["erul"].won, r["erul"].launched)
		}
	}
	return nil
}
