package root

import (
	"github.com/spf13/cobra"

	"github.com/vibe-science/vibe/internal/buildinfo"
	"github.com/vibe-science/vibe/internal/cli"
	"github.com/vibe-science/vibe/internal/cli/alerts"
	"github.com/vibe-science/vibe/internal/cli/brief"
	"github.com/vibe-science/vibe/internal/cli/calibration"
	"github.com/vibe-science/vibe/internal/cli/citations"
	"github.com/vibe-science/vibe/internal/cli/decisions"
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
	"github.com/vibe-science/vibe/internal/cli/repro"
	"github.com/vibe-science/vibe/internal/cli/seeds"
	"github.com/vibe-science/vibe/internal/cli/session"
	"github.com/vibe-science/vibe/internal/cli/setup"
	"github.com/vibe-science/vibe/internal/cli/status"
	"github.com/vibe-science/vibe/internal/cli/tamper"
	"github.com/vibe-science/vibe/internal/cli/ui"
	"github.com/vibe-science/vibe/internal/cli/version"
	"github.com/vibe-science/vibe/internal/cli/worker"
)

// The groups `vibe --help` lists the commands in, in this order; what is
// in none (version, uninstall, help, completion) is listed last under
// "Additional Commands".
var groups = []*cobra.Group{
	{ID: "start", Title: "Getting started:"},
	{ID: "record", Title: "What vibe recorded and decided:"},
	{ID: "memory", Title: "Memory and recall:"},
	{ID: "rules", Title: "Rules and protected files:"},
}

// gettingStarted is the first thing `vibe --help` says.
const gettingStarted = `vibe enforces a research methodology on Claude Code through hooks, and lets you inspect and
search what it recorded.

Getting started: ` + "`vibe setup`" + ` once, then ` + "`vibe init`" + ` in a project, and start Claude Code there.
` + "`vibe status`" + ` says what vibe holds, ` + "`vibe decisions`" + ` what it denied, blocked, asked and warned,
and ` + "`vibe ui`" + ` opens the whole record in a browser. File formats: ` + "`vibe help formats`" + `.`

// NewRootCmd builds the whole command tree.
func NewRootCmd(f *cli.Factory) *cobra.Command {
	root := cli.NewRoot(f)
	root.Long = gettingStarted
	root.AddGroup(groups...)
	in := func(group string, cmds ...*cobra.Command) []*cobra.Command {
		for _, c := range cmds {
			c.GroupID = group
		}
		return cmds
	}
	root.AddCommand(in("start",
		setup.NewCmdSetup(f, nil),
		initcmd.NewCmdInit(f, nil),
		status.NewCmdStatus(f, nil),
		doctor.NewCmdDoctor(f, nil),
		ui.NewCmdUI(f, nil),
	)...)
	root.AddCommand(in("record",
		decisions.NewCmdDecisions(f, nil),
		session.NewCmdSessions(f),
		session.NewCmdSpine(f, nil),
		gate.NewCmdGate(f),
		alerts.NewCmdAlerts(f),
		seeds.NewCmdSeeds(f, nil),
		literature.NewCmdLiterature(f),
		citations.NewCmdCitations(f, nil),
		calibration.NewCmdCalibration(f, nil),
		integrity.NewCmdIntegrity(f),
		repro.NewCmdRepro(f, nil),
		export.NewCmdExport(f, nil),
	)...)
	root.AddCommand(in("memory",
		memory.NewCmdRecall(f, nil),
		memory.NewCmdMemory(f),
		model.NewCmdModel(f),
		worker.NewCmdWorker(f),
	)...)
	root.AddCommand(in("rules",
		permissions.NewCmdPermissions(f),
		domain.NewCmdDomain(f),
		brief.NewCmdBrief(f),
		tamper.NewCmdTamper(f),
	)...)
	root.AddCommand(
		version.NewCmdVersion(f, nil),
		setup.NewCmdUninstall(f, nil),
		NewCmdGenDocs(f),
	)
	root.AddCommand(
		newTopicCmd("exit-codes", "What vibe's exit codes mean (0 ok, 1 check failed, 2 usage)", exitCodesHelp),
		newTopicCmd("environment", "The VIBE_* environment variables", environmentHelp),
		newFormatsTopic(),
		newSchemasTopic(),
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
