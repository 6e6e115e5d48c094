package setup

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"

	"github.com/vibe-science/vibe/db"
	"github.com/vibe-science/vibe/internal/cli"
	"github.com/vibe-science/vibe/internal/cli/clitest"
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
			return "vibe@vibe-science (enabled)\n", nil
		}
		return "no plugins\n", nil
	case strings.HasPrefix(line, "claude plugin install"):
		c.installed = true
	case strings.HasPrefix(line, "claude plugin uninstall"):
		c.installed = false
	}
	return "", nil
}

func setupFactory(t *testing.T, claude *fakeClaude) (*cli.Factory, *bytes.Buffer, string) {
	t.Helper()
	home := t.TempDir()
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, "bin"), 0o755)
	for _, b := range HookBinaries {
		os.WriteFile(filepath.Join(root, "bin", b), []byte("#!/bin/sh\n"), 0o755)
	}
	var out bytes.Buffer
	env := map[string]string{"VIBE_HOME": home, "HOME": home, "VIBE_WORKER": "off"}
	f := &cli.Factory{IO: cli.IO{Out: &out, ErrOut: &bytes.Buffer{}}, Now: time.Now, Getenv: func(k string) string { return env[k] }, Root: root,
		LookPath: func(string) (string, error) { return "", errors.New("not found") }}
	if claude != nil {
		f.LookPath = func(string) (string, error) { return "/usr/bin/claude", nil }
		f.Exec = claude.exec
	}
	t.Cleanup(f.Close)
	return f, &out, home
}

// setupOpts are the Options `vibe setup argv...` runs with over f.
func setupOpts(t *testing.T, f *cli.Factory, argv ...string) *SetupOptions {
	return clitest.Built(t, func(runF func(*SetupOptions) error) *cobra.Command { return NewCmdSetup(f, runF) }, argv...)
}

// uninstallOpts are the Options `vibe uninstall argv...` runs with over f.
func uninstallOpts(t *testing.T, f *cli.Factory, argv ...string) *UninstallOptions {
	return clitest.Built(t, func(runF func(*UninstallOptions) error) *cobra.Command { return NewCmdUninstall(f, runF) }, argv...)
}

// TestForensicB3: setup creates the folders and the database at the latest
// schema, checks the binaries, and without the claude CLI says exactly how
// to register; a second run changes nothing.
func TestForensicB3(t *testing.T) {
	f, out, home := setupFactory(t, nil)
	if err := runSetup(context.Background(), setupOpts(t, f)); err != nil {
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
		"fix: install Claude Code, then run: claude plugin marketplace add " + f.Root + " && claude plugin install vibe@vibe-science"}
	for _, w := range want {
		if !strings.Contains(out.String(), w) {
			t.Errorf("output lacks %q:\n%s", w, out)
		}
	}
	first := out.String()
	out.Reset()
	f.Close()
	if err := runSetup(context.Background(), setupOpts(t, f)); err != nil || out.String() != first {
		t.Errorf("second run differs or fails: %v\n%s", err, out)
	}
}

func TestSetupRegistersThroughClaude(t *testing.T) {
	claude := &fakeClaude{}
	f, out, _ := setupFactory(t, claude)
	if err := runSetup(context.Background(), setupOpts(t, f)); err != nil {
		t.Fatalf("setup: %v\n%s", err, out)
	}
	want := []string{"claude plugin list", "claude plugin marketplace add " + f.Root, "claude plugin install vibe@vibe-science"}
	if strings.Join(claude.calls, "|") != strings.Join(want, "|") {
		t.Errorf("calls %q, want %q", claude.calls, want)
	}
	claude.calls = nil
	out.Reset()
	if err := runSetup(context.Background(), setupOpts(t, f)); err != nil {
		t.Fatal(err)
	}
	// Nothing changed: the registration is remembered, claude is not asked
	// (each `claude plugin list` cost 0.9-4 s).
	if len(claude.calls) != 0 || !strings.Contains(out.String(), "ok   plugin    vibe@vibe-science is installed (registered by vibe setup; nothing changed since)") {
		t.Errorf("second run: calls %q\n%s", claude.calls, out)
	}
}

// TestSetupRechecksWhenSomethingChanged: a rebuilt binary, --recheck, or a
// registration Claude Code no longer has make setup ask claude again.
func TestSetupRechecksWhenSomethingChanged(t *testing.T) {
	claude := &fakeClaude{}
	f, out, _ := setupFactory(t, claude)
	run := func(argv ...string) {
		t.Helper()
		claude.calls = nil
		out.Reset()
		o := setupOpts(t, f, argv...)
		if err := runSetup(context.Background(), o); err != nil {
			t.Fatalf("setup: %v\n%s", err, out)
		}
	}
	run()
	run()
	if len(claude.calls) != 0 {
		t.Fatalf("unchanged re-run asked claude: %q", claude.calls)
	}
	run("--recheck")
	if strings.Join(claude.calls, "|") != "claude plugin list" {
		t.Fatalf("--recheck: calls %q, want the list", claude.calls)
	}
	later := time.Now().Add(time.Hour)
	if err := os.Chtimes(filepath.Join(f.Root, "bin", "vibe-stop"), later, later); err != nil {
		t.Fatal(err)
	}
	run()
	if strings.Join(claude.calls, "|") != "claude plugin list" {
		t.Fatalf("after a rebuild: calls %q, want the list", claude.calls)
	}
	claude.installed = false
	run()
	if len(claude.calls) != 0 {
		t.Fatalf("stamp not refreshed after the recheck: %q", claude.calls)
	}
}

// TestSetupRerunIsFast: a re-run with claude installed and nothing changed
// stays well under a second (the README promises it).
func TestSetupRerunIsFast(t *testing.T) {
	claude := &fakeClaude{}
	f, out, _ := setupFactory(t, claude)
	slow := func(ctx context.Context, name string, args ...string) (string, error) {
		time.Sleep(2 * time.Second) // what a real `claude plugin list` costs at worst
		return claude.exec(ctx, name, args...)
	}
	if err := runSetup(context.Background(), setupOpts(t, f)); err != nil {
		t.Fatal(err)
	}
	o := setupOpts(t, f)
	o.Exec = slow
	start := time.Now()
	if err := runSetup(context.Background(), o); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if d := time.Since(start); d > time.Second {
		t.Fatalf("re-run took %v", d)
	}
}

// TestUninstall: unregisters the plugin, stops the worker, forgets the
// registration stamp and keeps the data; --purge removes VIBE_HOME.
func TestUninstall(t *testing.T) {
	claude := &fakeClaude{}
	f, out, home := setupFactory(t, claude)
	if err := runSetup(context.Background(), setupOpts(t, f)); err != nil {
		t.Fatal(err)
	}
	claude.calls = nil
	out.Reset()
	f.Close()
	if err := runUninstall(context.Background(), uninstallOpts(t, f)); err != nil {
		t.Fatalf("uninstall: %v\n%s", err, out)
	}
	want := []string{"claude plugin uninstall vibe@vibe-science", "claude plugin marketplace remove vibe-science"}
	if strings.Join(claude.calls, "|") != strings.Join(want, "|") {
		t.Errorf("calls %q, want %q", claude.calls, want)
	}
	for _, w := range []string{"ok   plugin    vibe@vibe-science uninstalled", "ok   worker    not running",
		"ok   data      kept in " + home + " (`vibe uninstall --purge` removes it)"} {
		if !strings.Contains(out.String(), w) {
			t.Errorf("output lacks %q:\n%s", w, out)
		}
	}
	if _, err := os.Stat(filepath.Join(home, "db", "vibe-science.db")); err != nil {
		t.Errorf("the database is gone without --purge: %v", err)
	}
	out.Reset()
	claude.calls = nil
	if err := runUninstall(context.Background(), uninstallOpts(t, f, "--purge")); err != nil {
		t.Fatalf("uninstall --purge: %v\n%s", err, out)
	}
	if _, err := os.Stat(home); !os.IsNotExist(err) {
		t.Errorf("VIBE_HOME still there after --purge: %v", err)
	}
	if !strings.Contains(out.String(), "ok   data      removed "+home) {
		t.Errorf("output:\n%s", out)
	}
}

func TestSetupReportsMissingBinaries(t *testing.T) {
	f, out, _ := setupFactory(t, nil)
	os.Remove(filepath.Join(f.Root, "bin", "vibe-pre-tool-use"))
	err := runSetup(context.Background(), setupOpts(t, f))
	if err == nil || !strings.Contains(out.String(), "FAIL binaries  missing in "+filepath.Join(f.Root, "bin")+": vibe-pre-tool-use") ||
		!strings.Contains(out.String(), "fix: run `make build` in "+f.Root) {
		t.Errorf("err %v\n%s", err, out)
	}
}

// TestSetupReportsMissingBinariesOfAMarketplaceCopy: a plugin installed
// from a marketplace (plugin/bootstrap.sh and no .git) is filled by its
// bootstrap, not by make.
func TestSetupReportsMissingBinariesOfAMarketplaceCopy(t *testing.T) {
	f, out, _ := setupFactory(t, nil)
	os.Remove(filepath.Join(f.Root, "bin", "vibe-pre-tool-use"))
	boot := filepath.Join(f.Root, "plugin", "bootstrap.sh")
	os.MkdirAll(filepath.Dir(boot), 0o755)
	os.WriteFile(boot, []byte("#!/bin/sh\n"), 0o755)
	err := runSetup(context.Background(), setupOpts(t, f))
	if want := "     fix: run `sh " + boot + " install` (it downloads this version's release; docs/install.md)\n"; err == nil || !strings.Contains(out.String(), want) {
		t.Errorf("err %v\n%s\nwant %q", err, out, want)
	}
	out.Reset()
	os.Mkdir(filepath.Join(f.Root, ".git"), 0o755)
	runSetup(context.Background(), setupOpts(t, f))
	if !strings.Contains(out.String(), "fix: run `make build` in "+f.Root) {
		t.Errorf("a git checkout is built, not downloaded:\n%s", out)
	}
}

// TestMakeLink: `make install` ends with `make link`, which links bin/vibe
// into ~/.local/bin when that is on PATH and otherwise prints the exact
// PATH line (issue 16, finding 5: vibe was not on PATH and nothing said so).
func TestMakeLink(t *testing.T) {
	mk, err := exec.LookPath("make")
	if err != nil {
		t.Skip("make is not installed")
	}
	checkout, err := filepath.Abs(filepath.Join("..", "..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	run := func(home, path string) string {
		t.Helper()
		cmd := exec.Command(mk, "-s", "-C", checkout, "link")
		cmd.Env = []string{"HOME=" + home, "PATH=" + path}
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("make link: %v\n%s", err, out)
		}
		return string(out)
	}
	sysPath := os.Getenv("PATH")

	home := t.TempDir()
	local := filepath.Join(home, ".local", "bin")
	out := run(home, local+":"+sysPath)
	if target, err := os.Readlink(filepath.Join(local, "vibe")); err != nil || target != filepath.Join(checkout, "bin", "vibe") {
		t.Fatalf("link %q (%v), want it to point at %s; make said %q", target, err, filepath.Join(checkout, "bin", "vibe"), out)
	}
	if out != "==> linked "+filepath.Join(local, "vibe")+" -> "+filepath.Join(checkout, "bin", "vibe")+" (already on your PATH)\n" {
		t.Errorf("make said %q", out)
	}

	home = t.TempDir()
	out = run(home, sysPath)
	if _, err := os.Lstat(filepath.Join(home, ".local", "bin", "vibe")); !os.IsNotExist(err) {
		t.Errorf("linked although ~/.local/bin is not on PATH: %v", err)
	}
	want := "    export PATH=\"" + filepath.Join(checkout, "bin") + ":$PATH\"\n"
	if !strings.HasSuffix(out, want) {
		t.Errorf("make said %q, want the PATH line %q", out, want)
	}
}

// TestSetupReportsUnknownSettings: setup, which a user re-runs, fails on a
// config.json key vibe does not know, naming the nearest known one.
func TestSetupReportsUnknownSettings(t *testing.T) {
	f, out, home := setupFactory(t, nil)
	if err := os.WriteFile(filepath.Join(home, "config.json"), []byte(`{"observer_evry": 5}`), 0o644); err != nil {
		t.Fatal(err)
	}
	err := runSetup(context.Background(), setupOpts(t, f))
	if err == nil || cli.ExitCode(err) != 1 {
		t.Fatalf("err %v, want a failed setup (exit 1)", err)
	}
	want := "FAIL settings  " + filepath.Join(home, "config.json") + ": observer_evry: unknown key; did you mean observer_every?\n     fix: edit " + filepath.Join(home, "config.json") + "\n"
	if !strings.Contains(out.String(), want) {
		t.Errorf("setup printed:\n%s\nwant:\n%s", out, want)
	}
}
