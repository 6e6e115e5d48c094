package version

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/vibe-science/vibe/db"
	"github.com/vibe-science/vibe/internal/buildinfo"
	"github.com/vibe-science/vibe/internal/cli"
	"github.com/vibe-science/vibe/internal/cli/clitest"
)

func TestNewCmdVersionFlags(t *testing.T) {
	f, _, _ := clitest.New(t, clitest.Options{})
	f.Root = "/plugin"
	clitest.Flags(t, func(runF func(*VersionOptions) error) *cobra.Command { return NewCmdVersion(f, runF) },
		func(o *VersionOptions) { o.IO = cli.IO{} },
		[]clitest.FlagCase[VersionOptions]{
			{Argv: nil, Want: VersionOptions{Root: "/plugin"}},
			{Argv: []string{"--json"}, Want: VersionOptions{Root: "/plugin", JSON: true}},
			{Argv: []string{"--short"}, Err: "unknown flag: --short"},
			{Argv: []string{"1"}, Err: `unknown command "1"`},
		})
}

// TestRunVersion: the binaries' version line, then the plugin's version
// from the manifest under Root, or why it is unknown.
func TestRunVersion(t *testing.T) {
	old := buildinfo.Version
	buildinfo.Version = "1.2.3-test"
	t.Cleanup(func() { buildinfo.Version = old })
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, ".claude-plugin"), 0o755)
	os.WriteFile(filepath.Join(root, ".claude-plugin", "plugin.json"), []byte(`{"name":"vibe","version":"0.4.1"}`), 0o644)
	bad := t.TempDir()
	os.MkdirAll(filepath.Join(bad, ".claude-plugin"), 0o755)
	os.WriteFile(filepath.Join(bad, ".claude-plugin", "plugin.json"), []byte(`{"name":"vibe"}`), 0o644)
	line := fmt.Sprintf("vibe 1.2.3-test (schema %d, %s)\n", db.Latest(), runtime.Version())
	for _, c := range []struct {
		root string
		json bool
		want string
	}{
		{root: root, want: line + "plugin 0.4.1 (" + root + ")\n"},
		{root: bad, want: line + "plugin unknown (" + filepath.Join(bad, ".claude-plugin", "plugin.json") + " names no version)\n"},
		{root: "/nonexistent", want: line + "plugin unknown (no plugin manifest at /nonexistent/.claude-plugin/plugin.json)\n"},
		{root: root, json: true, want: fmt.Sprintf("{\n  \"go\": %q,\n  \"plugin\": {\n    \"version\": \"0.4.1\",\n    \"root\": %q\n  },\n  \"schema\": %d,\n  \"version\": \"1.2.3-test\"\n}\n",
			runtime.Version(), root, db.Latest())},
		{root: "/nonexistent", json: true, want: fmt.Sprintf("{\n  \"go\": %q,\n  \"plugin\": {\n    \"version\": \"\",\n    \"root\": \"/nonexistent\",\n    \"problem\": \"no plugin manifest at /nonexistent/.claude-plugin/plugin.json\"\n  },\n  \"schema\": %d,\n  \"version\": \"1.2.3-test\"\n}\n",
			runtime.Version(), db.Latest())},
	} {
		var out bytes.Buffer
		if err := runVersion(&VersionOptions{IO: cli.IO{Out: &out}, Root: c.root, JSON: c.json}); err != nil {
			t.Fatal(err)
		}
		if out.String() != c.want {
			t.Errorf("root %s json %v: got\n%s\nwant\n%s", c.root, c.json, out.String(), c.want)
		}
	}
	var out bytes.Buffer
	runVersion(&VersionOptions{IO: cli.IO{Out: &out}, Root: root})
	if first, _, _ := strings.Cut(out.String(), "\n"); VersionLine() != first {
		t.Errorf("--version prints %q, version's first line is %q: want the same", VersionLine(), first)
	}
}

// TestShippedManifestHasAVersion: the repository's plugin.json, read as
// `vibe version` reads it.
func TestShippedManifestHasAVersion(t *testing.T) {
	if p := PluginAt(filepath.Join("..", "..", "..")); p.Problem != "" || p.Version == "" {
		t.Errorf("%+v", p)
	}
}
