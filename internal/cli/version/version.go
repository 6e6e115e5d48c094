package version

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"

	"github.com/spf13/cobra"

	"github.com/vibe-science/vibe/db"
	"github.com/vibe-science/vibe/internal/buildinfo"
	"github.com/vibe-science/vibe/internal/cli"
)

// ManifestFile is the plugin's manifest under its root, which holds the
// version a release is tagged with and the plugin's bootstrap downloads.
const ManifestFile = ".claude-plugin/plugin.json"

// VersionOptions are the flags of `vibe version`.
type VersionOptions struct {
	IO cli.IO
	// Root is the plugin root whose manifest names the plugin's version.
	Root string
	JSON bool
}

// NewCmdVersion builds `vibe version`.
func NewCmdVersion(f *cli.Factory, runF func(*VersionOptions) error) *cobra.Command {
	opts := &VersionOptions{IO: f.IO, Root: f.Root}
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Print vibe's version, its schema version and the installed plugin's version",
		Long: `version prints the version of the vibe binaries, the database schema they speak and the Go
release that built them, then the version of the plugin they belong to (.claude-plugin/plugin.json in
the plugin folder, which the release archives are named after).`,
		Args: cobra.NoArgs,
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

// Plugin is the plugin a vibe binary belongs to.
type Plugin struct {
	Version string `json:"version"`
	Root    string `json:"root"`
	// Problem says why the version is unknown; empty when it is known.
	Problem string `json:"problem,omitempty"`
}

// PluginAt reads the manifest of the plugin at root.
func PluginAt(root string) Plugin {
	p := Plugin{Root: root}
	path := filepath.Join(root, filepath.FromSlash(ManifestFile))
	raw, err := os.ReadFile(path)
	if err != nil {
		p.Problem = "no plugin manifest at " + path
		return p
	}
	var m struct {
		Version string `json:"version"`
	}
	if err := json.Unmarshal(raw, &m); err != nil || m.Version == "" {
		p.Problem = path + " names no version"
		return p
	}
	p.Version = m.Version
	return p
}

func runVersion(o *VersionOptions) error {
	pl := PluginAt(o.Root)
	if o.JSON {
		return cli.WriteJSON(o.IO.Out, map[string]any{"version": buildinfo.Version, "schema": db.Latest(), "go": runtime.Version(),
			"plugin": pl})
	}
	fmt.Fprintln(o.IO.Out, VersionLine())
	if pl.Problem != "" {
		fmt.Fprintf(o.IO.Out, "plugin unknown (%s)\n", pl.Problem)
	} else {
		fmt.Fprintf(o.IO.Out, "plugin %s (%s)\n", pl.Version, pl.Root)
	}
	return nil
}

// VersionLine is what `vibe --version` prints, and the first line of
// `vibe version`.
func VersionLine() string {
	return fmt.Sprintf("vibe %s (schema %d, %s)", buildinfo.Version, db.Latest(), runtime.Version())
}
