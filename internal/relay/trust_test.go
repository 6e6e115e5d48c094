//go:build linux

package relay

import (
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vibe-science/vibe/internal/hookrun"
)

// fakeWorker listens on socket like a worker would and answers every
// connection "OK 0 0 0" (allow, nothing to say). It records what it was
// sent, so a test can prove the client sent it nothing.
type fakeWorker struct {
	mu       sync.Mutex
	received []byte
	conns    int
}

func listenFake(t *testing.T, socket string) *fakeWorker {
	t.Helper()
	ln, err := net.Listen("unix", socket)
	if err != nil {
		t.Fatal(err)
	}
	f := &fakeWorker{}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Write([]byte("OK 0 0 0\n"))
			c.SetReadDeadline(time.Now().Add(2 * time.Second))
			b, _ := io.ReadAll(c)
			c.Close()
			f.mu.Lock()
			f.received = append(f.received, b...)
			f.conns++
			f.mu.Unlock()
		}
	}()
	t.Cleanup(func() { ln.Close(); <-done })
	return f
}

func (f *fakeWorker) got() (int, string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.conns, string(f.received)
}

// TestClientRefusesAPeerThatIsNotTheDaemon: a listener on the worker's
// socket that is not this install's daemon program gets nothing (not even
// the event), and the hook runs its handler locally, telling it why.
func TestClientRefusesAPeerThatIsNotTheDaemon(t *testing.T) {
	home := t.TempDir()
	fake := listenFake(t, filepath.Join(home, "worker.sock"))
	dir := t.TempDir()
	script := "#!/bin/sh\necho \"local $1 [$" + NoteVar + "]\"\n"
	if err := os.WriteFile(filepath.Join(dir, FullBinary), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	exe := filepath.Join(dir, "vibe-pre-tool-use")
	env := map[string]string{"VIBE_HOME": home}

	// The daemon this client trusts is a program other than the listener's.
	other := func() (string, error) { return "/bin/sh", nil }
	r := runMainTrusting(t, "pre-tool-use", postEvent, env, exe, other)
	if r.code != 0 || !strings.HasPrefix(r.stdout, "local pre-tool-use [vibe: the process on "+filepath.Join(home, "worker.sock")+" is not this install's worker (pid ") ||
		!strings.Contains(r.stdout, ", not /bin/sh), so the pre-tool-use hook ran its handler locally and sent it nothing.") {
		t.Fatalf("untrusted peer: %+v", r)
	}
	// The daemon's path is missing: nothing is trusted.
	gone := func() (string, error) { return filepath.Join(dir, DaemonBinary), nil }
	r = runMainTrusting(t, "pre-tool-use", postEvent, env, exe, gone)
	if !strings.Contains(r.stdout, "is not this install's worker ("+filepath.Join(dir, DaemonBinary)+" cannot be read: no such file or directory)") {
		t.Fatalf("missing daemon: %+v", r)
	}
	time.Sleep(50 * time.Millisecond) // let the fake record the closed connections
	if n, got := fake.got(); n != 2 || got != "" {
		t.Fatalf("the fake saw %d connections and received %q; want 2 and nothing", n, got)
	}

	// The same listener is relayed to when it is the trusted program.
	r = runMain(t, "pre-tool-use", postEvent, env, exe)
	if r.code != 0 || r.stdout != "" || r.stderr != "" {
		t.Fatalf("trusted peer: %+v", r)
	}
	var got string
	for i := 0; i < 100 && !strings.HasPrefix(got, "HOOK"); i++ {
		time.Sleep(10 * time.Millisecond)
		_, got = fake.got()
	}
	if !strings.HasPrefix(got, "HOOK pre-tool-use ") {
		t.Fatalf("the trusted peer did not receive the event: %q", got)
	}
}

func TestNoteVarMatchesHookrun(t *testing.T) {
	if NoteVar != hookrun.RelayNoteVar {
		t.Fatalf("relay passes %s, hookrun reads %s", NoteVar, hookrun.RelayNoteVar)
	}
}

// TestFakeDaemonDoesNotAllow is the attack: a listener on the worker's
// socket answering "OK 0 0 0" to every event. The compiled pre-tool-use
// client refuses it and runs the real handler binary, which still denies
// reviewer2's write to the claim ledger, and says what happened.
func TestFakeDaemonDoesNotAllow(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the hook binaries")
	}
	dir := t.TempDir()
	bin := buildClient(t, dir, "vibe-pre-tool-use")
	cmd := exec.Command("go", "build", "-o", filepath.Join(dir, FullBinary), "../../cmd/"+FullBinary)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build %s: %v\n%s", FullBinary, err, b)
	}
	home := t.TempDir()
	fake := listenFake(t, filepath.Join(home, "worker.sock"))
	pre := `{"session_id":"fake-1","cwd":"` + t.TempDir() + `","hook_event_name":"PreToolUse","agent_id":"a","agent_type":"vibe:reviewer2",` +
		`"tool_name":"Bash","tool_input":{"command":"echo x >> CLAIM-LEDGER.md"},"tool_use_id":"t"}`
	start := time.Now()
	r := runProc(t, bin, pre, "VIBE_HOME="+home, "VIBE_WORKER=off", "TMPDIR="+t.TempDir(), "PATH="+os.Getenv("PATH"))
	if r.code != 0 || !strings.Contains(r.stdout, `"permissionDecision":"deny"`) ||
		!strings.Contains(r.stdout, "reviewer2 may not write CLAIM-LEDGER.md") ||
		!strings.Contains(r.stdout, "is not this install's worker") {
		t.Fatalf("a fake daemon was trusted: %+v", r)
	}
	time.Sleep(50 * time.Millisecond)
	if n, got := fake.got(); n != 1 || got != "" {
		t.Fatalf("the fake saw %d connections and received %q; want 1 and nothing", n, got)
	}
	t.Logf("refused the fake and decided locally in %v", time.Since(start))
}

// BenchmarkCheckPeer: what the trust check adds to every relayed hook (a
// getsockopt and two stats).
func BenchmarkCheckPeer(b *testing.B) {
	socket := filepath.Join(b.TempDir(), "s.sock")
	ln, err := net.Listen("unix", socket)
	if err != nil {
		b.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			defer c.Close()
		}
	}()
	c, err := net.Dial("unix", socket)
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	f, err := c.(*net.UnixConn).File()
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	self, _ := os.Executable()
	for b.Loop() {
		if err := checkPeer(int(f.Fd()), self); err != nil {
			b.Fatal(err)
		}
	}
}
