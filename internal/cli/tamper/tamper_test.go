package tamper

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
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
