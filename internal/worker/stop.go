package worker

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/vibe-science/vibe/internal/config"
	"github.com/vibe-science/vibe/internal/worker/client"
)

// Stop asks the worker of paths to exit (SIGTERM: it finishes its batch
// first) and waits, polling every poll, until it has released the lock or
// ctx ends. It returns the worker's pid, or client.ErrNotRunning.
func Stop(ctx context.Context, paths config.Paths, poll time.Duration) (int, error) {
	held, err := client.LockHeld(paths)
	if err != nil {
		return 0, err
	}
	if !held {
		return 0, client.ErrNotRunning
	}
	pid := client.ReadPID(paths)
	if pid == 0 {
		return 0, fmt.Errorf("stop worker: the worker holds %s but wrote no pid to %s yet: retry in a moment", paths.LockFile, paths.PIDFile)
	}
	if !isWorkerProcess(pid) {
		return pid, fmt.Errorf("stop worker: pid %d from %s is not a %s process: remove the stale pid file and retry", pid, paths.PIDFile, client.BinaryName)
	}
	if err := terminate(pid); err != nil {
		return pid, fmt.Errorf("stop worker pid %d: %w", pid, err)
	}
	t := time.NewTicker(poll)
	defer t.Stop()
	for {
		if held, err := client.LockHeld(paths); err == nil && !held {
			return pid, nil
		}
		select {
		case <-ctx.Done():
			return pid, fmt.Errorf("stop worker: pid %d still runs (it finishes its batch before exiting); if it hangs, `kill -9 %d` is safe", pid, pid)
		case <-t.C:
		}
	}
}

// isWorkerProcess guards against a recycled pid where /proc can tell; on
// systems without /proc it trusts the pid file (the lock is held, so the
// file is recent).
func isWorkerProcess(pid int) bool {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if err != nil {
		_, statErr := os.Stat("/proc/self")
		return statErr != nil
	}
	return strings.Contains(string(raw), client.BinaryName)
}
