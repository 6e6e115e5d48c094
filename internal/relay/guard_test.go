//go:build unix

package relay

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// script writes an executable shell script into dir.
func script(t *testing.T, path, body string) {
	t.Helper()
	if err := os.WriteFile(path, []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
}

// localEnv is an Env whose handler is the vibe-hook next to exe, run by
// the real runHandler (a child for PreToolUse, so the test survives).
func localEnv(exe string, stdout, stderr *bytes.Buffer) Env {
	return Env{
		Stdin: strings.NewReader(`{}`), Stdout: stdout, Stderr: stderr,
		Getenv:     func(k string) string { return map[string]string{"VIBE_RELAY": "off"}[k] },
		Environ:    func() []string { return nil },
		Executable: func() (string, error) { return exe, nil },
		Run:        runHandler,
	}
}

// TestPreToolUseFailsClosedOnItsOwn: any exit of the pre-tool-use handler
// but 0 and 2 (another code, a signal) becomes exit 2 with a reason, whoever
// runs the binary (Claude Code's onFailure would refuse too, but without
// vibe's reason; guard.sh for Codex and Gemini); other hooks keep the
// handler's code.
func TestPreToolUseFailsClosedOnItsOwn(t *testing.T) {
	cases := []struct {
		name, body string
		want       int
	}{
		{"decided", `exit 0`, 0},
		{"refused", `exit 2`, 2},
		{"other code", `exit 3`, 2},
		{"killed", `kill -9 $$`, 2},
		{"terminated", `kill -TERM $$`, 2},
	}
	for _, c := range cases {
		dir := t.TempDir()
		script(t, filepath.Join(dir, FullBinary), `cat >/dev/null; `+c.body)
		var out, errOut bytes.Buffer
		got := Main("pre-tool-use", localEnv(filepath.Join(dir, "vibe-pre-tool-use"), &out, &errOut))
		if got != c.want {
			t.Errorf("%s: exit %d, want %d (stderr %q)", c.name, got, c.want, errOut.String())
		}
		if c.want == 2 && c.name != "refused" && !strings.Contains(errOut.String(), "refused") {
			t.Errorf("%s: no reason on stderr: %q", c.name, errOut.String())
		}
	}
	// PostToolUse fails open: its handler's code stands (it runs as a
	// child here only because the test's Run is not the exec).
	var out, errOut bytes.Buffer
	e := localEnv("/x/vibe-post-tool-use", &out, &errOut)
	e.Run = func(string, string, []byte, string) (int, error) { return 3, nil }
	if got := Main("post-tool-use", e); got != 3 {
		t.Errorf("post-tool-use: exit %d, want the handler's 3", got)
	}
}

// TestFailClosedOnTheWorkersReply: a reply code other than 0 and 2 from
// the worker is refused as well.
func TestFailClosedOnTheWorkersReply(t *testing.T) {
	var errOut bytes.Buffer
	e := Env{Stderr: &errOut}
	if got := failClosed("pre-tool-use", 1, e); got != 2 || !strings.Contains(errOut.String(), "exit 1") {
		t.Errorf("exit %d, stderr %q", got, errOut.String())
	}
	if got := failClosed("stop", 1, e); got != 1 {
		t.Errorf("stop: exit %d, want 1", got)
	}
}

// guard runs a copy of plugin/guard.sh laid out as in the plugin (the
// script in plugin/, the binaries in bin/).
func guard(t *testing.T, root string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	cmd := exec.Command(filepath.Join(root, "plugin", "guard.sh"), args...)
	var out, errOut bytes.Buffer
	cmd.Stdin, cmd.Stdout, cmd.Stderr = strings.NewReader("{}"), &out, &errOut
	err := cmd.Run()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return exit.ExitCode(), out.String(), errOut.String()
	} else if err != nil {
		t.Fatal(err)
	}
	return 0, out.String(), errOut.String()
}

func guardRoot(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	src, err := os.ReadFile(filepath.Join("..", "..", "plugin", "guard.sh"))
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{"plugin", "bin"} {
		os.MkdirAll(filepath.Join(root, d), 0o755)
	}
	if err := os.WriteFile(filepath.Join(root, "plugin", "guard.sh"), src, 0o755); err != nil {
		t.Fatal(err)
	}
	return root
}

// TestGuardRun: `guard.sh NAME args...` (clients that run hooks one by one
// and cannot ask to fail closed) runs the binary with its arguments and
// turns "missing", "not executable" and anything but exit 0 or 2 into 2.
func TestGuardRun(t *testing.T) {
	root := guardRoot(t)
	bin := filepath.Join(root, "bin", "vibe-pre-tool-use")
	code, _, stderr := guard(t, root, "vibe-pre-tool-use")
	if code != 2 || !strings.Contains(stderr, "missing or not executable") || !strings.Contains(stderr, "make build") {
		t.Errorf("missing binary: exit %d, stderr %q", code, stderr)
	}
	os.WriteFile(bin, []byte("#!/bin/sh\nexit 0\n"), 0o644)
	if code, _, _ := guard(t, root, "vibe-pre-tool-use"); code != 2 {
		t.Errorf("binary not executable: exit %d, want 2", code)
	}
	os.Remove(bin) // script's WriteFile keeps an existing file's mode
	cases := []struct {
		body, wantOut string
		want          int
	}{
		{`echo "args $*"; exit 0`, "args --client codex\n", 0},
		{`exit 2`, "", 2},
		{`exit 1`, "", 2},
		{`kill -9 $$`, "", 2},
	}
	for _, c := range cases {
		script(t, bin, c.body)
		code, out, stderr := guard(t, root, "vibe-pre-tool-use", "--client", "codex")
		if code != c.want || out != c.wantOut {
			t.Errorf("%q: exit %d stdout %q stderr %q, want exit %d stdout %q", c.body, code, out, stderr, c.want, c.wantOut)
		}
	}
}
