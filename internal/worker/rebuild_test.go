package worker

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/vibe-science/vibe/internal/worker/client"
)

// TestRebuildNeverReachesTheOldWorker is the acceptance test of a rebuild:
// a hook client and a worker are installed side by side, the worker runs,
// and the worker binary is rebuilt with a change (other -ldflags, the same
// version string). The next hook call must not reach the old process (it
// runs its handler locally and says why), and the old process must give way
// to the new build, which then serves the hooks.
func TestRebuildNeverReachesTheOldWorker(t *testing.T) {
	if _, err := os.Stat("/proc/self/exe"); err != nil {
		t.Skip("needs /proc to tell one worker binary from another")
	}
	old := workerBinary(t) // skips under -short
	dir, err := os.MkdirTemp("", "vwre")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	hookBin := filepath.Join(dir, "vibe-pre-tool-use")
	build := exec.Command("go", "build", "-ldflags", pinVersion, "-o", hookBin, "github.com/vibe-science/vibe/cmd/vibe-pre-tool-use")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build the hook client: %v\n%s", err, out)
	}
	// The local handler: says it ran, and what the client told it.
	local := "#!/bin/sh\ncat >/dev/null\necho \"local: $VIBE_RELAY_NOTE\"\n"
	if err := os.WriteFile(filepath.Join(dir, "vibe-hook"), []byte(local), 0o755); err != nil {
		t.Fatal(err)
	}
	daemon := filepath.Join(dir, client.BinaryName)
	raw, err := os.ReadFile(old)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(daemon, raw, 0o755); err != nil {
		t.Fatal(err)
	}

	p := testHome(t)
	if err := client.Spawn(p, daemon); err != nil {
		t.Fatal(err)
	}
	oldPID := waitPID(t, p)
	defer func() {
		syscall.Kill(oldPID, syscall.SIGCONT)
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if pid, err := Stop(ctx, p, 20*time.Millisecond); err == nil && pid == oldPID {
			reap(pid)
		}
	}()
	eventually(t, 10*time.Second, "socket up", func() bool { return client.Listening(p.Socket) })

	project := t.TempDir()
	event := `{"session_id":"rebuild-1","cwd":"` + project + `","hook_event_name":"PreToolUse","agent_id":"a","agent_type":"vibe:reviewer2",` +
		`"tool_name":"Bash","tool_input":{"command":"echo x >> CLAIM-LEDGER.md"},"tool_use_id":"t"}`
	hook := func() string {
		t.Helper()
		cmd := exec.Command(hookBin)
		cmd.Env = []string{"VIBE_HOME=" + p.Home, "HOME=" + p.Home, "VIBE_WORKER=off", "TMPDIR=" + dir, "VIBE_ENFORCE=everywhere"}
		cmd.Stdin = strings.NewReader(event)
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Run(); err != nil {
			t.Fatalf("hook: %v\n%s", err, out.String())
		}
		return out.String()
	}
	if out := hook(); !strings.Contains(out, `"permissionDecision":"deny"`) {
		t.Fatalf("before the rebuild the worker should answer: %s", out)
	}

	// Freeze the old worker so it cannot notice the rebuild and step aside
	// before the next hook call: that call must bypass it on its own.
	if err := syscall.Kill(oldPID, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	// The same version string: only the file's identity tells the builds
	// apart, as for two builds of one dirty checkout.
	rebuild := exec.Command("go", "build", "-tags", "sqlite_fts5", "-ldflags=-w "+pinVersion, "-o", daemon, "github.com/vibe-science/vibe/cmd/vibe-embed-worker")
	if out, err := rebuild.CombinedOutput(); err != nil {
		t.Fatalf("rebuild the worker: %v\n%s", err, out)
	}
	out := hook()
	if !strings.HasPrefix(out, "local: ") || !strings.Contains(out, "is not this install's worker") {
		t.Fatalf("after the rebuild the hook reached the old worker, or did not say why it ran locally: %q", out)
	}

	// Thawed, the old worker sees its file replaced and starts the new one.
	syscall.Kill(oldPID, syscall.SIGCONT)
	reap(oldPID)
	var newPID int
	eventually(t, 20*time.Second, "the new build answers", func() bool {
		h, err := client.GetHealth(context.Background(), p.Socket)
		newPID = h.PID
		return err == nil && h.PID != oldPID && h.PID != 0
	})
	if _, foreign := client.Foreign(p, daemon); foreign {
		t.Fatalf("the worker that replaced pid %d (pid %d) is not the rebuilt binary", oldPID, newPID)
	}
	if out := hook(); !strings.Contains(out, `"permissionDecision":"deny"`) || strings.HasPrefix(out, "local") {
		t.Fatalf("the new build does not serve the hook: %s", out)
	}
}
