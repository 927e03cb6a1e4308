// Command paper-learning-sim runs the learning scheduler's scenarios
// (scenarios/learning-paper.yaml and learning-wordcount.yaml: Dhok and Varma's
// seven 4-core workers, the six job kinds of Fig. 7 with their feature
// vectors and per-task loads) in the simulator and prints, per stack, the
// makespan, the load the nodes ran at and the classifier's accuracy.
//
//	go run ./scripts/paper-learning-sim [-seeds N] [-scenarios DIR] [-target T]
//
// Load figures are over busy heartbeats: node.heartbeat events of a node
// running at least one container while some app still has pending tasks
// (when nothing is pending no scheduler can raise a node's load). load1 per
// core is divided by the target (1.0 in the scenarios). Accuracy is the
// plugin's own (results.json extra, <name>_accuracy and the per-250-decision
// windows). Values are means over seeds 1..N.
package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/rmsidecar/rmsidecar/cluster"
	"github.com/rmsidecar/rmsidecar/events"
	"github.com/rmsidecar/rmsidecar/sim"
)

func main() {
	if err := run(context.Background(), os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "paper-learning-sim:", err)
		os.Exit(1)
	}
}

// stat is one stack's figures on one scenario, summed over seeds.
type stat struct {
	makespan, meanLoad, over, within, acc float64
	lateLoad, lateWithin                  float64 // heartbeats from -learned-s on
	first, last                           float64 // accuracy of the first and last complete window
	windows                               float64
}

func run(ctx context.Context, argv []string, w io.Writer) error {
	fs := flag.NewFlagSet("paper-learning-sim", flag.ContinueOnError)
	dir := fs.String("scenarios", "scenarios", "directory holding learning-paper.yaml and learning-wordcount.yaml")
	seeds := fs.Int("seeds", 3, "seeds 1..N per run")
	target := fs.Float64("target", 1.0, "the scenarios' load1-per-core target")
	learned := fs.Float64("learned-s", 1200, "heartbeats from this time on (s) count as after the learning phase (1200: runs 3-6 of learning-wordcount)")
	if err := fs.Parse(argv); err != nil {
		return err
	}
	stacks := []string{"yarn", "learning-nb", "learning-perceptron", "yarn+learning-nb"}
	for _, name := range []string{"learning-paper.yaml", "learning-wordcount.yaml"} {
		fmt.Fprintf(w, "%s, means over seeds 1-%d; load over busy heartbeats, per core / target %.2f\n", name, *seeds, *target)
		fmt.Fprintf(w, "%-20s %10s %10s %9s %9s %11s %11s %9s %14s\n", "stack", "makespan s", "load/tgt", "> +10 %", "±10 %",
			fmt.Sprintf("load@%.0fs+", *learned), fmt.Sprintf("±10%%@%.0fs+", *learned), "accuracy", "windows")
		for _, st := range stacks {
			var sum stat
			for seed := 1; seed <= *seeds; seed++ {
				s, err := one(ctx, filepath.Join(*dir, name), st, uint64(seed), *target, int64(*learned*1000))
				if err != nil {
					return fmt.Errorf("%s %s seed %d: %w", name, st, seed, err)
				}
				sum.makespan += s.makespan
				sum.meanLoad += s.meanLoad
				sum.over += s.over
				sum.within += s.within
				sum.lateLoad += s.lateLoad
				sum.lateWithin += s.lateWithin
				sum.acc += s.acc
				sum.first += s.first
				sum.last += s.last
				sum.windows += s.windows
			}
			k := 1 / float64(*seeds)
			acc, win := "-", "-"
			if st != "yarn" {
				acc = fmt.Sprintf("%.1f %%", 100*k*sum.acc)
				win = fmt.Sprintf("%.0f→%.0f %% (%.0f)", 100*k*sum.first, 100*k*sum.last, k*sum.windows)
			}
			fmt.Fprintf(w, "%-20s %10.1f %10.3f %8.1f%% %8.1f%% %11.3f %10.1f%% %9s %14s\n", st, k*sum.makespan, k*sum.meanLoad,
				100*k*sum.over, 100*k*sum.within, k*sum.lateLoad, 100*k*sum.lateWithin, acc, win)
		}
		fmt.Fprintln(w)
	}
	return nil
}

// one simulates one stack and seed and reads the load off its events.
func one(ctx context.Context, path, stack string, seed uint64, target float64, learnedMS int64) (stat, error) {
	sc, err := sim.LoadScenario(path)
	if err != nil {
		return stat{}, err
	}
	sc.Seed = seed
	var log bytes.Buffer
	r, err := sim.Run(ctx, sc, stack, sim.Options{Events: &log})
	if err != nil {
		return stat{}, err
	}
	out := stat{makespan: r.MakespanS}
	st := cluster.New()
	rd := events.NewReader(&log)
	var n, over, within, nLate, withinLate int
	var sum, sumLate float64
	var start int64 = -1
	for {
		ev, err := rd.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return stat{}, fmt.Errorf("read events: %w", err)
		}
		st.Apply(&ev)
		if start < 0 && ev.Type == events.AppSubmitted {
			start = ev.TS
		}
		if ev.Type != events.NodeHeartbeat || ev.RunningContainers == nil || *ev.RunningContainers == 0 || !pending(st) {
			continue
		}
		node := st.Node(ev.Node)
		if node == nil || node.VCores == 0 {
			continue
		}
		x := ev.Load1 / float64(node.VCores) / target
		n++
		sum += x
		if x > 1.1 {
			over++
		}
		in := x >= 0.9 && x <= 1.1
		if in {
			within++
		}
		if start >= 0 && ev.TS-start >= learnedMS {
			nLate++
			sumLate += x
			if in {
				withinLate++
			}
		}
	}
	if n > 0 {
		out.meanLoad, out.over, out.within = sum/float64(n), float64(over)/float64(n), float64(within)/float64(n)
	}
	if nLate > 0 {
		out.lateLoad, out.lateWithin = sumLate/float64(nLate), float64(withinLate)/float64(nLate)
	}
	name := strings.TrimPrefix(stack, "yarn+")
	out.acc = r.Extra[name+"_accuracy"]
	for i := 1; ; i++ {
		a, ok := r.Extra[fmt.Sprintf("%s_accuracy_w%03d", name, i)]
		if !ok {
			break
		}
		if i == 1 {
			out.first = a
		}
		out.last = a
		out.windows = float64(i)
	}
	return out, nil
}

// pending reports whether some unfinished app has pending tasks.
func pending(v cluster.View) bool {
	for _, a := range v.Apps() {
		if a.Finished() {
			continue
		}
		for _, c := range a.Count {
			if c.Pending > 0 {
				return true
			}
		}
	}
	return false
}
