package export

import (
	"testing"

	"github.com/spf13/cobra"

	"github.com/vibe-science/vibe/internal/cli"
	"github.com/vibe-science/vibe/internal/cli/clitest"
)

func TestNewCmdExportFlags(t *testing.T) {
	f, _, _ := clitest.New(t, clitest.Options{})
	clitest.Flags(t, func(runF func(*ExportOptions) error) *cobra.Command { return NewCmdExport(f, runF) },
		func(o *ExportOptions) { o.IO, o.Store, o.FindProject, o.Now = cli.IO{}, nil, nil, nil },
		[]clitest.FlagCase[ExportOptions]{
			{Argv: nil, Want: ExportOptions{SpineLimit: 2000}},
			{Argv: []string{"-o", "-", "--project", "/p", "--spine-limit", "5"}, Want: ExportOptions{Output: "-", Project: "/p", SpineLimit: 5}},
			{Argv: []string{"--output", "rec.md"}, Want: ExportOptions{Output: "rec.md", SpineLimit: 2000}},
			{Argv: []string{"--spine-limit", "lots"}, Err: `invalid argument "lots" for "--spine-limit"`},
			{Argv: []string{"RECORD.md"}, Err: `unknown command "RECORD.md"`},
		})
}
