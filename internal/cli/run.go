package cli

import (
	"fmt"

	"github.com/spf13/cobra"
)

// NewRoot is the bare `vibe` command every tree hangs from (the whole one
// in cli/root, one noun's in tests): errors are left to Run, and a flag
// error is a usage error.
func NewRoot(f *Factory) *cobra.Command {
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
		return &UsageError{Err: fmt.Errorf("%w\nRun '%s --help' for usage.", FlagError(c, err), c.CommandPath())}
	})
	return root
}

// Run runs root with args, prints the error as "vibe: ..." on stderr and
// returns the exit code.
func Run(f *Factory, root *cobra.Command, args []string) int {
	defer f.Close()
	root.SetArgs(args)
	err := unknownWithHelp(root, args)
	if err == nil {
		err = root.Execute()
	}
	if err != nil {
		fmt.Fprintln(f.IO.ErrOut, "vibe:", err)
	}
	return ExitCode(err)
}
