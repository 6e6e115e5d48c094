package tamper

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
	"github.com/vibe-science/vibe/internal/tamper"
)

func TestNewCmdTamperAcceptFlags(t *testing.T) {
	for _, c := range []struct {
		argv []string
		want TamperAcceptOptions
	}{
		{[]string{}, TamperAcceptOptions{}},
		{[]string{"a/b.csv", "c", "--project", "/p"}, TamperAcceptOptions{Paths: []string{"a/b.csv", "c"}, Project: "/p"}},
	} {
		f, _, _ := initTestFactory(t)
		var got *TamperAcceptOptions
		cmd := NewCmdTamperAccept(f, func(o *TamperAcceptOptions) error { got = o; return nil })
		cmd.SetArgs(c.argv)
		cmd.SetOut(&bytes.Buffer{})
		cmd.SetErr(&bytes.Buffer{})
		if err := cmd.Execute(); err != nil {
			t.Fatalf("%q: %v", c.argv, err)
		}
		got.IO, got.VibePaths, got.Now = cli.IO{}, nil, nil
		if len(got.Paths) == 0 {
			got.Paths = nil
		}
		if !reflect.DeepEqual(*got, c.want) {
			t.Errorf("%q: got %+v, want %+v", c.argv, *got, c.want)
		}
	}
}

func TestRunTamperAccept(t *testing.T) {
	f, out, errOut := initTestFactory(t)
	root, _ := filepath.EvalSymlinks(t.TempDir())
	ledger := filepath.Join(root, ".vibe-science", "RQ-001", "CLAIM-LEDGER.md")
	os.MkdirAll(filepath.Join(root, ".git"), 0o755)
	os.MkdirAll(filepath.Dir(ledger), 0o755)
	os.WriteFile(ledger, []byte("# ledger\n"), 0o644)
	g := tamper.New(tamper.Options{Home: f.Paths().Home})
	t0 := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	if _, err := g.Check(tamper.Call{Root: root, Now: t0}); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(ledger, []byte("# ledger, pulled from a colleague\n"), 0o644)
	o := &TamperAcceptOptions{IO: f.IO, VibePaths: f.Paths, Now: f.Now, Project: root, Paths: []string{ledger}}
	if err := runTamperAccept(o); err != nil {
		t.Fatal(err)
	}
	if out.String() != ".vibe-science/RQ-001/CLAIM-LEDGER.md\n" || errOut.String() != "accepted 1 as they are now\n" {
		t.Fatalf("stdout %q stderr %q", out, errOut)
	}
	rep, err := g.Check(tamper.Call{Root: root, AgentType: "vibe:judge", Tool: "Bash", Now: t0})
	if err != nil || len(rep.Findings) != 0 {
		t.Fatalf("after accept: %+v %v", rep.Findings, err)
	}
	o.Paths = []string{"/elsewhere/x"}
	if err := runTamperAccept(o); err == nil || cli.ExitCode(err) != 2 {
		t.Fatalf("outside path: %v", err)
	}
}

var initT0 = time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)

func initTestFactory(t *testing.T) (*cli.Factory, *bytes.Buffer, *bytes.Buffer) {
	return clitest.New(t, clitest.Options{Now: initT0})
}

func TestNewCmdTamperRestoreAndPendingFlags(t *testing.T) {
	f, _, _ := initTestFactory(t)
	var r *TamperRestoreOptions
	cmd := NewCmdTamperRestore(f, func(o *TamperRestoreOptions) error { r = o; return nil })
	cmd.SetArgs([]string{"a/b.md", "--project", "/p"})
	if err := cmd.Execute(); err != nil || !reflect.DeepEqual(r.Paths, []string{"a/b.md"}) || r.Project != "/p" {
		t.Fatalf("restore: %+v %v", r, err)
	}
	var p *TamperPendingOptions
	cmd = NewCmdTamperPending(f, func(o *TamperPendingOptions) error { p = o; return nil })
	cmd.SetArgs([]string{"--json", "--project", "/p"})
	if err := cmd.Execute(); err != nil || !p.JSON || p.Project != "/p" {
		t.Fatalf("pending: %+v %v", p, err)
	}
}

// TestRunTamperPendingThenRestore: a review a person edited between two
// calls is listed as pending, and restore puts the earlier version back.
func TestRunTamperPendingThenRestore(t *testing.T) {
	f, out, errOut := initTestFactory(t)
	root, _ := filepath.EvalSymlinks(t.TempDir())
	review := filepath.Join(root, ".vibe-science", "RQ-001", "05-reviewer2", "R2-001.md")
	os.MkdirAll(filepath.Join(root, ".git"), 0o755)
	os.MkdirAll(filepath.Dir(review), 0o755)
	os.WriteFile(review, []byte("verdict: REJECT\n"), 0o644)
	g := tamper.New(tamper.Options{Home: f.Paths().Home})
	t0 := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	g.Check(tamper.Call{Root: root, Now: t0})
	g.Begin(tamper.CallStart{Root: root, ToolUseID: "toolu_1", Tool: "Bash"})
	g.Check(tamper.Call{Root: root, Tool: "Bash", ToolUseID: "toolu_1", Now: t0})
	time.Sleep(20 * time.Millisecond) // the person's edit, well after the call on any clock
	os.WriteFile(review, []byte("verdict: ACCEPT\n"), 0o644)
	rep, err := g.Check(tamper.Call{Root: root, Tool: "Read", Now: t0})
	if err != nil || len(rep.Findings) != 1 || rep.Findings[0].Outcome != tamper.External {
		t.Fatalf("the person's edit: %+v %v", rep.Findings, err)
	}
	if err := runTamperPending(&TamperPendingOptions{IO: f.IO, VibePaths: f.Paths, Project: root, JSON: true}); err != nil {
		t.Fatal(err)
	}
	if want := `[{"path":".vibe-science/RQ-001/05-reviewer2/R2-001.md","change":"modified","set":"r2-reports"}]`; strings.Join(strings.Fields(out.String()), "") != want {
		t.Fatalf("pending --json: %s", out)
	}
	out.Reset()
	errOut.Reset()
	if err := runTamperRestore(&TamperRestoreOptions{IO: f.IO, VibePaths: f.Paths, Now: f.Now, Project: root}); err != nil {
		t.Fatal(err)
	}
	if out.String() != ".vibe-science/RQ-001/05-reviewer2/R2-001.md\n" || errOut.String() != "restored 1 to the version before the change\n" {
		t.Fatalf("stdout %q stderr %q", out, errOut)
	}
	if b, _ := os.ReadFile(review); string(b) != "verdict: REJECT\n" {
		t.Fatalf("after restore: %q", b)
	}
}
