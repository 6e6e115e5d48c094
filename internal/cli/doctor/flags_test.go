package doctor

import (
	"testing"

	"github.com/spf13/cobra"

	"github.com/vibe-science/vibe/internal/cli"
	"github.com/vibe-science/vibe/internal/cli/clitest"
)

func TestNewCmdDoctorFlags(t *testing.T) {
	f, _, _ := clitest.New(t, clitest.Options{})
	clitest.Flags(t, func(runF func(*DoctorOptions) error) *cobra.Command { return NewCmdDoctor(f, runF) },
		func(o *DoctorOptions) {
			o.IO, o.Paths, o.Getenv, o.Exec, o.LookPath, o.OpenDB, o.FindProject = cli.IO{}, nil, nil, nil, nil, nil, nil
			o.Root, o.HeaderDirs, o.AskCodex = "", nil, nil
		},
		[]clitest.FlagCase[DoctorOptions]{
			{Argv: nil, Want: DoctorOptions{}},
			{Argv: []string{"--json"}, Want: DoctorOptions{JSON: true}},
			{Argv: []string{"now"}, Err: `unknown command "now"`},
			{Argv: []string{"--fix"}, Err: "unknown flag: --fix"},
		})
}
