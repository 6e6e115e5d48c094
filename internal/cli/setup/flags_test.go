package setup

import (
	"testing"

	"github.com/spf13/cobra"

	"github.com/vibe-science/vibe/internal/cli"
	"github.com/vibe-science/vibe/internal/cli/clitest"
)

func TestNewCmdSetupFlags(t *testing.T) {
	f, _, _ := clitest.New(t, clitest.Options{})
	clitest.Flags(t, func(runF func(*SetupOptions) error) *cobra.Command { return NewCmdSetup(f, runF) },
		func(o *SetupOptions) {
			o.IO, o.Paths, o.Store, o.Getenv, o.Exec, o.LookPath, o.StartWorker, o.Root = cli.IO{}, nil, nil, nil, nil, nil, nil, ""
		},
		[]clitest.FlagCase[SetupOptions]{
			{Argv: nil, Want: SetupOptions{Model: &ModelOffer{Choice: ModelAsk}}},
			{Argv: []string{"--no-register", "--recheck", "--json"}, Want: SetupOptions{NoRegister: true, Recheck: true, JSON: true, Model: &ModelOffer{Choice: ModelAsk}}},
			{Argv: []string{"--client", "codex,gemini", "--remove"}, Want: SetupOptions{Clients: []string{"codex", "gemini"}, Remove: true, Model: &ModelOffer{Choice: ModelAsk}}},
			{Argv: []string{"--client", "codex", "--client", "claude"}, Want: SetupOptions{Clients: []string{"codex", "claude"}, Model: &ModelOffer{Choice: ModelAsk}}},
			{Argv: []string{"--model"}, Want: SetupOptions{Model: &ModelOffer{Choice: ModelYes}}},
			{Argv: []string{"--no-model"}, Want: SetupOptions{Model: &ModelOffer{Choice: ModelNo}}},
			{Argv: []string{"--model", "--no-model"}, Err: "--model downloads the embedding model and --no-model leaves it out: give one of them"},
			{Argv: []string{"again"}, Err: `unknown command "again"`},
		})
}

func TestNewCmdUninstallFlags(t *testing.T) {
	f, _, _ := clitest.New(t, clitest.Options{})
	clitest.Flags(t, func(runF func(*UninstallOptions) error) *cobra.Command { return NewCmdUninstall(f, runF) },
		func(o *UninstallOptions) {
			o.IO, o.Paths, o.Getenv, o.Exec, o.LookPath, o.CloseStore, o.StopWorker, o.Root = cli.IO{}, nil, nil, nil, nil, nil, nil, ""
		},
		[]clitest.FlagCase[UninstallOptions]{
			{Argv: nil, Want: UninstallOptions{}},
			{Argv: []string{"--purge", "--json"}, Want: UninstallOptions{Purge: true, JSON: true}},
			{Argv: []string{"--all"}, Err: "unknown flag: --all"},
		})
}
