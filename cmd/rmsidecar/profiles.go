package main

import (
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/rmsidecar/rmsidecar/profiles"
)

func newProfilesCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "profiles",
		Short: "Export or import what the policies have learned",
		Long: `The profiles store keeps what policies learn (SAMR stage weights, ERUL node
capabilities, TMaR execution-time matrices, classifier state) so a restart does
not start from zero. These commands move it as a JSON document (docs/profiles.md).
The store file is the config's profiles.path unless --store names another.`,
	}
	var store string
	cmd.PersistentFlags().StringVar(&store, "store", "", "profiles store file (default: config profiles.path)")
	storePath := func() (string, error) {
		if store != "" {
			return store, nil
		}
		cfg, err := a.loadConfig()
		if err != nil {
			return "", err
		}
		return cfg.Profiles.Path, nil
	}
	export := &cobra.Command{
		Use:   "export [FILE|-]",
		Short: "Write every learned record as JSON (default: stdout)",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			path, err := storePath()
			if err != nil {
				return err
			}
			if _, err := os.Stat(path); err != nil {
				return badInput("profiles store %s: %v", path, err)
			}
			db, err := profiles.Open(path, profiles.Options{ReadOnly: true})
			if err != nil {
				return err
			}
			defer db.Close()
			out, closeOut, err := createOutput(argOr(args, "-"), a.io.out)
			if err != nil {
				return err
			}
			if err := db.Export(cmd.Context(), out); err != nil {
				closeOut()
				return err
			}
			return closeOut()
		},
	}
	imp := &cobra.Command{
		Use:   "import [FILE|-]",
		Short: "Load records from a JSON export into the store (default: stdin)",
		Long:  "Import validates the whole document first (errors name the record and field) and then writes it in one transaction: all or nothing.",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			path, err := storePath()
			if err != nil {
				return err
			}
			var in io.Reader = a.io.in
			name := argOr(args, "-")
			if name != "-" {
				f, err := os.Open(name)
				if err != nil {
					return badInput("%v", err)
				}
				defer f.Close()
				in = f
			}
			db, err := profiles.Open(path, profiles.Options{})
			if err != nil {
				return err
			}
			defer db.Close()
			if err := db.Import(cmd.Context(), in); err != nil {
				return badInput("%s: %v", name, err)
			}
			_, err = fmt.Fprintf(a.io.err, "imported %s into %s\n", name, path)
			return err
		},
	}
	cmd.AddCommand(export, imp)
	return cmd
}

func argOr(args []string, def string) string {
	if len(args) > 0 {
		return args[0]
	}
	return def
}
