package initcmd

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/vibe-science/vibe/internal/cli"
	"github.com/vibe-science/vibe/internal/cli/clitest"
)

func TestNewCmdInitFlags(t *testing.T) {
	cases := []struct {
		argv []string
		want InitOptions
	}{
		{[]string{}, InitOptions{}},
		{[]string{"--team"}, InitOptions{Team: true}},
		{[]string{"--rq", "off-target rates", "--domain", "crispr-off-target", "--project", "/p", "--json"},
			InitOptions{RQ: "off-target rates", Domain: "crispr-off-target", Project: "/p", JSON: true}},
	}
	for _, c := range cases {
		f, _, _ := initTestFactory(t)
		var got *InitOptions
		cmd := NewCmdInit(f, func(o *InitOptions) error { got = o; return nil })
		cmd.SetArgs(c.argv)
		cmd.SetOut(&bytes.Buffer{})
		cmd.SetErr(&bytes.Buffer{})
		if err := cmd.Execute(); err != nil {
			t.Fatalf("%q: %v", c.argv, err)
		}
		got.IO, got.Now = cli.IO{}, nil
		if !reflect.DeepEqual(*got, c.want) {
			t.Errorf("%q: got %+v, want %+v", c.argv, *got, c.want)
		}
	}
	f, _, _ := initTestFactory(t)
	cmd := NewCmdInit(f, func(*InitOptions) error { return nil })
	cmd.SetArgs([]string{"extra"})
	cmd.SetOut(&bytes.Buffer{})
	cmd.SetErr(&bytes.Buffer{})
	if err := cmd.Execute(); err == nil {
		t.Fatal("a positional argument was accepted")
	}
}

func TestRunInit(t *testing.T) {
	f, out, errOut := initTestFactory(t)
	root := filepath.Join(t.TempDir(), "proj")
	os.MkdirAll(root, 0o755)
	real, _ := filepath.EvalSymlinks(root)
	o := &InitOptions{IO: f.IO, Now: f.Now, Project: root}
	if err := runInit(o); err != nil {
		t.Fatal(err)
	}
	first := strings.ReplaceAll(out.String(), real, "<ROOT>")
	want := `initialised <ROOT> for research (RQ-001, domain generic, solo mode):
  created  .vibe-science/
  created  .vibe-science/RQ-001/
  created  .vibe-science/RQ-001/00-brainstorm/
  created  .vibe-science/RQ-001/01-discovery/
  created  .vibe-science/RQ-001/02-data/
  created  .vibe-science/RQ-001/02-data/raw/
  created  .vibe-science/RQ-001/02-data/processed/
  created  .vibe-science/RQ-001/03-analysis/
  created  .vibe-science/RQ-001/04-results/
  created  .vibe-science/RQ-001/05-reviewer2/
  created  .vibe-science/RQ-001/05-reviewer2/judge-reports/
  created  .vibe-science/RQ-001/07-audit/
  created  .vibe-science/RQ-001/08-tree/
  created  .vibe-science/ASSUMPTION-REGISTER.md
  created  .vibe-science/CLAIM-LEDGER.md
  created  .vibe-science/PROGRESS.md
  created  .vibe-science/SERENDIPITY.md
  created  .vibe-science/STATE.md
  created  .vibe-science/domain-config.json
  created  .vibe-science/.gitignore
  created  .vibe-science/RQ-001/DESIGN.md
  created  .vibe-science/RQ-001/RQ.md
  created  .vibe-science/RQ-001/02-data/DATA-DICTIONARY.md
  created  .vibe-science/RQ-001/04-results/FINDINGS.json
  created  .vibe-science/RQ-001/04-results/FINDINGS.md
next: write the research question in .vibe-science/RQ-001/RQ.md, then search the literature (/vibe:search).
`
	if first != want || errOut.Len() != 0 {
		t.Fatalf("first run:\n%s\nstderr %q", first, errOut)
	}

	out.Reset()
	if err := runInit(o); err != nil {
		t.Fatal(err)
	}
	second := strings.ReplaceAll(out.String(), real, "<ROOT>")
	if !strings.HasPrefix(second, "already initialised: nothing changed (<ROOT>)\n  exists   .vibe-science/\n") ||
		strings.Contains(second, "created") || strings.Count(second, "exists ") != 25 || strings.Contains(second, "next:") {
		t.Fatalf("second run:\n%s", second)
	}

	// TEAM mode added later: only permissions.json is new; the JSON form says so.
	out.Reset()
	o.Team, o.JSON = true, true
	if err := runInit(o); err != nil {
		t.Fatal(err)
	}
	j := strings.ReplaceAll(out.String(), real, "<ROOT>")
	if !strings.Contains(j, `"created": [
    ".vibe-science/permissions.json"
  ],`) || !strings.Contains(j, `"changed": true`) || !strings.Contains(j, `"mode": "team"`) || !strings.Contains(j, `"notes": []`) {
		t.Fatalf("json:\n%s", j)
	}
}

func TestRunInitNotesAndErrors(t *testing.T) {
	f, out, errOut := initTestFactory(t)
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, ".vibe-science"), 0o755)
	os.WriteFile(filepath.Join(root, ".vibe-science", "domain-config.json"), []byte(`{"domain": "generic"}`), 0o644)
	o := &InitOptions{IO: f.IO, Now: f.Now, Project: root, Domain: "particle-physics"}
	if err := runInit(o); err != nil {
		t.Fatal(err)
	}
	if errOut.String() != "note: .vibe-science/domain-config.json names domain \"generic\", not \"particle-physics\"; vibe init does not change it: edit its \"domain\" to switch\n" {
		t.Fatalf("stderr %q", errOut)
	}
	if !strings.HasPrefix(out.String(), "completed ") || !strings.Contains(out.String(), "created 23, kept 2 that existed (vibe init never overwrites):") {
		t.Fatalf("stdout %s", out)
	}

	o = &InitOptions{IO: f.IO, Now: f.Now, Project: t.TempDir(), Domain: "astrology"}
	err := runInit(o)
	if err == nil || cli.ExitCode(err) != 2 || !strings.Contains(err.Error(), `init: --domain: unknown domain "astrology"`) {
		t.Fatalf("bad domain: %v (exit %d)", err, cli.ExitCode(err))
	}
}

var initT0 = time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)

func initTestFactory(t *testing.T) (*cli.Factory, *bytes.Buffer, *bytes.Buffer) {
	return clitest.New(t, clitest.Options{Now: initT0})
}
