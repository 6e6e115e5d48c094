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

// NewCmdTamper builds `vibe tamper accept`, `vibe tamper restore` and
// `vibe tamper pending`.
func NewCmdTamper(f *cli.Factory) *cobra.Command {
	cmd := &cobra.Command{Use: "tamper", Short: "Manage the snapshots of protected files that vibe restores after forbidden changes"}
	cmd.AddCommand(NewCmdTamperAccept(f, nil), NewCmdTamperRestore(f, nil), NewCmdTamperPending(f, nil))
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
	rels, err := relPaths(proj, o.Paths, o.IO)
	if err != nil {
		return err
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

// relPaths makes the paths a person typed project-relative.
func relPaths(proj project.Project, paths []string, io cli.IO) ([]string, error) {
	var rels []string
	for _, p := range paths {
		abs, err := filepath.Abs(p)
		if err != nil {
			return nil, err
		}
		if real, err := filepath.EvalSymlinks(filepath.Dir(abs)); err == nil {
			abs = filepath.Join(real, filepath.Base(abs))
		}
		rel := proj.Rel(abs)
		if filepath.IsAbs(rel) {
			return nil, &cli.UsageError{Err: fmt.Errorf("%s is outside the project %s; run the command inside the project or give --project", p, proj.Root)}
		}
		if _, err := os.Lstat(abs); err != nil {
			fmt.Fprintf(io.ErrOut, "%s does not exist here\n", rel)
		}
		rels = append(rels, rel)
	}
	return rels, nil
}

// TamperRestoreOptions are the flags of `vibe tamper restore`.
type TamperRestoreOptions struct {
	IO        cli.IO
	VibePaths func() config.Paths
	Now       func() time.Time

	Project string
	Paths   []string
}

// NewCmdTamperRestore builds `vibe tamper restore [PATH...]`.
func NewCmdTamperRestore(f *cli.Factory, runF func(*TamperRestoreOptions) error) *cobra.Command {
	opts := &TamperRestoreOptions{IO: f.IO, VibePaths: f.Paths, Now: f.Now}
	cmd := &cobra.Command{
		Use:   "restore [PATH...]",
		Short: "Put back the earlier version of protected files changed outside any tool call",
		Long: "A protected file changed while no tool call ran (by you, an editor, another program) is kept as it is\n" +
			"and listed by `vibe tamper pending`. restore puts back the version from before that change (what stands\n" +
			"there now is moved to VIBE_HOME/tamper/quarantine); with no paths, every pending change.",
		Example: "  vibe tamper restore .vibe-science/RQ-001/05-reviewer2/R2-003.md\n  vibe tamper restore",
		RunE: func(_ *cobra.Command, args []string) error {
			opts.Paths = args
			if runF != nil {
				return runF(opts)
			}
			return runTamperRestore(opts)
		},
	}
	cmd.Flags().StringVar(&opts.Project, "project", "", "project folder (default: the current one)")
	return cmd
}

func runTamperRestore(o *TamperRestoreOptions) error {
	proj := project.Resolve(o.Project)
	rels, err := relPaths(proj, o.Paths, o.IO)
	if err != nil {
		return err
	}
	done, err := tamper.New(tamper.Options{Home: o.VibePaths().Home}).Restore(proj.Root, rels, o.Now())
	for _, d := range done {
		fmt.Fprintln(o.IO.Out, d)
	}
	if err != nil {
		return err
	}
	if len(done) == 0 {
		fmt.Fprintln(o.IO.ErrOut, "nothing to restore: no change made outside a tool call is pending at those paths (`vibe tamper pending` lists them)")
		return nil
	}
	fmt.Fprintf(o.IO.ErrOut, "restored %d to the version before the change\n", len(done))
	return nil
}

// TamperPendingOptions are the flags of `vibe tamper pending`.
type TamperPendingOptions struct {
	IO        cli.IO
	VibePaths func() config.Paths

	Project string
	JSON    bool
}

// NewCmdTamperPending builds `vibe tamper pending`.
func NewCmdTamperPending(f *cli.Factory, runF func(*TamperPendingOptions) error) *cobra.Command {
	opts := &TamperPendingOptions{IO: f.IO, VibePaths: f.Paths}
	cmd := &cobra.Command{
		Use:   "pending",
		Short: "List protected files changed outside any tool call, waiting for you to accept or restore them",
		Args:  cobra.NoArgs,
		RunE: func(_ *cobra.Command, _ []string) error {
			if runF != nil {
				return runF(opts)
			}
			return runTamperPending(opts)
		},
	}
	cmd.Flags().StringVar(&opts.Project, "project", "", "project folder (default: the current one)")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print JSON")
	return cmd
}

func runTamperPending(o *TamperPendingOptions) error {
	proj := project.Resolve(o.Project)
	pend, err := tamper.New(tamper.Options{Home: o.VibePaths().Home}).Pending(proj.Root)
	if err != nil {
		return err
	}
	if o.JSON {
		if pend == nil {
			pend = []tamper.Pending{}
		}
		return cli.WriteJSON(o.IO.Out, pend)
	}
	if len(pend) == 0 {
		fmt.Fprintln(o.IO.ErrOut, "no protected file changed outside a tool call is waiting for a decision")
		return nil
	}
	for _, p := range pend {
		fmt.Fprintf(o.IO.Out, "%-12s  %s\n", p.Change, p.Path)
	}
	fmt.Fprintln(o.IO.ErrOut, "keep a change: vibe tamper accept PATH; put the earlier version back: vibe tamper restore PATH")
	return nil
}
