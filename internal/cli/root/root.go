package root

import (
	"github.com/spf13/cobra"

	"github.com/vibe-science/vibe/internal/buildinfo"
	"github.com/vibe-science/vibe/internal/cli"
	"github.com/vibe-science/vibe/internal/cli/alerts"
	"github.com/vibe-science/vibe/internal/cli/brief"
	"github.com/vibe-science/vibe/internal/cli/calibration"
	"github.com/vibe-science/vibe/internal/cli/doctor"
	"github.com/vibe-science/vibe/internal/cli/domain"
	"github.com/vibe-science/vibe/internal/cli/export"
	"github.com/vibe-science/vibe/internal/cli/gate"
	"github.com/vibe-science/vibe/internal/cli/initcmd"
	"github.com/vibe-science/vibe/internal/cli/integrity"
	"github.com/vibe-science/vibe/internal/cli/literature"
	"github.com/vibe-science/vibe/internal/cli/memory"
	"github.com/vibe-science/vibe/internal/cli/model"
	"github.com/vibe-science/vibe/internal/cli/permissions"
	"github.com/vibe-science/vibe/internal/cli/seeds"
	"github.com/vibe-science/vibe/internal/cli/session"
	"github.com/vibe-science/vibe/internal/cli/setup"
	"github.com/vibe-science/vibe/internal/cli/status"
	"github.com/vibe-science/vibe/internal/cli/tamper"
	"github.com/vibe-science/vibe/internal/cli/ui"
	"github.com/vibe-science/vibe/internal/cli/version"
	"github.com/vibe-science/vibe/internal/cli/worker"
)

// NewRootCmd builds the whole command tree.
func NewRootCmd(f *cli.Factory) *cobra.Command {
	root := cli.NewRoot(f)
	root.AddCommand(
		version.NewCmdVersion(f, nil),
		setup.NewCmdSetup(f, nil),
		setup.NewCmdUninstall(f, nil),
		status.NewCmdStatus(f, nil),
		doctor.NewCmdDoctor(f, nil),
		session.NewCmdSessions(f),
		session.NewCmdSpine(f, nil),
		permissions.NewCmdPermissions(f),
		initcmd.NewCmdInit(f, nil),
		alerts.NewCmdAlerts(f),
		calibration.NewCmdCalibration(f, nil),
		seeds.NewCmdSeeds(f, nil),
		literature.NewCmdLiterature(f),
		integrity.NewCmdIntegrity(f),
		brief.NewCmdBrief(f),
		worker.NewCmdWorker(f),
		model.NewCmdModel(f),
		gate.NewCmdGate(f),
		domain.NewCmdDomain(f),
		memory.NewCmdRecall(f, nil),
		memory.NewCmdMemory(f),
		ui.NewCmdUI(f, nil),
		export.NewCmdExport(f, nil),
		NewCmdGenDocs(f),
		tamper.NewCmdTamper(f),
	)
	root.AddCommand(
		newTopicCmd("exit-codes", "What vibe's exit codes mean (0 ok, 1 check failed, 2 usage)", exitCodesHelp),
		newTopicCmd("environment", "The VIBE_* environment variables", environmentHelp),
	)
	root.Version = buildinfo.Version
	root.SetVersionTemplate(version.VersionLine() + "\n")
	// cobra would add the completion command at Execute, after finishTree.
	root.InitDefaultCompletionCmd()
	cli.FinishTree(root)
	return root
}

// Main runs the CLI and returns the exit code.
func Main(args []string, f *cli.Factory) int {
	return cli.Run(f, NewRootCmd(f), args)
}
