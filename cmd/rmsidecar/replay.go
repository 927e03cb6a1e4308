package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/rs/zerolog"
	"github.com/spf13/cobra"

	"github.com/rmsidecar/rmsidecar/config"
	"github.com/rmsidecar/rmsidecar/engine"
	"github.com/rmsidecar/rmsidecar/events"
	"github.com/rmsidecar/rmsidecar/policy"
	"github.com/rmsidecar/rmsidecar/policy/plugins"
	"github.com/rmsidecar/rmsidecar/profiles"
)

type replayOptions struct {
	eventsFile   string
	policies     string
	hintsOut     string
	skipBad      string
	profilesPath string
	seed         uint64
	kafka        replayKafkaOptions
}

func newReplayCmd(a *app) *cobra.Command {
	var o replayOptions
	cmd := &cobra.Command{
		Use:   "replay --events FILE.jsonl [--policies STACKS] [--hints-out FILE|-]",
		Short: "Apply a recorded event log to an in-process engine and write the hints",
		Long: `replay reads an events v1 log (JSONL, one event per line), applies it to an
in-process engine running each policy stack, writes the hints (hints v1, JSONL)
to --hints-out and prints a summary of the resulting cluster state.

--policies takes a comma list of stacks; a stack composes policies with '+'
(e.g. "yarn,samr+sepb"); each stack replays the whole log on its own engine.
The default is the config's policies.stack.

A line that is not valid events v1 stops the replay with exit code 2 and a
message naming the file, the line and the field. With --skip-bad FILE, such
lines are written to FILE unchanged (so they can be fixed and replayed) and the
replay carries on; nothing is dropped silently. A line over 4 MiB is not
copied to FILE: it is counted and logged with its line number.

Learned profiles are kept in memory unless --profiles names a store file.`,
		Example: `  rmsidecar replay --events integration/testdata/sample-2jobs.jsonl --policies none --hints-out -
  rmsidecar replay --events run.jsonl --policies yarn,samr+sepb --hints-out hints.jsonl --skip-bad rejected.jsonl`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if o.kafka.brokers != "" {
				return runReplayKafka(cmd.Context(), a, o)
			}
			return runReplay(cmd.Context(), a, o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.eventsFile, "events", "", "events v1 JSONL log to replay (required; - for stdin)")
	f.StringVar(&o.policies, "policies", "", "comma list of policy stacks, e.g. none or yarn,samr+sepb (default: config policies.stack)")
	f.StringVar(&o.hintsOut, "hints-out", "-", "where to write hints v1 JSONL (- for stdout)")
	f.StringVar(&o.skipBad, "skip-bad", "", "write lines that fail to decode to this file and carry on (default: stop with exit 2)")
	f.StringVar(&o.profilesPath, "profiles", "", "profiles store file to load and update (default: in memory)")
	f.Uint64Var(&o.seed, "seed", 1, "seed for any randomness in policies")
	addReplayKafkaFlags(f, &o.kafka)
	_ = cmd.MarkFlagRequired("events")
	return cmd
}

func runReplay(ctx context.Context, a *app, o replayOptions) error {
	cfg, err := a.loadConfig()
	if err != nil {
		return err
	}
	log := a.logger(cfg)
	stackList := o.policies
	if stackList == "" {
		stackList = cfg.Policies.Stack
	}
	stacks, err := policy.ParseStacks(stackList)
	if err != nil {
		return badInput("--policies: %v", err)
	}
	if o.eventsFile == "-" && len(stacks) > 1 {
		return badInput("--events -: stdin can be replayed for one stack only, got %d", len(stacks))
	}

	var store interface {
		policy.ProfileStore
		Close() error
	} = profiles.NewMemory()
	if o.profilesPath != "" {
		db, err := profiles.Open(o.profilesPath, profiles.Options{})
		if err != nil {
			return fmt.Errorf("--profiles: %w", err)
		}
		store = db
	}
	defer store.Close()

	built, err := newRegistry().BuildStacks(context.Background(), stacks, policy.Handle{Args: config.PolicyArgs(cfg.Policies.Settings),
		Profiles: store, Log: log, Seed: o.seed})
	if err != nil {
		return badInput("--policies: %v", err)
	}

	out, closeOut, err := createOutput(o.hintsOut, a.io.out)
	if err != nil {
		return fmt.Errorf("--hints-out: %w", err)
	}
	hints := bufio.NewWriter(out)
	var skipped *os.File
	if o.skipBad != "" {
		if skipped, err = os.Create(o.skipBad); err != nil {
			return fmt.Errorf("--skip-bad: %w", err)
		}
		defer skipped.Close()
	}
	summaryTo := a.io.out
	if o.hintsOut == "-" {
		summaryTo = a.io.err // keep stdout pure JSONL
	}

	for i, st := range built {
		eng := engine.New(st, engine.Options{TickMS: cfg.Engine.Tick.Milliseconds(), Log: log,
			IDPrefix: fmt.Sprintf("%s-", st.Name())})
		var skipTo io.Writer
		if i == 0 && skipped != nil {
			skipTo = skipped // bad lines are the same for every stack: record them once
		}
		res, err := replayStream(ctx, o.eventsFile, a.io.in, eng, hints, skipTo, skipped != nil,
			events.NewHostAliases(cfg.Model.AliasPairs()), log)
		if err != nil {
			closeOut()
			return err
		}
		if err := eng.Flush(ctx); err != nil {
			log.Warn().Err(err).Msg("flushing learned profiles")
		}
		if err := hints.Flush(); err != nil {
			closeOut()
			return fmt.Errorf("--hints-out: %w", err)
		}
		printReplaySummary(summaryTo, o.eventsFile, st.Name(), res, eng)
	}
	return closeOut()
}

type replayResult struct {
	lines, applied, hints, skipped int
}

func replayStream(ctx context.Context, file string, stdin io.Reader, eng *engine.Engine, hints *bufio.Writer,
	skipTo io.Writer, skipBad bool, aliases events.HostAliases, log zerolog.Logger) (replayResult, error) {
	var res replayResult
	in := stdin
	if file != "-" {
		f, err := os.Open(file)
		if err != nil {
			return res, badInput("--events: %v", err)
		}
		defer f.Close()
		in = f
	}
	r := events.NewReader(in)
	for {
		if res.lines%1024 == 0 && ctx.Err() != nil {
			return res, ctx.Err()
		}
		ev, err := r.Next()
		res.lines = r.Line()
		if errors.Is(err, io.EOF) {
			return res, nil
		}
		var le *events.LineError
		if errors.As(err, &le) {
			if !skipBad {
				return res, badInput("%s: %v", file, le)
			}
			res.skipped++
			log.Warn().Str("file", file).Int("line", le.Line).Str("field", le.Field).Err(le.Err).Msg("skipping bad line")
			if skipTo != nil && le.Raw != nil { // a line over events.MaxLineBytes is not kept: the log names it
				if _, err := fmt.Fprintf(skipTo, "%s\n", le.Raw); err != nil {
					return res, fmt.Errorf("--skip-bad: %w", err)
				}
			}
			continue
		}
		if err != nil {
			return res, fmt.Errorf("%s: %w", file, err)
		}
		res.applied++
		aliases.Rewrite(&ev)
		for _, h := range eng.Apply(ctx, &ev) {
			b, err := json.Marshal(h)
			if err != nil {
				return res, fmt.Errorf("encode hint: %w", err)
			}
			hints.Write(b)
			if err := hints.WriteByte('\n'); err != nil {
				return res, fmt.Errorf("--hints-out: %w", err)
			}
			res.hints++
		}
	}
}

func printReplaySummary(w io.Writer, file, stack string, res replayResult, eng *engine.Engine) {
	st := eng.Stats()
	sum := eng.State().Summarize()
	fmt.Fprintf(w, "replay %s with stack %s: %d events applied, %d unchanged (duplicate or stale), %d bad lines skipped, %d hints\n",
		file, stack, st.Events, st.Unchanged, res.skipped, res.hints)
	fmt.Fprintf(w, "  nodes: %d (%d running, %d lost) on %d racks\n", sum.Nodes, sum.NodesRunning, sum.NodesLost, sum.Racks)
	fmt.Fprintf(w, "  apps:  %d (%d running, %d finished)\n", sum.Apps, sum.AppsRunning, sum.AppsFinished)
	fmt.Fprintf(w, "  tasks: %d running maps, %d running reduces, %d pending maps, %d pending reduces, %d succeeded\n",
		sum.RunningMaps, sum.RunningReduce, sum.PendingMaps, sum.PendingReduce, sum.Succeeded)
	fmt.Fprintf(w, "  containers running: %d\n", sum.Containers)
	for name, n := range st.Panics {
		fmt.Fprintf(w, "  policy %s panicked %d times (recovered)\n", name, n)
	}
}

// createOutput opens path for writing, or returns stdout for "-".
func createOutput(path string, stdout io.Writer) (io.Writer, func() error, error) {
	if path == "-" {
		return stdout, func() error { return nil }, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, nil, err
	}
	return f, f.Close, nil
}

// newRegistry is the registry of every built-in policy.
func newRegistry() policy.Registry { return plugins.NewRegistry() }
