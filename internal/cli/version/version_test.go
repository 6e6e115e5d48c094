package version

import (
	"bytes"
	"fmt"
	"runtime"
	"testing"

	"github.com/spf13/cobra"

	"github.com/vibe-science/vibe/db"
	"github.com/vibe-science/vibe/internal/buildinfo"
	"github.com/vibe-science/vibe/internal/cli"
	"github.com/vibe-science/vibe/internal/cli/clitest"
)

func TestNewCmdVersionFlags(t *testing.T) {
	f, _, _ := clitest.New(t, clitest.Options{})
	clitest.Flags(t, func(runF func(*VersionOptions) error) *cobra.Command { return NewCmdVersion(f, runF) },
		func(o *VersionOptions) { o.IO = cli.IO{} },
		[]clitest.FlagCase[VersionOptions]{
			{Argv: nil, Want: VersionOptions{}},
			{Argv: []string{"--json"}, Want: VersionOptions{JSON: true}},
			{Argv: []string{"--short"}, Err: "unknown flag: --short"},
			{Argv: []string{"1"}, Err: `unknown command "1"`},
		})
}

func TestRunVersion(t *testing.T) {
	old := buildinfo.Version
	buildinfo.Version = "1.2.3-test"
	t.Cleanup(func() { buildinfo.Version = old })
	var out bytes.Buffer
	if err := runVersion(&VersionOptions{IO: cli.IO{Out: &out}}); err != nil {
		t.Fatal(err)
	}
	if want := fmt.Sprintf("vibe 1.2.3-test (schema %d, %s)\n", db.Latest(), runtime.Version()); out.String() != want {
		t.Errorf("got %q, want %q", out.String(), want)
	}
	if got := VersionLine() + "\n"; got != out.String() {
		t.Errorf("--version prints %q, version %q: want the same line", got, out.String())
	}
	out.Reset()
	if err := runVersion(&VersionOptions{IO: cli.IO{Out: &out}, JSON: true}); err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("{\n  \"go\": %q,\n  \"schema\": %d,\n  \"version\": \"1.2.3-test\"\n}\n", runtime.Version(), db.Latest())
	if out.String() != want {
		t.Errorf("--json: got\n%s\nwant\n%s", out.String(), want)
	}
}
