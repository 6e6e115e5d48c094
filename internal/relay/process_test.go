//go:build unix

package relay

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/vibe-science/vibe/internal/buildinfo"
	"github.com/vibe-science/vibe/internal/store"
)

// buildClient compiles a real hook binary (as `make build` does: no cgo)
// into dir, so OSEnv's system-call paths run as they do under Claude Code.
func buildClient(t *testing.T, dir, name string) string {
	t.Helper()
	out := filepath.Join(dir, name)
	// The client must carry this test binary's version (the worker the
	// tests start runs in it), whatever VCS stamp a plain build would get.
	cmd := exec.Command("go", "build", "-ldflags", "-X github.com/vibe-science/vibe/internal/buildinfo.Version="+buildinfo.Version, "-o", out, "../../cmd/"+name)
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build %s: %v\n%s", name, err, b)
	}
	return out
}

type proc struct {
	code           int
	stdout, stderr string
}

func runProc(t *testing.T, bin, stdin string, env ...string) proc {
	t.Helper()
	cmd := exec.Command(bin)
	// The events name made-up folders: enforcement is on everywhere
	// (config.EnforceVar), as in a project that ran `vibe init`.
	cmd.Env = append(env, "VIBE_ENFORCE=everywhere")
	cmd.Stdin = strings.NewReader(stdin)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return proc{code, out.String(), errOut.String()}
}

// TestHookBinaryEndToEnd runs the compiled pre-tool-use binary: relayed to
// a worker; its local handler run as a child, a failure refused; refusing
// when no handler exists; and the post-tool-use binary replaced by the
// local handler (exec, the event in an unlinked temporary file) or running
// it as a child through a pipe when no temporary file can be made.
func TestHookBinaryEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a hook binary")
	}
	dir := t.TempDir()
	bin := buildClient(t, dir, "vibe-pre-tool-use")
	event := strings.Repeat(`{"session_id":"proc-1","hook_event_name":"PreToolUse"}`, 3000) // 160 kB: more than a pipe holds
	tmp := t.TempDir()

	// No handler binary and no worker: the call is refused.
	home := t.TempDir()
	r := runProc(t, bin, event, "VIBE_HOME="+home, "TMPDIR="+tmp)
	if r.code != 2 || !strings.Contains(r.stderr, "the pre-tool-use handler could not run ("+filepath.Join(dir, FullBinary)+": no such file or directory)") {
		t.Fatalf("missing handler: %+v", r)
	}

	script := "#!/bin/sh\necho \"local $1 $(cat | wc -c) $VIBE_MARK\"\necho oops >&2\nexit 3\n"
	if err := os.WriteFile(filepath.Join(dir, FullBinary), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	// PreToolUse runs its handler as a child and refuses the handler's
	// exit 3 (hooks.json runs the binary without a shell around it).
	want := "local pre-tool-use " + strconv.Itoa(len(event)) + " m\n"
	r = runProc(t, bin, event, "VIBE_HOME="+home, "TMPDIR="+tmp, "VIBE_MARK=m")
	if r.code != 2 || r.stdout != want || !strings.HasPrefix(r.stderr, "oops\nvibe: the pre-tool-use hook failed (exit 3), so this call was refused") {
		t.Errorf("pre-tool-use: %+v, want exit 2 and %q", r, want)
	}
	// Other hooks are replaced by their handler, the code stands.
	post := buildClient(t, dir, "vibe-post-tool-use")
	want = "local post-tool-use " + strconv.Itoa(len(event)) + " m\n"
	for name, tmpdir := range map[string]string{"exec": tmp, "child": filepath.Join(tmp, "missing")} {
		r := runProc(t, post, event, "VIBE_HOME="+home, "TMPDIR="+tmpdir, "VIBE_MARK=m")
		if r.code != 3 || r.stdout != want || r.stderr != "oops\n" {
			t.Errorf("post-tool-use, %s: %+v, want exit 3 and %q", name, r, want)
		}
	}
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Errorf("temporary files left behind: %v", left)
	}

	// With a worker of the same build, the event is handled there: the
	// denial comes back, and the local script (exit 3) never runs. The
	// worker runs in this test binary, so that is the daemon next to bin.
	trustTestBinary(t, dir)
	paths, stop := startWorker(t, home)
	pre := `{"session_id":"proc-2","cwd":"` + t.TempDir() + `","hook_event_name":"PreToolUse","agent_id":"a","agent_type":"vibe:reviewer2",` +
		`"tool_name":"Bash","tool_input":{"command":"echo x >> CLAIM-LEDGER.md"},"tool_use_id":"t"}`
	r = runProc(t, bin, pre, "VIBE_HOME="+home, "VIBE_WORKER=off", "TMPDIR="+tmp)
	if r.code != 0 || !strings.Contains(r.stdout, `"permissionDecision":"deny"`) {
		t.Fatalf("relayed: %+v", r)
	}
	stop()
	st, err := store.Open(context.Background(), paths.DB, store.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if s, err := st.Session(context.Background(), "proc-2"); err != nil || s.ID != "proc-2" {
		t.Errorf("the worker did not record the session: %+v %v", s, err)
	}
}

// trustTestBinary links this test binary as the daemon next to the hook
// binaries in dir: the workers startWorker opens run in it.
func trustTestBinary(t *testing.T, dir string) {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(self, filepath.Join(dir, DaemonBinary)); err != nil {
		t.Fatal(err)
	}
}
