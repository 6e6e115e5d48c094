package cli

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vibe-science/vibe/db"
	"github.com/vibe-science/vibe/internal/store"
)

type fakeClaude struct {
	installed bool
	calls     []string
}

func (c *fakeClaude) exec(_ context.Context, name string, args ...string) (string, error) {
	line := name + " " + strings.Join(args, " ")
	c.calls = append(c.calls, line)
	switch {
	case line == "claude plugin list":
		if c.installed {
			return "vibe@vibe-local (enabled)\n", nil
		}
		return "no plugins\n", nil
	case strings.HasPrefix(line, "claude plugin install"):
		c.installed = true
	}
	return "", nil
}

func setupFactory(t *testing.T, claude *fakeClaude) (*Factory, *bytes.Buffer, string) {
	t.Helper()
	home := t.TempDir()
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, "bin"), 0o755)
	for _, b := range HookBinaries {
		os.WriteFile(filepath.Join(root, "bin", b), []byte("#!/bin/sh\n"), 0o755)
	}
	var out bytes.Buffer
	env := map[string]string{"VIBE_HOME": home, "HOME": home, "VIBE_WORKER": "off"}
	f := &Factory{IO: IO{Out: &out, ErrOut: &bytes.Buffer{}}, Now: time.Now, Getenv: func(k string) string { return env[k] }, Root: root,
		LookPath: func(string) (string, error) { return "", errors.New("not found") }}
	if claude != nil {
		f.LookPath = func(string) (string, error) { return "/usr/bin/claude", nil }
		f.Exec = claude.exec
	}
	t.Cleanup(f.Close)
	return f, &out, home
}

// TestForensicB3: setup creates the folders and the database at the latest
// schema, checks the binaries, and without the claude CLI says exactly how
// to register; a second run changes nothing.
func TestForensicB3(t *testing.T) {
	f, out, home := setupFactory(t, nil)
	if err := runSetup(context.Background(), &SetupOptions{IO: f.IO, Factory: f}); err != nil {
		t.Fatalf("setup: %v\n%s", err, out)
	}
	for _, d := range []string{"db", "logs", "models"} {
		if info, err := os.Stat(filepath.Join(home, d)); err != nil || !info.IsDir() {
			t.Errorf("folder %s: %v", d, err)
		}
	}
	st, err := store.Open(context.Background(), filepath.Join(home, "db", "vibe-science.db"), store.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := st.Version(context.Background()); v != db.Latest() {
		t.Errorf("schema %d, want %d", v, db.Latest())
	}
	st.Close()
	want := []string{"ok   folders", "ok   database", "ok   binaries", "note worker    not started (VIBE_WORKER=off)",
		"note plugin    not registered: the claude CLI is not on PATH",
		"fix: install Claude Code, then run: claude plugin marketplace add " + f.Root + " && claude plugin install vibe@vibe-local"}
	for _, w := range want {
		if !strings.Contains(out.String(), w) {
			t.Errorf("output lacks %q:\n%s", w, out)
		}
	}
	first := out.String()
	out.Reset()
	f.Close()
	if err := runSetup(context.Background(), &SetupOptions{IO: f.IO, Factory: f}); err != nil || out.String() != first {
		t.Errorf("second run differs or fails: %v\n%s", err, out)
	}
}

func TestSetupRegistersThroughClaude(t *testing.T) {
	claude := &fakeClaude{}
	f, out, _ := setupFactory(t, claude)
	if err := runSetup(context.Background(), &SetupOptions{IO: f.IO, Factory: f}); err != nil {
		t.Fatalf("setup: %v\n%s", err, out)
	}
	want := []string{"claude plugin list", "claude plugin marketplace add " + f.Root, "claude plugin install vibe@vibe-local"}
	if strings.Join(claude.calls, "|") != strings.Join(want, "|") {
		t.Errorf("calls %q, want %q", claude.calls, want)
	}
	claude.calls = nil
	out.Reset()
	if err := runSetup(context.Background(), &SetupOptions{IO: f.IO, Factory: f}); err != nil {
		t.Fatal(err)
	}
	if strings.Join(claude.calls, "|") != "claude plugin list" || !strings.Contains(out.String(), "ok   plugin    vibe@vibe-local is installed") {
		t.Errorf("second run: calls %q\n%s", claude.calls, out)
	}
}

func TestSetupReportsMissingBinaries(t *testing.T) {
	f, out, _ := setupFactory(t, nil)
	os.Remove(filepath.Join(f.Root, "bin", "vibe-pre-tool-use"))
	err := runSetup(context.Background(), &SetupOptions{IO: f.IO, Factory: f})
	if err == nil || !strings.Contains(out.String(), "FAIL binaries  missing in "+filepath.Join(f.Root, "bin")+": vibe-pre-tool-use") ||
		!strings.Contains(out.String(), "fix: run `make build` in "+f.Root) {
		t.Errorf("err %v\n%s", err, out)
	}
}
