package permissions

import (
	"testing"

	"github.com/spf13/cobra"

	"github.com/vibe-science/vibe/internal/cli"
	"github.com/vibe-science/vibe/internal/cli/clitest"
)

func TestNewCmdPermissionsFlags(t *testing.T) {
	f, _, _ := clitest.New(t, clitest.Options{})
	clitest.Flags(t, func(runF func(*PermissionsShowOptions) error) *cobra.Command { return NewCmdPermissionsShow(f, runF) },
		func(o *PermissionsShowOptions) { o.IO, o.FindProject = cli.IO{}, nil },
		[]clitest.FlagCase[PermissionsShowOptions]{
			{Argv: nil, Want: PermissionsShowOptions{}},
			{Argv: []string{"--project", "/p"}, Want: PermissionsShowOptions{Project: "/p"}},
			{Argv: []string{"reviewer2"}, Err: `unknown command "reviewer2"`},
		})
	clitest.Flags(t, func(runF func(*PermissionsCheckOptions) error) *cobra.Command { return NewCmdPermissionsCheck(f, runF) },
		func(o *PermissionsCheckOptions) { o.IO, o.FindProject = cli.IO{}, nil },
		[]clitest.FlagCase[PermissionsCheckOptions]{
			{Argv: []string{"--role", "reviewer2", "--path", "CLAIM-LEDGER.md"}, Want: PermissionsCheckOptions{Role: "reviewer2", Tool: "Write", Path: "CLAIM-LEDGER.md"}},
			{Argv: []string{"--agent-type", "vibe:judge", "--tool", "Bash", "--command", "echo x >> r.md", "--project", "/p", "--json"},
				Want: PermissionsCheckOptions{Agent: "vibe:judge", Tool: "Bash", Command: "echo x >> r.md", Project: "/p", JSON: true}},
			{Argv: []string{"--role", "lead"}, Err: "give --path or --command"},
			{Argv: []string{"--path", "x.md"}, Err: "give --role (or --agent-type as Claude Code sends it)"},
		})
}
