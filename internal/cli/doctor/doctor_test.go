package doctor

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/vibe-science/vibe/internal/cli"
	"github.com/vibe-science/vibe/internal/cli/clitest"
	"github.com/vibe-science/vibe/internal/cli/setup"
	"github.com/vibe-science/vibe/internal/client"
)

// TestDoctorReportsUnknownSettings: doctor fails on such a file and says
// which key to fix, in which file.
func TestDoctorReportsUnknownSettings(t *testing.T) {
	f, out, home := installedFactory(t)
	if err := os.WriteFile(filepath.Join(home, "config.json"), []byte(`{"breakers": {"databse": "fail"}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	err := runDoctor(context.Background(), doctorOpts(t, f))
	if err == nil || cli.ExitCode(err) != 1 {
		t.Fatalf("err %v, want a failed check (exit 1)", err)
	}
	want := "FAIL settings           " + filepath.Join(home, "config.json") + ": breakers.databse: unknown dependency; did you mean database?\n" +
		"     fix: edit " + filepath.Join(home, "config.json") + " (`vibe help environment` says where VIBE_HOME is)\n"
	if !strings.Contains(out.String(), want) {
		t.Fatalf("doctor printed:\n%s\nwant it to contain:\n%s", out, want)
	}
}

// TestDoctorChecksBuildPrerequisites: in a source checkout doctor checks
// the Go toolchain, a C compiler and sqlite3.h, as the README says; in an
// installed copy (no go.mod) it says they are not needed for running.
func TestDoctorChecksBuildPrerequisites(t *testing.T) {
	f, out, _ := installedFactory(t)
	o := doctorOpts(t, f)
	_ = runDoctor(context.Background(), o)
	if !strings.Contains(out.String(), "ok   build tools        not needed for running (Go, a C compiler and sqlite3.h only build vibe from source)\n") {
		t.Fatalf("without go.mod:\n%s", out)
	}

	if err := os.WriteFile(filepath.Join(f.Root, "go.mod"), []byte("module x\n\ngo 1.26\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	o.HeaderDirs = []string{t.TempDir()}
	out.Reset()
	_ = runDoctor(context.Background(), o)
	for _, want := range []string{
		"FAIL Go toolchain       go not on PATH\n     fix: install Go 1.26 or newer (https://go.dev/dl/), needed to build vibe from " + f.Root + "\n",
		"FAIL C compiler         none of cc, gcc, clang on PATH\n     fix: install one (Debian: apt-get install gcc); cgo builds SQLite into vibe\n",
		"FAIL sqlite3.h          not found in " + o.HeaderDirs[0] + "\n     fix: Debian: apt-get install libsqlite3-dev (macOS: brew install sqlite)\n",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("doctor lacks %q:\n%s", want, out)
		}
	}

	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "sqlite3.h"), []byte("/* */"), 0o644); err != nil {
		t.Fatal(err)
	}
	o.HeaderDirs = []string{dir}
	o.LookPath = func(name string) (string, error) { return "/usr/bin/" + name, nil }
	o.Exec = func(_ context.Context, name string, args ...string) (string, error) {
		if name == "go" {
			return "go version go1.25.3 linux/amd64\n", nil
		}
		return "", nil
	}
	out.Reset()
	_ = runDoctor(context.Background(), o)
	for _, want := range []string{
		"FAIL Go toolchain       /usr/bin/go is go1.25.3; go.mod needs go 1.26\n",
		"ok   C compiler         /usr/bin/cc\n",
		"ok   sqlite3.h          " + filepath.Join(dir, "sqlite3.h") + "\n",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("doctor lacks %q:\n%s", want, out)
		}
	}
}

// TestDoctorChecksTheProjectConfigs: inside a project, doctor reads its
// permissions.json and domain-config.json and reports an unknown key with
// the command that lists every problem.
func TestDoctorChecksTheProjectConfigs(t *testing.T) {
	f, out, _ := installedFactory(t)
	proj := clitest.MkVibeDir(t, t.TempDir())
	t.Chdir(proj)
	_ = runDoctor(context.Background(), doctorOpts(t, f))
	for _, want := range []string{
		"ok   permissions        " + filepath.Join(proj, ".vibe-science") + ": no permissions.json, the shipped policy applies\n",
		"ok   domain config      " + filepath.Join(proj, ".vibe-science") + ": no domain-config.json, the generic domain applies\n",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("doctor lacks %q:\n%s", want, out)
		}
	}
	os.WriteFile(filepath.Join(proj, ".vibe-science", "permissions.json"), []byte(`{"modde": "team"}`), 0o644)
	os.WriteFile(filepath.Join(proj, ".vibe-science", "domain-config.json"), []byte(`{"domain": "generic", "dq1": {"min_sample": 3}}`), 0o644)
	out.Reset()
	if err := runDoctor(context.Background(), doctorOpts(t, f)); err == nil {
		t.Fatal("doctor passed with broken project configs")
	}
	for _, want := range []string{
		"FAIL permissions        ",
		`unknown field "modde"; did you mean mode?`,
		"     fix: fix .vibe-science/permissions.json (`vibe permissions show` prints the policy in force)\n",
		"FAIL domain config      ",
		"dq1.min_sample: unknown key",
		"     fix: `vibe domain validate` lists each problem with its field\n",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("doctor lacks %q:\n%s", want, out)
		}
	}
}

func TestDoctorChecksInstalledClients(t *testing.T) {
	f, out, home := installedFactory(t)
	clientFiles(f.Root)
	if got := clientChecks(context.Background(), doctorOpts(t, f)); len(got) != 0 {
		t.Errorf("no client set up, yet: %+v", got)
	}
	if code := clitest.Main(f, []string{"setup", "--client", "gemini"}, setup.NewCmdSetup(f, nil)); code != 0 {
		t.Fatalf("setup: exit %d\n%s", code, out)
	}
	got := clientChecks(context.Background(), doctorOpts(t, f))
	if len(got) != 1 || got[0].Name != "gemini hooks" || !got[0].OK {
		t.Errorf("after setup: %+v", got)
	}
	os.WriteFile(filepath.Join(f.Root, "skill", "vibe", "SKILL.md"), []byte("# vibe, revised\n"), 0o644)
	os.Remove(filepath.Join(f.Root, "bin", "vibe-stop"))
	got = clientChecks(context.Background(), doctorOpts(t, f))
	if len(got) != 1 || got[0].OK || !strings.Contains(got[0].Detail, "vibe-stop is missing") ||
		!strings.Contains(got[0].Detail, filepath.Join(home, ".gemini", "GEMINI.md")+" does not hold the current methodology") {
		t.Errorf("stale: %+v", got)
	}
	// Gemini runs vibe-pre-tool-use through guard.sh: without it the
	// binary's failures would not refuse the call.
	os.Chmod(filepath.Join(f.Root, "plugin", "guard.sh"), 0o644)
	got = clientChecks(context.Background(), doctorOpts(t, f))
	if len(got) != 1 || got[0].OK || !strings.Contains(got[0].Detail, filepath.Join(f.Root, "plugin", "guard.sh")+" is missing or not executable") {
		t.Errorf("guard.sh not executable: %+v", got)
	}
}

// clientFiles puts into a plugin root what `vibe setup --client` reads and
// writes the clients' hooks to run: the skill and plugin/guard.sh.
func clientFiles(root string) {
	os.MkdirAll(filepath.Join(root, "skill", "vibe"), 0o755)
	os.WriteFile(filepath.Join(root, "skill", "vibe", "SKILL.md"), []byte("# vibe\n"), 0o644)
	os.MkdirAll(filepath.Join(root, "plugin"), 0o755)
	os.WriteFile(filepath.Join(root, "plugin", "guard.sh"), []byte("#!/bin/sh\n"), 0o755)
}

// doctorOpts are the Options `vibe doctor argv...` runs with over f.
func doctorOpts(t *testing.T, f *cli.Factory, argv ...string) *DoctorOptions {
	return clitest.Built(t, func(runF func(*DoctorOptions) error) *cobra.Command { return NewCmdDoctor(f, runF) }, argv...)
}

// installedFactory is a factory over a plugin root holding every hook
// binary, with a HOME and a VIBE_HOME of its own, the worker off and no
// claude on the PATH; home is returned.
func installedFactory(t *testing.T) (*cli.Factory, *bytes.Buffer, string) {
	t.Helper()
	home := t.TempDir()
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, "bin"), 0o755)
	for _, b := range setup.HookBinaries {
		os.WriteFile(filepath.Join(root, "bin", b), []byte("#!/bin/sh\n"), 0o755)
	}
	f, out, _ := clitest.New(t, clitest.Options{Env: map[string]string{"VIBE_HOME": home, "HOME": home, "VIBE_WORKER": "off"}})
	f.Root = root
	f.LookPath = func(string) (string, error) { return "", errors.New("not found") }
	return f, out, home
}

// TestDoctorChecksCodexTrust: after `vibe setup --client codex` doctor asks
// Codex whether it trusts vibe's hooks (it runs no other), and fails with
// the way to trust them when it does not, when the hooks changed since,
// when it cannot ask, and when codex is not there to ask.
func TestDoctorChecksCodexTrust(t *testing.T) {
	f, out, home := installedFactory(t)
	clientFiles(f.Root)
	if code := clitest.Main(f, []string{"setup", "--client", "codex"}, setup.NewCmdSetup(f, nil)); code != 0 {
		t.Fatalf("setup: exit %d\n%s", code, out)
	}
	settings := filepath.Join(home, ".codex", "hooks.json")
	all := func(status string, changed ...string) []client.HookTrust {
		var hs []client.HookTrust
		for _, e := range client.Events[client.Codex] {
			if e.Registered() {
				s := status
				if slices.Contains(changed, e.Name) {
					s = "modified"
				}
				hs = append(hs, client.HookTrust{Event: e.Name, Status: s, Enabled: true})
			}
		}
		return hs
	}
	for _, c := range []struct {
		name  string
		path  bool
		hooks []client.HookTrust
		err   error
		want  Check
	}{
		{"no codex", false, nil, nil, Check{"codex hook trust", false,
			"codex is not on PATH, so vibe cannot ask it whether it trusts vibe's hooks (Codex runs no hook it has not trusted)",
			"put codex on PATH and run `vibe doctor` again; in codex, /hooks lists vibe's hooks to trust"}},
		{"untrusted", true, all("untrusted"), nil, Check{"codex hook trust", false,
			"Codex will not run 8 of vibe's 8 hooks (untrusted: PreToolUse, PostToolUse, PreCompact, SessionStart, SessionEnd, UserPromptSubmit, SubagentStop, Stop): it runs no untrusted hook, so nothing the agent does in Codex is judged",
			"open `codex`, type /hooks, review vibe's hooks and trust (and enable) them; `vibe setup --client codex` rewriting them asks for the trust again"}},
		{"changed since", true, all("trusted", "PreToolUse"), nil, Check{"codex hook trust", false,
			"Codex will not run 1 of vibe's 8 hooks (changed since trusted: PreToolUse): it runs no untrusted hook, so nothing the agent does in Codex is judged",
			"open `codex`, type /hooks, review vibe's hooks and trust (and enable) them; `vibe setup --client codex` rewriting them asks for the trust again"}},
		{"cannot ask", true, nil, errors.New("codex app-server closed its output before answering initialize"), Check{"codex hook trust", false,
			"could not ask /usr/local/bin/codex which hooks it trusts: codex app-server closed its output before answering initialize",
			"open `codex` and type /hooks: vibe's hooks must be trusted and enabled"}},
		{"trusted", true, all("trusted"), nil, Check{"codex hook trust", true,
			"/usr/local/bin/codex trusts and runs vibe's 8 hooks in " + settings, ""}},
	} {
		o := doctorOpts(t, f)
		if c.path {
			o.LookPath = func(name string) (string, error) { return "/usr/local/bin/" + name, nil }
		}
		o.AskCodex = func(_ context.Context, codex, s, cwd string) ([]client.HookTrust, error) {
			if codex != "/usr/local/bin/codex" || s != settings || cwd != home {
				t.Errorf("%s: asked %s about %s in %s", c.name, codex, s, cwd)
			}
			return c.hooks, c.err
		}
		got := clientChecks(context.Background(), o)
		if len(got) != 2 || got[0].Name != "codex hooks" || got[1] != c.want {
			t.Errorf("%s:\n got %+v\nwant [codex hooks …] then %+v", c.name, got, c.want)
		}
	}
}
