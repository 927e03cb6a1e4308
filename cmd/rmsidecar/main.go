// Command rmsidecar is a scheduler sidecar for an unmodified Hadoop YARN
// cluster: it consumes cluster events, runs research scheduling policies over
// a live model of the cluster and emits placement, speculation and capacity
// hints. Run `rmsidecar --help` for the commands.
package main

import (
	"context"
	"io"
	"os"
	"os/signal"
	"syscall"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := execute(ctx, os.Args[1:], stdio{in: os.Stdin, out: os.Stdout, err: os.Stderr}, os.Environ())
	stop()
	os.Exit(code)
}

// stdio are the streams a command uses; tests substitute buffers.
type stdio struct {
	in       io.Reader
	out, err io.Writer
}
