package main

import (
	"fmt"
	"runtime"

	"github.com/spf13/cobra"
)

func newVersionCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version of rmsidecar and of its schemas",
		Long:  "Print the rmsidecar version, the Go toolchain it was built with, and the schema versions it reads and writes (events v1, hints v1, results v1).",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			_, err := fmt.Fprintf(a.io.out, "rmsidecar %s (%s, %s/%s) events v1, hints v1, results v1\n",
				version, runtime.Version(), runtime.GOOS, runtime.GOARCH)
			return err
		},
	}
}
