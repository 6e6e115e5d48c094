//go:build unix

package client

import (
	"fmt"
	"os"
	"strings"
	"syscall"
	"time"

	"github.com/vibe-science/vibe/internal/config"
)

// Foreign reports whether the running worker of paths is not bin: another
// install's copy (the checkout's, where Claude Code runs the plugin from its
// cache), or the process of an older build that a rebuild replaced on disk.
// The hook clients do not trust such a worker (internal/relay compares the
// peer's executable with their own daemon) and run their handlers in a
// process of their own, so it only costs time until it is replaced. It
// returns the worker's pid. Where /proc is missing nothing is foreign.
func Foreign(paths config.Paths, bin string) (pid int, foreign bool) {
	pid = ReadPID(paths)
	if pid == 0 {
		return 0, false
	}
	want, err := os.Stat(bin)
	if err != nil {
		return pid, false
	}
	got, err := os.Stat(fmt.Sprintf("/proc/%d/exe", pid))
	if err != nil {
		return pid, false
	}
	return pid, !os.SameFile(want, got)
}

// ReplaceForeign stops a foreign worker of paths (SIGTERM: it finishes its
// batch first), waits at most wait for it to let go of its lock, and starts
// bin in its place. It reports whether it did; a worker that is not a
// vibe-embed-worker process of this user, or that does not exit in time,
// is left alone.
func ReplaceForeign(paths config.Paths, bin string, wait time.Duration) (bool, error) {
	pid, foreign := Foreign(paths, bin)
	if !foreign {
		return false, nil
	}
	return Replace(paths, pid, bin, wait)
}

// Replace stops the worker pid of paths as ReplaceForeign does and starts
// bin in its place, whatever its file (Stale found another reason).
func Replace(paths config.Paths, pid int, bin string, wait time.Duration) (bool, error) {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if err != nil || !strings.Contains(string(raw), BinaryName) {
		return false, nil
	}
	if err := syscall.Kill(pid, syscall.SIGTERM); err != nil {
		return false, fmt.Errorf("replace worker pid %d: %w", pid, err)
	}
	deadline := time.Now().Add(wait)
	for {
		held, err := LockHeld(paths)
		if err == nil && !held {
			break
		}
		if err == nil && syscall.Kill(pid, 0) != nil && ReadPID(paths) != pid {
			// It is gone and another worker holds the lock: it started the
			// new build itself (it watches its executable).
			return true, nil
		}
		if time.Now().After(deadline) {
			return false, fmt.Errorf("replace worker pid %d: it is still finishing its batch; the next session start replaces it", pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := Spawn(paths, bin); err != nil {
		return false, err
	}
	return true, nil
}
