package main

import (
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"
)

func newVersionCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version of rmsidecar and of its schemas",
		Long:  "Print the rmsidecar version, the Go toolchain it was built with, and the schema versions it reads and writes (events v1, hints v1, results v1).",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			_, err := fmt.Fprintf(a.io.out, "rmsidecar %s\n", versionLine())
			return err
		},
	}
}

// versionLine is what --version prints.
func versionLine() string {
	return fmt.Sprintf("%s (%s, %s/%s) events v1, hints v1, results v1", buildVersion(), runtime.Version(), runtime.GOOS, runtime.GOARCH)
}

// buildVersion is the version stamped by make (-X main.version), else the
// VCS revision Go records when building in a git checkout (go build, go
// install), else "dev".
func buildVersion() string {
	if version != "dev" {
		return version
	}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return version
	}
	return versionFromBuildInfo(info, version)
}

func versionFromBuildInfo(info *debug.BuildInfo, fallback string) string {
	if v := info.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	var rev, modified string
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			modified = s.Value
		}
	}
	if rev == "" {
		return fallback
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if modified == "true" {
		rev += "-dirty"
	}
	return rev
}
