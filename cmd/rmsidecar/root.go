package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/mattn/go-isatty"
	"github.com/rs/zerolog"
	"github.com/spf13/cobra"

	"github.com/rmsidecar/rmsidecar/config"
)

// Exit codes of the contract: 0 ok, 1 runtime failure, 2 bad input or config.
const (
	exitOK      = 0
	exitFailure = 1
	exitBadUse  = 2
)

// inputError marks bad input or config: exit code 2.
type inputError struct{ err error }

func (e *inputError) Error() string { return e.err.Error() }
func (e *inputError) Unwrap() error { return e.err }

func badInput(format string, args ...any) error {
	return &inputError{err: fmt.Errorf(format, args...)}
}

// app carries what every command shares: streams, environment, global flags.
type app struct {
	io         stdio
	env        []string
	args       []string // the command line after the program name
	configFile string
	logLevel   string
	logFormat  string
	cmd        *cobra.Command
}

// loadConfig reads the configuration with the command's flags on top.
func (a *app) loadConfig(flags ...config.Flag) (*config.Config, error) {
	pf := a.cmd.Root().PersistentFlags()
	flags = append(flags,
		config.Flag{Key: "log.level", Flag: pf.Lookup("log-level")},
		config.Flag{Key: "log.format", Flag: pf.Lookup("log-format")},
	)
	cfg, err := config.Load(a.configFile, a.env, flags)
	if err != nil {
		return nil, &inputError{err: err}
	}
	return cfg, nil
}

// logger builds the zerolog logger: JSON by default, console on a TTY or
// with --log-format console.
func (a *app) logger(cfg *config.Config) zerolog.Logger {
	return newLogger(a.io.err, cfg.Log.Level, cfg.Log.Format, isTerminal(a.io.err))
}

func newLogger(w io.Writer, level, format string, tty bool) zerolog.Logger {
	lvl, err := zerolog.ParseLevel(level)
	if err != nil {
		lvl = zerolog.InfoLevel
	}
	if format == "console" || (format == "auto" && tty) {
		w = zerolog.ConsoleWriter{Out: w, TimeFormat: "15:04:05.000", NoColor: !tty}
	}
	return zerolog.New(w).Level(lvl).With().Timestamp().Logger()
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && (isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd()))
}

func newRootCmd(a *app) *cobra.Command {
	root := &cobra.Command{
		Use:     "rmsidecar",
		Version: versionLine(),
		Short:   "Scheduler sidecar for an unmodified Hadoop YARN cluster",
		Long: `rmsidecar consumes container, task, application and node events of a YARN
cluster, keeps a live model of the cluster, runs research scheduling policies
(DynamicMR, SAMR, ERUL/exMCP, TMaR, a learning scheduler, and the stock YARN,
Hadoop and LATE baselines) over it, and emits hints: speculate, kill, place,
ratio, node capacity, node class, reduce binding, priority.

The same policies run in a deterministic simulator, so a policy can be measured
against stock YARN on a trace before it touches a cluster.

Configuration: built-in defaults < --config YAML < RMSIDECAR_* environment
variables < flags. Exit codes: 0 ok, 1 runtime failure, 2 bad input or config.`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetVersionTemplate("rmsidecar {{.Version}}\n")
	root.SetIn(a.io.in)
	root.SetOut(a.io.out)
	root.SetErr(a.io.err)
	pf := root.PersistentFlags()
	pf.StringVar(&a.configFile, "config", "", "YAML config file (see config/example.yaml)")
	pf.StringVar(&a.logLevel, "log-level", "info", "log level: trace, debug, info, warn, error")
	pf.StringVar(&a.logFormat, "log-format", "auto", "log format: auto (console on a terminal, else json), json, console")
	root.PersistentPreRun = func(cmd *cobra.Command, _ []string) { a.cmd = cmd }
	root.AddCommand(
		newVersionCmd(a),
		newReplayCmd(a),
		newProfilesCmd(a),
		newRunCmd(a),
		newBenchCmd(a),
		newSimCmd(a),
		newBridgeCmd(a),
	)
	return root
}

// execute runs the command line and maps errors to exit codes.
func execute(ctx context.Context, args []string, io stdio, env []string) int {
	a := &app{io: io, env: env, args: args}
	root := newRootCmd(a)
	a.cmd = root
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return exitOK
	}
	fmt.Fprintf(io.err, "rmsidecar: %v\n", err)
	var ie *inputError
	if errors.As(err, &ie) || isUsageError(err) {
		return exitBadUse
	}
	return exitFailure
}

// isUsageError recognises cobra's own flag and argument errors.
func isUsageError(err error) bool {
	msg := err.Error()
	for _, p := range []string{"unknown flag", "unknown shorthand flag", "unknown command", "flag needs an argument",
		"invalid argument", "accepts ", "requires at least", "required flag", "if any flags in the group",
		"at least one of the flags in the group"} {
		if strings.Contains(msg, p) {
			return true
		}
	}
	return false
}
