package doctor

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vibe-science/vibe/internal/cli"
	"github.com/vibe-science/vibe/internal/cli/setup"
)

// TestRunDoctorJSON: --json prints every check with its fix, "ok" false
// when one failed, and the command fails (exit 1) with their count; the
// claude CLI and the plugin registration are asked through Exec.
func TestRunDoctorJSON(t *testing.T) {
	f, out, _ := installedFactory(t)
	registered := true
	o := doctorOpts(t, f, "--json")
	o.LookPath = func(name string) (string, error) {
		if name == "claude" {
			return "/usr/bin/claude", nil
		}
		return "", errors.New("not found")
	}
	o.Exec = func(_ context.Context, name string, args ...string) (string, error) {
		switch strings.Join(append([]string{name}, args...), " ") {
		case "claude --version":
			return "2.1.330 (Claude Code)\n", nil
		case "claude plugin list":
			if registered {
				return setup.PluginRef + " (enabled)\n", nil
			}
			return "no plugins\n", nil
		}
		return "", errors.New("unexpected call")
	}
	// A plugin root without hooks.json.
	t.Chdir(t.TempDir()) // outside any project

	run := func() (map[string]Check, bool, error) {
		out.Reset()
		err := runDoctor(context.Background(), o)
		var got struct {
			OK     bool    `json:"ok"`
			Checks []Check `json:"checks"`
		}
		if jerr := json.Unmarshal(out.Bytes(), &got); jerr != nil {
			t.Fatalf("not JSON: %v\n%s", jerr, out)
		}
		byName := map[string]Check{}
		for _, c := range got.Checks {
			byName[c.Name] = c
		}
		return byName, got.OK, err
	}
	checks, ok, err := run()
	if ok || err == nil || cli.ExitCode(err) != 1 || !strings.HasSuffix(err.Error(), "check(s) failed") {
		t.Fatalf("ok %v, err %v: want a failed doctor (exit 1)", ok, err)
	}
	want := map[string]Check{
		"hook binaries":     {"hook binaries", true, filepath.Join(f.Root, "bin"), ""},
		"claude CLI":        {"claude CLI", true, "/usr/bin/claude 2.1.330 (Claude Code)", ""},
		"plugin registered": {"plugin registered", true, setup.PluginRef, ""},
	}
	for name, w := range want {
		if got := checks[name]; got != w {
			t.Errorf("%s: got %+v, want %+v", name, got, w)
		}
	}
	if c := checks["hooks.json"]; c.OK || c.Fix != "run vibe from its checkout, or set VIBE_PLUGIN_ROOT" {
		t.Errorf("hooks.json: %+v, want a failure with its fix", c)
	}
	if c, ok := checks["fails closed"]; ok {
		t.Errorf("without hooks.json, fails closed is reported as well: %+v", c)
	}

	registered = false
	checks, _, _ = run()
	wantFix := "run `vibe setup`, or start Claude Code with --plugin-dir " + f.Root
	if c := checks["plugin registered"]; c.OK || c.Detail != setup.PluginRef+" is not installed" || c.Fix != wantFix {
		t.Errorf("unregistered: %+v, want the fix %q", c, wantFix)
	}
}
