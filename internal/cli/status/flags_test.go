package status

import (
	"testing"

	"github.com/spf13/cobra"

	"github.com/vibe-science/vibe/internal/cli"
	"github.com/vibe-science/vibe/internal/cli/clitest"
)

func TestNewCmdStatusFlags(t *testing.T) {
	f, _, _ := clitest.New(t, clitest.Options{})
	clitest.Flags(t, func(runF func(*StatusOptions) error) *cobra.Command { return NewCmdStatus(f, runF) },
		func(o *StatusOptions) {
			o.IO, o.Paths, o.Store, o.ProjectRoot, o.Getenv, o.Root = cli.IO{}, nil, nil, nil, nil, ""
		},
		[]clitest.FlagCase[StatusOptions]{
			{Argv: nil, Want: StatusOptions{}},
			{Argv: []string{"--project", "/p", "--json"}, Want: StatusOptions{Project: "/p", JSON: true}},
			{Argv: []string{"--all"}, Want: StatusOptions{All: true}},
			{Argv: []string{"here"}, Err: `unknown command "here"`},
		})
}

// TestNewCmdStatusWiresEveryDependency: NewCmdStatus fills each dependency
// from the factory.
func TestNewCmdStatusWiresEveryDependency(t *testing.T) {
	f, _, _ := clitest.New(t, clitest.Options{Env: map[string]string{"VIBE_MODEL_PULL": "off"}})
	o := clitest.Built(t, func(runF func(*StatusOptions) error) *cobra.Command { return NewCmdStatus(f, runF) })
	clitest.Wired(t, o)
	if o.Getenv("VIBE_MODEL_PULL") != "off" {
		t.Error("Getenv is not the factory's")
	}
}
