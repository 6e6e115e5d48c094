//go:build unix

package relay

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/vibe-science/vibe/internal/buildinfo"
	"github.com/vibe-science/vibe/internal/config"
	"github.com/vibe-science/vibe/internal/worker"
	"github.com/vibe-science/vibe/internal/worker/client"
)

// TestAbsentWorkerIsStarted: a hook that finds no worker (no socket, or
// the socket file of a killed one) asks for one to be started and runs its
// handler locally all the same, with the handler's exit code whatever the
// start does (PreToolUse still refuses what its handler fails on); nothing
// is started with a worker up, for SessionStart (its handler starts one),
// with VIBE_WORKER=off, or with the relay off.
func TestAbsentWorkerIsStarted(t *testing.T) {
	dir := t.TempDir()
	script := "#!/bin/sh\necho \"local $1\"\nexit 3\n"
	if err := os.WriteFile(filepath.Join(dir, FullBinary), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	exe := filepath.Join(dir, "vibe-post-tool-use")
	self, _ := os.Executable()
	home := t.TempDir()
	want := []string{self + " " + home}
	s := &starts{}
	r := runMainStarting(t, "post-tool-use", postEvent, map[string]string{"VIBE_HOME": home}, exe, s)
	if r.code != 3 || r.stdout != "local post-tool-use\n" || !slices.Equal(s.calls, want) {
		t.Errorf("no worker: %+v, started %q; want the local handler's exit 3 and %q", r, s.calls, want)
	}
	s = &starts{err: errors.New("no such program")}
	r = runMainStarting(t, "pre-tool-use", postEvent, map[string]string{"VIBE_HOME": home}, exe, s)
	if r.code != 2 || !strings.Contains(r.stderr, "the pre-tool-use hook failed (exit 3), so this call was refused") || !slices.Equal(s.calls, want) {
		t.Errorf("pre-tool-use, start failing: %+v, started %q", r, s.calls)
	}
	for name, env := range map[string]map[string]string{
		"VIBE_WORKER=off": {"VIBE_HOME": home, "VIBE_WORKER": "Off"},
		"relay off":       {"VIBE_HOME": home, "VIBE_RELAY": "off"},
	} {
		s := &starts{}
		if r := runMainStarting(t, "post-tool-use", postEvent, env, exe, s); r.code != 3 || len(s.calls) != 0 {
			t.Errorf("%s: %+v, started %q; want nothing started", name, r, s.calls)
		}
	}
	s = &starts{}
	if r := runMainStarting(t, "session-start", postEvent, map[string]string{"VIBE_HOME": home}, exe, s); r.code != 3 || len(s.calls) != 0 {
		t.Errorf("session-start: %+v, started %q; its handler starts the worker", r, s.calls)
	}

	// The socket file a killed worker left: nothing listens on it.
	stale := t.TempDir()
	fd, err := syscall.Socket(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Bind(fd, &syscall.SockaddrUnix{Name: filepath.Join(stale, "worker.sock")}); err != nil {
		t.Fatal(err)
	}
	syscall.Close(fd)
	s = &starts{}
	if r := runMainStarting(t, "stop", postEvent, map[string]string{"VIBE_HOME": stale}, exe, s); r.code != 3 || !slices.Equal(s.calls, []string{self + " " + stale}) {
		t.Errorf("stale socket: %+v, started %q", r, s.calls)
	}

	// A worker runs: the event is relayed, nothing started.
	up := t.TempDir()
	startWorker(t, up)
	s = &starts{}
	if r := runMainStarting(t, "post-tool-use", postEvent, map[string]string{"VIBE_HOME": up, "VIBE_WORKER": "off"}, "", s); r.code != 0 || len(s.calls) != 0 {
		t.Errorf("worker up: %+v, started %q", r, s.calls)
	}
	s = &starts{}
	if r := runMainStarting(t, "post-tool-use", postEvent, map[string]string{"VIBE_HOME": up}, "", s); r.code != 0 || len(s.calls) != 0 {
		t.Errorf("worker up: %+v, started %q", r, s.calls)
	}
}

// TestStderrLogMatchesClient: the worker a hook starts writes where the
// one client.Spawn starts does.
func TestStderrLogMatchesClient(t *testing.T) {
	if stderrLog != client.StderrLog {
		t.Fatalf("relay writes the worker's stderr to %s, client.Spawn to %s", stderrLog, client.StderrLog)
	}
}

// TestNextHookBringsTheWorkerBack runs the compiled post-tool-use client
// where no worker runs: it runs its handler itself (a script here), returns
// at once although the worker it started lives on (the worker holds none
// of the hook's files, or the hook's output would stay open), and the
// worker comes up in a session of its own; the next hook is relayed to it
// (the script is not run), and the worker wrote nothing on stderr.
func TestNextHookBringsTheWorkerBack(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a hook binary and the worker")
	}
	dir := t.TempDir()
	bin := buildClient(t, dir, "vibe-post-tool-use")
	daemon := filepath.Join(dir, DaemonBinary)
	build := exec.Command("go", "build", "-tags", "sqlite_fts5", "-ldflags", "-X github.com/vibe-science/vibe/internal/buildinfo.Version="+buildinfo.Version,
		"-o", daemon, "../../cmd/vibe-embed-worker")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build the worker: %v\n%s", err, out)
	}
	script := "#!/bin/sh\ncat >/dev/null\necho local\nexit 3\n"
	if err := os.WriteFile(filepath.Join(dir, FullBinary), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	home, err := os.MkdirTemp("", "vr") // a short path: Unix socket paths are limited
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(home) })
	paths := config.Resolve(func(k string) string { return map[string]string{"VIBE_HOME": home}[k] })
	env := []string{"VIBE_HOME=" + home, "HOME=" + home, "PATH=" + os.Getenv("PATH"), "VIBE_MODEL_PULL=off"}
	hook := func() proc {
		t.Helper()
		done := make(chan proc, 1)
		go func() { done <- runProc(t, bin, postEvent, env...) }()
		select {
		case r := <-done:
			return r
		case <-time.After(30 * time.Second):
			t.Fatal("the hook did not return: the worker it started holds its output open")
		}
		return proc{}
	}
	stop := func() {
		if pid := client.ReadPID(paths); pid > 0 {
			syscall.Kill(pid, syscall.SIGTERM)
		}
		for i := 0; i < 500; i++ {
			if held, _ := client.LockHeld(paths); !held {
				return
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	t.Cleanup(stop)

	if r := hook(); r.code != 3 || r.stdout != "local\n" {
		t.Fatalf("first hook, no worker: %+v, want the local handler", r)
	}
	deadline := time.Now().Add(60 * time.Second)
	for !client.Listening(paths.Socket) {
		if time.Now().After(deadline) {
			log, _ := os.ReadFile(filepath.Join(paths.Logs, client.StderrLog))
			t.Fatalf("the worker did not come up: %s", log)
		}
		time.Sleep(20 * time.Millisecond)
	}
	pid := client.ReadPID(paths)
	if pgid, err := syscall.Getpgid(pid); err != nil || pgid != pid {
		t.Errorf("worker pid %d in process group %d (%v), want a session and group of its own", pid, pgid, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if h, err := client.GetHealth(ctx, paths.Socket); err != nil || h.PID != pid || h.Version != buildinfo.Version {
		t.Fatalf("health %+v, %v; want pid %d of build %s", h, err, pid, buildinfo.Version)
	}
	if r := hook(); r.code != 0 || r.stdout != "" || r.stderr != "" {
		t.Errorf("second hook: %+v, want it relayed (the worker's empty reply), not the local script", r)
	}
	stop()
	if raw, err := os.ReadFile(filepath.Join(paths.Logs, client.StderrLog)); len(raw) != 0 || err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the worker wrote on stderr (%v): %s", err, raw)
	}
	if log, _ := os.ReadFile(worker.LatestLog(paths.Logs)); !strings.Contains(string(log), "worker stopped") {
		t.Errorf("the worker's log does not say it stopped:\n%s", log)
	}
}
