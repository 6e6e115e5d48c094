package version

import (
	"fmt"
	"runtime"

	"github.com/spf13/cobra"

	"github.com/vibe-science/vibe/db"
	"github.com/vibe-science/vibe/internal/buildinfo"
	"github.com/vibe-science/vibe/internal/cli"
)

// VersionOptions are the flags of `vibe version`.
type VersionOptions struct {
	IO   cli.IO
	JSON bool
}

// NewCmdVersion builds `vibe version`.
func NewCmdVersion(f *cli.Factory, runF func(*VersionOptions) error) *cobra.Command {
	opts := &VersionOptions{IO: f.IO}
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Print vibe's version and schema version",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			if runF != nil {
				return runF(opts)
			}
			return runVersion(opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print JSON")
	return cmd
}

func runVersion(o *VersionOptions) error {
	if o.JSON {
		return cli.WriteJSON(o.IO.Out, map[string]any{"version": buildinfo.Version, "schema": db.Latest(), "go": runtime.Version()})
	}
	fmt.Fprintln(o.IO.Out, VersionLine())
	return nil
}

// VersionLine is what `vibe version` and `vibe --version` print.
func VersionLine() string {
	return fmt.Sprintf("vibe %s (schema %d, %s)", buildinfo.Version, db.Latest(), runtime.Version())
}
