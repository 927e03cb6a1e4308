// Command speculation-sweep runs the speculation stacks on randomly generated
// heterogeneous scenarios (package sim/sweep) and prints, per stack, its
// makespan and job time against no speculation and stock YARN, the worst
// case, how often it is more than 2 % behind none, and its backups and waste.
//
//	go run ./scripts/speculation-sweep [-n 100] [-from 1] [-max-nodes 500] [-parallel 2] [-csv FILE] [-save-worst DIR]
package main

import (
	"context"
	"encoding/csv"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/rmsidecar/rmsidecar/sim/sweep"
)

func main() {
	n := flag.Int("n", 100, "scenarios")
	from := flag.Uint64("from", 1, "first scenario seed")
	maxNodes := flag.Int("max-nodes", 500, "largest cluster")
	parallel := flag.Int("parallel", 2, "scenarios simulated at once")
	csvPath := flag.String("csv", "", "write every run to this CSV file")
	saveWorst := flag.String("save-worst", "", "write the scenario YAML of each stack's worst case here")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, *n, *from, *maxNodes, *parallel, *csvPath, *saveWorst); err != nil {
		fmt.Fprintln(os.Stderr, "speculation-sweep:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, n int, from uint64, maxNodes, parallel int, csvPath, saveWorst string) error {
	b := sweep.DefaultBounds()
	b.MaxNodes = maxNodes
	start := time.Now()
	rows := make([][]sweep.Row, n)
	errs := make([]error, n)
	sem := make(chan struct{}, max(1, parallel))
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			rows[i], errs[i] = sweep.Run(ctx, from+uint64(i), b, sweep.Stacks)
			fmt.Fprintf(os.Stderr, "\rscenario %d/%d (%s)", i+1, n, time.Since(start).Round(time.Second))
		}()
	}
	wg.Wait()
	fmt.Fprintln(os.Stderr)
	var all []sweep.Row
	for i, err := range errs {
		if err != nil {
			return err
		}
		all = append(all, rows[i]...)
	}
	sums := sweep.Summarize(all, sweep.Stacks)
	fmt.Printf("%d scenarios (seeds %d..%d, %d-%d nodes) in %s\n", n, from, from+uint64(n)-1, b.MinNodes, b.MaxNodes, time.Since(start).Round(time.Second))
	fmt.Print(sweep.Table(sums))
	if csvPath != "" {
		if err := writeCSV(csvPath, all); err != nil {
			return err
		}
	}
	if saveWorst != "" {
		if err := os.MkdirAll(saveWorst, 0o755); err != nil {
			return err
		}
		for _, s := range sums {
			if s.Over2Pct == 0 {
				continue
			}
			data, _ := sweep.Generate(s.WorstSeed, b)
			p := filepath.Join(saveWorst, fmt.Sprintf("%s-worst-%d.yaml", s.Stack, s.WorstSeed))
			if err := os.WriteFile(p, data, 0o644); err != nil {
				return err
			}
		}
	}
	return nil
}

func writeCSV(path string, rows []sweep.Row) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := csv.NewWriter(f)
	_ = w.Write([]string{"seed", "nodes", "jobs", "classes", "stragglers", "degrading", "stack", "makespan_s", "mean_jct_s", "launched", "won", "wasted_s"})
	for _, r := range rows {
		t := r.Traits
		_ = w.Write([]string{strconv.FormatUint(r.Seed, 10), strconv.Itoa(t.Nodes), strconv.Itoa(t.Jobs), strconv.Itoa(t.Classes),
			strconv.FormatBool(t.Stragglers), strconv.FormatBool(t.Degrading), r.Stack,
			strconv.FormatFloat(r.Run.MakespanS, 'f', 1, 64), strconv.FormatFloat(r.Run.MeanJCTS, 'f', 1, 64),
			strconv.Itoa(r.Run.Spec.Launched), strconv.Itoa(r.Run.Spec.Won), strconv.FormatFloat(r.Run.Spec.WastedS, 'f', 0, 64)})
	}
	w.Flush()
	if err := w.Error(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
