package cli

import (
	"fmt"

	"github.com/spf13/cobra"
)

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
	root.Version = Version
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
