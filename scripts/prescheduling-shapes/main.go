// Command prescheduling-shapes measures Slot PreScheduling across the
// shapes of issue 19 (scenarios/prescheduling-<shape>.yaml, the Hadoop-1
// form, and prescheduling-yarn-<shape>.yaml, the YARN form): for each
// scenario it simulates yarn and yarn+prescheduling over seeds 1..N and
// prints node locality (mean ± 95 % CI) and the changes paired by seed in
// node-locality points, Jain's index and makespan, then each form's averages.
// The paper's own scenarios (prescheduling-16/32/160) are left to
// scripts/paper-dynamicmr.
//
//	go run ./scripts/prescheduling-shapes -seeds 10
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"

	"github.com/rmsidecar/rmsidecar/sim"
	"github.com/rmsidecar/rmsidecar/sim/report"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "prescheduling-shapes:", err)
		os.Exit(1)
	}
}

// paperScenario matches the paper's own scenarios, which are not shapes.
var paperScenario = regexp.MustCompile(`^prescheduling-[0-9]+(-alone)?\.yaml$`)

// shape is one scenario's paired runs.
type shape struct {
	file string
	form string // "Hadoop-1" or "YARN"
	base []report.Run
	pre  []report.Run
	err  error
	args *yaml.Node // merged into policy_args.prescheduling
}

func run(ctx context.Context, argv []string, w io.Writer) error {
	fs := flag.NewFlagSet("prescheduling-shapes", flag.ContinueOnError)
	dir := fs.String("scenarios", "scenarios", "directory holding prescheduling-*.yaml")
	seeds := fs.Int("seeds", 10, "seeds 1..N per scenario and stack")
	par := fs.Int("parallel", 2, "scenarios simulated at once")
	only := fs.String("only", "", "only scenarios whose file name contains this")
	yarnArgs := fs.String("yarn-args", "", "YAML mapping merged into policy_args.prescheduling of the YARN-form scenarios, e.g. 'hold_fraction: 0.25'")
	if err := fs.Parse(argv); err != nil {
		return err
	}
	var extra *yaml.Node
	if *yarnArgs != "" {
		var doc yaml.Node
		if err := yaml.Unmarshal([]byte(*yarnArgs), &doc); err != nil || len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
			return fmt.Errorf("-yarn-args: want a YAML mapping such as 'hold_fraction: 0.25', got %q (%v)", *yarnArgs, err)
		}
		extra = doc.Content[0]
	}
	if *seeds < 2 {
		return fmt.Errorf("-seeds: need at least 2 for an interval, got %d", *seeds)
	}
	files, err := filepath.Glob(filepath.Join(*dir, "prescheduling-*.yaml"))
	if err != nil {
		return err
	}
	var shapes []*shape
	for _, f := range files {
		name := filepath.Base(f)
		if paperScenario.MatchString(name) || !strings.Contains(name, *only) {
			continue
		}
		form := "Hadoop-1"
		if strings.HasPrefix(name, "prescheduling-yarn-") {
			form = "YARN"
		}
		s := &shape{file: f, form: form}
		if form == "YARN" {
			s.args = extra
		}
		shapes = append(shapes, s)
	}
	if len(shapes) == 0 {
		return fmt.Errorf("no prescheduling-<shape>.yaml in %s", *dir)
	}
	sort.SliceStable(shapes, func(i, j int) bool { return shapes[i].form < shapes[j].form })
	sem := make(chan struct{}, max(1, *par))
	var wg sync.WaitGroup
	for _, s := range shapes {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			s.base, s.pre, s.err = simulate(ctx, s, *seeds)
		})
	}
	wg.Wait()
	for _, s := range shapes {
		if s.err != nil {
			return fmt.Errorf("%s: %w", s.file, s.err)
		}
	}
	print(w, shapes, *seeds)
	return nil
}

func simulate(ctx context.Context, s *shape, seeds int) (base, pre []report.Run, err error) {
	for seed := 1; seed <= seeds; seed++ {
		for _, stack := range []string{"yarn", "yarn+prescheduling"} {
			sc, err := sim.LoadScenario(s.file)
			if err != nil {
				return nil, nil, err
			}
			sc.Seed = uint64(seed)
			if s.args != nil {
				sc.PolicyArgs = mergeArgs(sc.PolicyArgs, s.args)
			}
			r, err := sim.Run(ctx, sc, stack, sim.Options{})
			if err != nil {
				return nil, nil, fmt.Errorf("%s seed %d: %w", stack, seed, err)
			}
			if stack == "yarn" {
				base = append(base, r)
			} else {
				pre = append(pre, r)
			}
		}
	}
	return base, pre, nil
}

// mergeArgs returns a copy of args whose prescheduling mapping has the keys
// of extra (replacing keys of the same name).
func mergeArgs(args map[string]*yaml.Node, extra *yaml.Node) map[string]*yaml.Node {
	out := make(map[string]*yaml.Node, len(args)+1)
	for k, v := range args {
		out[k] = v
	}
	m := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	if old := args["prescheduling"]; old != nil && old.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(old.Content); i += 2 {
			if !hasKey(extra, old.Content[i].Value) {
				m.Content = append(m.Content, old.Content[i], old.Content[i+1])
			}
		}
	}
	m.Content = append(m.Content, extra.Content...)
	out["prescheduling"] = m
	return out
}

func hasKey(m *yaml.Node, key string) bool {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return true
		}
	}
	return false
}

// row is one shape's figures: means and halves of the 95 % intervals.
type row struct {
	base, baseH, pre, preH float64 // node locality, %
	pts, ptsH              float64 // paired change, points
	jain, jainH            float64 // paired change of Jain's index
	mk, mkH                float64 // paired makespan change, %
}

func figures(s *shape) row {
	var b, p, d, j, m []float64
	for i := range s.base {
		bl, pl := 100*s.base[i].Locality.Node, 100*s.pre[i].Locality.Node
		b, p, d = append(b, bl), append(p, pl), append(d, pl-bl)
		j = append(j, s.pre[i].Jain-s.base[i].Jain)
		if s.base[i].MakespanS > 0 {
			m = append(m, 100*(s.pre[i].MakespanS/s.base[i].MakespanS-1))
		}
	}
	var r row
	r.base, r.baseH = report.MeanCI95(b)
	r.pre, r.preH = report.MeanCI95(p)
	r.pts, r.ptsH = report.MeanCI95(d)
	r.jain, r.jainH = report.MeanCI95(j)
	r.mk, r.mkH = report.MeanCI95(m)
	return r
}

func print(w io.Writer, shapes []*shape, seeds int) {
	fmt.Fprintf(w, "Slot PreScheduling across shapes: seeds 1..%d, mean ± 95 %% CI, changes paired by seed\n", seeds)
	fmt.Fprintf(w, "%-42s %-14s %-14s %-13s %-18s %s\n", "scenario", "node-local yarn", "+prescheduling", "points", "Jain change", "makespan change")
	form := ""
	var sum, worstJain, worstMk float64
	n := 0
	flush := func() {
		if n > 0 {
			fmt.Fprintf(w, "%s form: mean change %+.2f node-locality points over %d shapes; worst Jain change %+.4f; worst makespan change %+.1f %%\n\n",
				form, sum/float64(n), n, worstJain, worstMk)
		}
		sum, worstJain, worstMk, n = 0, 0, 0, 0
	}
	for _, s := range shapes {
		if s.form != form {
			flush()
			form = s.form
		}
		r := figures(s)
		fmt.Fprintf(w, "%-42s %5.1f ± %-5.1f  %5.1f ± %-5.1f  %+5.1f ± %-4.1f  %+.4f ± %.4f  %+5.1f ± %.1f %%\n",
			filepath.Base(s.file), r.base, r.baseH, r.pre, r.preH, r.pts, r.ptsH, r.jain, r.jainH, r.mk, r.mkH)
		sum += r.pts
		worstJain = min(worstJain, r.jain)
		worstMk = max(worstMk, r.mk)
		n++
	}
	flush()
}
