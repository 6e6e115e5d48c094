package setup

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vibe-science/vibe/db"
	"github.com/vibe-science/vibe/internal/cli"
	"github.com/vibe-science/vibe/internal/cli/clitest"
	"github.com/vibe-science/vibe/internal/config"
	"github.com/vibe-science/vibe/internal/store"
	"github.com/vibe-science/vibe/internal/worker/client"
)

// fakeInstall is a plugin root with every hook binary and the worker, and
// an environment (VIBE_HOME and HOME in one folder) tests may extend.
type fakeInstall struct {
	root, home string
	env        map[string]string
	out        bytes.Buffer
}

func newFakeInstall(t *testing.T) *fakeInstall {
	t.Helper()
	in := &fakeInstall{root: t.TempDir(), home: t.TempDir()}
	os.MkdirAll(filepath.Join(in.root, "bin"), 0o755)
	for _, b := range append(HookBinaries, client.BinaryName) {
		os.WriteFile(filepath.Join(in.root, "bin", b), []byte("#!/bin/sh\n"), 0o755)
	}
	in.env = map[string]string{"VIBE_HOME": in.home, "HOME": in.home}
	return in
}

func (in *fakeInstall) getenv(k string) string { return in.env[k] }
func (in *fakeInstall) paths() config.Paths    { return config.Resolve(in.getenv) }
func noClaude(string) (string, error)          { return "", errors.New("not found") }

// setupOptions are SetupOptions built without a factory: the store opens
// under VIBE_HOME (closed when the test ends), the claude CLI is not on the
// PATH, and starting the worker is the test's startWorker.
func (in *fakeInstall) setupOptions(t *testing.T, startWorker func(config.Paths, string) (bool, error)) *SetupOptions {
	var st *store.Store
	t.Cleanup(func() {
		if st != nil {
			st.Close()
		}
	})
	return &SetupOptions{
		IO: cli.IO{Out: &in.out, ErrOut: &bytes.Buffer{}}, Paths: in.paths, Getenv: in.getenv, LookPath: noClaude,
		Store: func(ctx context.Context) (*store.Store, error) {
			var err error
			if st == nil {
				st, err = store.Open(ctx, in.paths().DB, store.Options{})
			}
			return st, err
		},
		StartWorker: startWorker, Root: in.root, NoRegister: true,
	}
}

// TestRunSetupStartsTheWorker: setup starts this install's worker through
// StartWorker and reports what happened; VIBE_WORKER=off skips it, and a
// missing worker binary is a failure with its fix.
func TestRunSetupStartsTheWorker(t *testing.T) {
	for _, c := range []struct {
		name    string
		off     bool
		noBin   bool
		started bool
		err     error
		want    string // the worker line(s), %ROOT% the plugin root
	}{
		{name: "started", started: true, want: "ok   worker    embed worker started\n"},
		{name: "running", want: "ok   worker    embed worker running\n"},
		{name: "fails", err: errors.New("socket in use"),
			want: "FAIL worker    could not start the embed worker: socket in use\n     fix: see `vibe worker logs`, then `vibe worker start`\n"},
		{name: "off", off: true,
			want: "note worker    not started (VIBE_WORKER=off)\n     fix: unset VIBE_WORKER and run `vibe worker start` for faster hooks and vector recall\n"},
		{name: "no binary", noBin: true,
			want: "FAIL worker    %ROOT%/bin/" + client.BinaryName + " is missing\n     fix: run `make build` in %ROOT%\n"},
	} {
		in := newFakeInstall(t)
		if c.off {
			in.env["VIBE_WORKER"] = "off"
		}
		if c.noBin {
			os.Remove(filepath.Join(in.root, "bin", client.BinaryName))
		}
		var calls []string
		o := in.setupOptions(t, func(p config.Paths, bin string) (bool, error) {
			calls = append(calls, p.Socket+" "+bin)
			return c.started, c.err
		})
		err := runSetup(context.Background(), o)
		p := in.paths()
		worker := replaceRoot(c.want, in.root)
		want := "ok   folders   " + p.Home + "\n" +
			"ok   database  " + p.DB + " (schema " + fmt.Sprint(db.Latest()) + ")\n" +
			"ok   binaries  " + filepath.Join(in.root, "bin") + "\n" +
			worker +
			"ok   plugin    registration skipped (--no-register)\n"
		if in.out.String() != want {
			t.Errorf("%s: setup printed:\n%s\nwant:\n%s", c.name, &in.out, want)
		}
		failed := c.err != nil || c.noBin
		if (err != nil) != failed {
			t.Errorf("%s: err %v", c.name, err)
		}
		wantCalls := 1
		if c.off || c.noBin {
			wantCalls = 0
		}
		if len(calls) != wantCalls || (wantCalls == 1 && calls[0] != p.Socket+" "+filepath.Join(in.root, "bin", client.BinaryName)) {
			t.Errorf("%s: StartWorker calls %q", c.name, calls)
		}
	}
}

// TestRunSetupStopsWhenTheDatabaseDoesNotOpen: a store that does not open
// ends setup after the folders, with the fix.
func TestRunSetupStopsWhenTheDatabaseDoesNotOpen(t *testing.T) {
	in := newFakeInstall(t)
	o := in.setupOptions(t, func(config.Paths, string) (bool, error) {
		t.Error("the worker was started after the database failed")
		return false, nil
	})
	o.Store = func(context.Context) (*store.Store, error) {
		return nil, errors.New("database disk image is malformed")
	}
	o.JSON = true
	err := runSetup(context.Background(), o)
	if err == nil || err.Error() != "setup finished with 1 problem(s); see the fixes above" {
		t.Errorf("err %v", err)
	}
	var got struct {
		OK    bool        `json:"ok"`
		Steps []SetupStep `json:"steps"`
	}
	if err := json.Unmarshal(in.out.Bytes(), &got); err != nil {
		t.Fatalf("%v: %s", err, &in.out)
	}
	want := []SetupStep{
		{Step: "folders", OK: true, Detail: in.home},
		{Step: "database", Detail: "database disk image is malformed", Fix: "run `vibe doctor`; move a corrupt file aside and run setup again"},
	}
	if got.OK || fmt.Sprint(got.Steps) != fmt.Sprint(want) {
		t.Errorf("got ok %v %+v\nwant %+v", got.OK, got.Steps, want)
	}
}

// TestRunUninstallWithFakes: uninstall closes the store first, stops the
// worker through StopWorker, removes ~/.local/bin/vibe only when it points
// into this checkout, and keeps VIBE_HOME under --purge while the worker
// could not be stopped.
func TestRunUninstallWithFakes(t *testing.T) {
	for _, c := range []struct {
		name      string
		stop      error
		linkHere  bool
		purge     bool
		wantLines string // %HOME% and %LINK%
		wantGone  bool
	}{
		{name: "stopped", linkHere: true,
			wantLines: "ok   worker    stopped (pid 4242)\nok   PATH link removed %LINK%\nok   data      kept in %HOME% (`vibe uninstall --purge` removes it)\n"},
		{name: "not running, purge", stop: client.ErrNotRunning, purge: true, wantGone: true,
			wantLines: "ok   worker    not running\nok   data      removed %HOME%\n"},
		{name: "stuck, purge", stop: errors.New("the worker did not stop within 30s"), purge: true,
			wantLines: "FAIL worker    the worker did not stop within 30s\n     fix: stop it with `vibe worker stop`, then run uninstall again\n" +
				"FAIL data      kept in %HOME%: the worker still runs and holds the database\n     fix: stop it with `vibe worker stop`, then run `vibe uninstall --purge` again\n"},
	} {
		in := newFakeInstall(t)
		vibeHome := filepath.Join(in.home, "vibe")
		in.env["VIBE_HOME"] = vibeHome
		os.MkdirAll(vibeHome, 0o700)
		link := filepath.Join(in.home, ".local", "bin", "vibe")
		os.MkdirAll(filepath.Dir(link), 0o755)
		target := "/elsewhere/bin/vibe"
		if c.linkHere {
			target = filepath.Join(in.root, "bin", "vibe")
		}
		os.Symlink(target, link)
		closed := 0
		var stoppedAt config.Paths
		o := &UninstallOptions{
			IO: cli.IO{Out: &in.out, ErrOut: &bytes.Buffer{}}, Paths: in.paths, Getenv: in.getenv, LookPath: noClaude,
			CloseStore: func() { closed++ },
			StopWorker: func(_ context.Context, p config.Paths, _ time.Duration) (int, error) {
				stoppedAt = p
				if closed == 0 {
					t.Errorf("%s: the worker was stopped before the store was closed", c.name)
				}
				return 4242, c.stop
			},
			Root: in.root, Purge: c.purge,
		}
		err := runUninstall(context.Background(), o)
		want := "note plugin    the claude CLI is not on PATH, so nothing was unregistered\n" +
			"     fix: if Claude Code is installed elsewhere, run: claude plugin uninstall vibe@vibe-science && claude plugin marketplace remove vibe-science\n" +
			strings.NewReplacer("%HOME%", vibeHome, "%LINK%", link).Replace(c.wantLines)
		if in.out.String() != want {
			t.Errorf("%s: uninstall printed:\n%s\nwant:\n%s", c.name, &in.out, want)
		}
		if (err != nil) != (c.stop != nil && !errors.Is(c.stop, client.ErrNotRunning)) {
			t.Errorf("%s: err %v", c.name, err)
		}
		if closed != 1 || stoppedAt != in.paths() {
			t.Errorf("%s: store closed %d times, worker stopped at %+v", c.name, closed, stoppedAt)
		}
		if _, err := os.Stat(vibeHome); os.IsNotExist(err) != c.wantGone {
			t.Errorf("%s: VIBE_HOME removed: %v, want %v", c.name, os.IsNotExist(err), c.wantGone)
		}
		if _, err := os.Lstat(link); os.IsNotExist(err) != c.linkHere {
			t.Errorf("%s: link removed: %v, want %v", c.name, os.IsNotExist(err), c.linkHere)
		}
	}
}

// TestNewCmdSetupAndUninstallWireEveryDependency: the constructors fill
// each dependency from the factory.
func TestNewCmdSetupAndUninstallWireEveryDependency(t *testing.T) {
	f, _, _ := clitest.New(t, clitest.Options{})
	f.Root = "/plugin"
	f.LookPath = noClaude
	f.Exec = func(context.Context, string, ...string) (string, error) { return "", errors.New("no") }
	s, u := setupOpts(t, f), uninstallOpts(t, f)
	clitest.Wired(t, s)
	clitest.Wired(t, u)
	if s.Root != "/plugin" || u.Root != "/plugin" || s.Paths() != f.Paths() || u.Paths() != f.Paths() {
		t.Errorf("setup %q %+v, uninstall %q %+v", s.Root, s.Paths(), u.Root, u.Paths())
	}
}

func replaceRoot(s, root string) string { return strings.ReplaceAll(s, "%ROOT%", root) }

// TestRunSetupRegistrationThroughExec: each answer of the claude CLI (a
// fake Exec) and the step setup reports for it, with the commands it ran.
func TestRunSetupRegistrationThroughExec(t *testing.T) {
	manual := "claude plugin marketplace add %ROOT% && claude plugin install vibe@vibe-science"
	for _, c := range []struct {
		name      string
		answers   map[string]error // command → its error (nil: success)
		listed    bool             // `claude plugin list` names the plugin
		legacy    bool             // and the plugin under its name before releases
		staleCopy bool             // Claude Code's cached copy is older than bin/
		wantCalls string
		want      string
	}{
		{name: "list fails", answers: map[string]error{"claude plugin list": errors.New("exit status 1\nstack")},
			wantCalls: "claude plugin list",
			want:      "FAIL plugin    `claude plugin list` failed: exit status 1\n     fix: run: " + manual + "\n"},
		{name: "marketplace already added", answers: map[string]error{"claude plugin marketplace add %ROOT%": errors.New("marketplace vibe-science already exists")},
			wantCalls: "claude plugin list|claude plugin marketplace add %ROOT%|claude plugin install vibe@vibe-science",
			want:      "ok   plugin    vibe@vibe-science installed from %ROOT% (restart Claude Code to load it)\n"},
		{name: "install fails", answers: map[string]error{"claude plugin install vibe@vibe-science": errors.New("network down")},
			wantCalls: "claude plugin list|claude plugin marketplace add %ROOT%|claude plugin install vibe@vibe-science",
			want:      "FAIL plugin    `claude plugin install` failed: network down\n     fix: run: " + manual + "\n"},
		{name: "installed", listed: true, wantCalls: "claude plugin list",
			want: "ok   plugin    vibe@vibe-science is installed\n"},
		{name: "stale copy", listed: true, staleCopy: true,
			wantCalls: "claude plugin list|claude plugin uninstall vibe@vibe-science|claude plugin marketplace add %ROOT%|claude plugin install vibe@vibe-science",
			want:      "ok   plugin    vibe@vibe-science installed from %ROOT% (restart Claude Code to load it)\n"},
		{name: "legacy name", legacy: true,
			wantCalls: "claude plugin list|claude plugin uninstall vibe@vibe-local|claude plugin marketplace remove vibe-local|claude plugin marketplace add %ROOT%|claude plugin install vibe@vibe-science",
			want:      "ok   plugin    vibe@vibe-science installed from %ROOT% (restart Claude Code to load it)\n"},
		{name: "legacy name stays", legacy: true, answers: map[string]error{"claude plugin uninstall vibe@vibe-local": errors.New("permission denied")},
			wantCalls: "claude plugin list|claude plugin uninstall vibe@vibe-local",
			want: "FAIL plugin    could not remove vibe@vibe-local, the plugin's name before releases, which would run beside vibe@vibe-science: permission denied\n" +
				"     fix: run: claude plugin uninstall vibe@vibe-local && claude plugin marketplace remove vibe-local && " + manual + "\n"},
	} {
		in := newFakeInstall(t)
		in.env["VIBE_WORKER"] = "off"
		if c.staleCopy {
			cache := filepath.Join(in.home, ".claude", "plugins", "cache", MarketplaceName, "vibe", "0.1.0", "bin")
			os.MkdirAll(cache, 0o755)
			old := time.Now().Add(-time.Hour)
			for _, b := range HookBinaries {
				os.WriteFile(filepath.Join(cache, b), []byte("#!/bin/sh\n"), 0o755)
				os.Chtimes(filepath.Join(cache, b), old, old)
			}
		}
		var calls []string
		o := in.setupOptions(t, nil)
		o.NoRegister = false
		o.LookPath = func(name string) (string, error) { return "/usr/bin/" + name, nil }
		o.Exec = func(_ context.Context, name string, args ...string) (string, error) {
			line := strings.Join(append([]string{name}, args...), " ")
			calls = append(calls, strings.ReplaceAll(line, in.root, "%ROOT%"))
			if line == "claude plugin list" && c.answers[line] == nil {
				list := ""
				if c.listed {
					list += "vibe@vibe-science (enabled)\n"
				}
				if c.legacy {
					list += "vibe@vibe-local (enabled)\n"
				}
				return list, nil
			}
			return "", c.answers[strings.ReplaceAll(line, in.root, "%ROOT%")]
		}
		_ = runSetup(context.Background(), o)
		if got := strings.Join(calls, "|"); got != c.wantCalls {
			t.Errorf("%s: calls %q, want %q", c.name, got, c.wantCalls)
		}
		// The report from the plugin step on (it is the last).
		plugin := in.out.String()
		if i := strings.Index(plugin, " plugin    "); i >= 4 {
			plugin = plugin[i-4:]
		}
		if want := replaceRoot(c.want, in.root); plugin != want {
			t.Errorf("%s: plugin step:\n%s\nwant:\n%s", c.name, plugin, want)
		}
		stamped := in.paths().Home + "/plugin-registered"
		if _, err := os.Stat(stamped); (err == nil) != strings.HasPrefix(c.want, "ok") {
			t.Errorf("%s: registration stamp present %v after %q", c.name, err == nil, c.want)
		}
	}
}
