package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/vibe-science/vibe/internal/buildinfo"
	"github.com/vibe-science/vibe/internal/config"
	"github.com/vibe-science/vibe/internal/fault"
	"github.com/vibe-science/vibe/internal/store"
)

// IO are the streams a command writes to.
type IO struct {
	In     io.Reader
	Out    io.Writer
	ErrOut io.Writer
	// TTY reports whether Out is a terminal (tables and colour only then).
	TTY bool
	// Width is the terminal's width in columns (0: unknown, 80 is assumed).
	Width int
}

// Factory hands commands their dependencies, lazily.
type Factory struct {
	IO     IO
	Now    func() time.Time
	Getenv func(string) string
	// Exec runs an external program (the claude CLI); tests replace it.
	Exec func(ctx context.Context, name string, args ...string) (string, error)
	// LookPath finds an external program.
	LookPath func(string) (string, error)
	// Root is the plugin root (the checkout holding bin/, hooks.json).
	Root string

	st *store.Store
}

// Paths resolves VIBE_HOME.
func (f *Factory) Paths() config.Paths { return config.Resolve(f.Getenv) }

// Store opens the database once.
func (f *Factory) Store(ctx context.Context) (*store.Store, error) {
	if f.st != nil {
		return f.st, nil
	}
	st, err := store.Open(ctx, f.Paths().DB, store.Options{})
	if err != nil {
		return nil, err
	}
	f.st = st
	return st, nil
}

// Close releases what the factory opened.
func (f *Factory) Close() {
	if f.st != nil {
		f.st.Close()
		f.st = nil
	}
}

// PluginRoot guesses the plugin root: VIBE_PLUGIN_ROOT, else the folder
// above the running binary's bin/.
func PluginRoot(getenv func(string) string) string {
	if r := getenv("VIBE_PLUGIN_ROOT"); r != "" {
		return r
	}
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	if real, err := filepath.EvalSymlinks(exe); err == nil {
		exe = real
	}
	return filepath.Dir(filepath.Dir(exe))
}

// ExitCode is the one table from errors to the CLI's exit codes:
// 0 success, 1 a check failed or something went wrong, 2 usage.
func ExitCode(err error) int {
	if err == nil {
		return 0
	}
	var ue *usageError
	if errors.As(err, &ue) {
		return 2
	}
	switch fault.KindOf(err) {
	case fault.Invalid:
		return 2
	}
	return 1
}

type usageError struct{ err error }

func (u *usageError) Error() string { return u.err.Error() }
func (u *usageError) Unwrap() error { return u.err }

// NewRootCmd builds the whole command tree.
func NewRootCmd(f *Factory) *cobra.Command {
	root := &cobra.Command{
		Use:           "vibe",
		Short:         "Research discipline for Claude Code: gates, roles, memory",
		Long:          "vibe enforces a research methodology on Claude Code through hooks, and lets you inspect and search what it recorded.",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetOut(f.IO.Out)
	root.SetErr(f.IO.ErrOut)
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		//lint:ignore ST1005 printed as is: the flag error, then a sentence that says where the usage is
		return &usageError{fmt.Errorf("%w\nRun '%s --help' for usage.", flagError(err), c.CommandPath())}
	})
	root.AddCommand(
		NewCmdVersion(f, nil),
		NewCmdSetup(f, nil),
		NewCmdUninstall(f, nil),
		NewCmdStatus(f, nil),
		NewCmdDoctor(f, nil),
		NewCmdSessions(f),
		NewCmdSpine(f, nil),
		NewCmdPermissions(f),
		NewCmdInit(f, nil),
		NewCmdAlerts(f),
		NewCmdCalibration(f, nil),
		NewCmdSeeds(f, nil),
		NewCmdLiterature(f),
		NewCmdIntegrity(f),
		NewCmdBrief(f),
		NewCmdWorker(f),
		NewCmdModel(f),
		NewCmdGate(f),
		NewCmdDomain(f),
		NewCmdRecall(f, nil),
		NewCmdMemory(f),
		NewCmdUI(f, nil),
		NewCmdExport(f, nil),
		NewCmdGenDocs(f),
		NewCmdTamper(f),
	)
	root.AddCommand(
		newTopicCmd("exit-codes", "What vibe's exit codes mean (0 ok, 1 check failed, 2 usage)", exitCodesHelp),
		newTopicCmd("environment", "The VIBE_* environment variables", environmentHelp),
	)
	root.Version = buildinfo.Version
	root.SetVersionTemplate(versionLine() + "\n")
	// cobra would add the completion command at Execute, after finishTree.
	root.InitDefaultCompletionCmd()
	finishTree(root)
	return root
}

// Main runs the CLI and returns the exit code.
func Main(args []string, f *Factory) int {
	defer f.Close()
	root := NewRootCmd(f)
	root.SetArgs(args)
	err := root.Execute()
	if err != nil {
		fmt.Fprintln(f.IO.ErrOut, "vibe:", err)
	}
	return ExitCode(err)
}
