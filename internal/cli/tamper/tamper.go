package tamper

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/vibe-science/vibe/internal/cli"
	"github.com/vibe-science/vibe/internal/config"
	"github.com/vibe-science/vibe/internal/project"
	"github.com/vibe-science/vibe/internal/tamper"
)

// NewCmdTamper builds `vibe tamper accept`.
func NewCmdTamper(f *cli.Factory) *cobra.Command {
	cmd := &cobra.Command{Use: "tamper", Short: "Manage the snapshots of protected files that vibe restores after forbidden changes"}
	cmd.AddCommand(NewCmdTamperAccept(f, nil))
	return cmd
}

// TamperAcceptOptions are the flags of `vibe tamper accept`.
type TamperAcceptOptions struct {
	IO        cli.IO
	VibePaths func() config.Paths
	Now       func() time.Time

	Project string
	Paths   []string
}

// NewCmdTamperAccept builds `vibe tamper accept [PATH...]`.
func NewCmdTamperAccept(f *cli.Factory, runF func(*TamperAcceptOptions) error) *cobra.Command {
	opts := &TamperAcceptOptions{IO: f.IO, VibePaths: f.Paths, Now: f.Now}
	cmd := &cobra.Command{
		Use:   "accept [PATH...]",
		Short: "Take protected files as they are now into the snapshot (after you changed them yourself)",
		Long: "vibe restores a protected file (claim ledger, reviews, raw data, policy, .claude/) that changed without an\n" +
			"allowed write, and moves new files in raw data aside. When you made the change yourself (a git pull, a\n" +
			"dataset copied into raw/, an edit in your editor), accept it: with paths, those files or folders; with\n" +
			"none, the whole project's snapshot is taken again.",
		Example: "  vibe tamper accept .vibe-science/RQ-001/02-data/raw/survey\n  vibe tamper accept",
		RunE: func(_ *cobra.Command, args []string) error {
			opts.Paths = args
			if runF != nil {
				return runF(opts)
			}
			return runTamperAccept(opts)
		},
	}
	cmd.Flags().StringVar(&opts.Project, "project", "", "project folder (default: the current one)")
	return cmd
}

func runTamperAccept(o *TamperAcceptOptions) error {
	proj := project.Resolve(o.Project)
	var rels []string
	for _, p := range o.Paths {
		abs, err := filepath.Abs(p)
		if err != nil {
			return err
		}
		if real, err := filepath.EvalSymlinks(filepath.Dir(abs)); err == nil {
			abs = filepath.Join(real, filepath.Base(abs))
		}
		rel := proj.Rel(abs)
		if filepath.IsAbs(rel) {
			return &cli.UsageError{Err: fmt.Errorf("%s is outside the project %s; run the command inside the project or give --project", p, proj.Root)}
		}
		if _, err := os.Lstat(abs); err != nil && len(o.Paths) > 0 {
			fmt.Fprintf(o.IO.ErrOut, "%s does not exist: it is dropped from the snapshot\n", rel)
		}
		rels = append(rels, rel)
	}
	done, err := tamper.New(tamper.Options{Home: o.VibePaths().Home}).Accept(proj.Root, rels, o.Now())
	if err != nil {
		return err
	}
	if len(done) == 0 {
		fmt.Fprintln(o.IO.ErrOut, "nothing to accept: no protected file at those paths")
		return nil
	}
	for _, d := range done {
		fmt.Fprintln(o.IO.Out, d)
	}
	fmt.Fprintf(o.IO.ErrOut, "accepted %d as they are now\n", len(done))
	return nil
}
