package cli

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	"github.com/vibe-science/vibe/internal/buildinfo"
	"github.com/vibe-science/vibe/internal/config"
	"github.com/vibe-science/vibe/internal/worker/client"
)

// installedWorker is this install's resident process binary.
func installedWorker(f *Factory) string { return filepath.Join(f.Root, "bin", client.BinaryName) }

// askWorker returns the running worker's health, or ok false when none
// answers within a moment.
func askWorker(ctx context.Context, p config.Paths) (h client.Health, ok bool) {
	hctx, cancel := context.WithTimeout(ctx, 500*time.Millisecond)
	defer cancel()
	h, err := client.GetHealth(hctx, p.Socket)
	return h, err == nil
}

// replaceStale replaces a running worker that client.Stale finds is not
// this install's bin; it returns the step's sentence, or "" when no stale
// worker runs.
func replaceStale(ctx context.Context, p config.Paths, bin string) (detail string, ok bool) {
	h, up := askWorker(ctx, p)
	if !up {
		return "", true
	}
	why := client.Stale(p, bin, h)
	if why == "" {
		return "", true
	}
	replaced, err := client.Replace(p, h.PID, bin, 5*time.Second)
	switch {
	case err != nil:
		return why + "; replacing it failed: " + err.Error(), false
	case !replaced:
		return why + "; it could not be replaced (it is not a " + client.BinaryName + " process this user can stop)", false
	}
	return why + "; replaced it with " + bin, true
}

// workerCheck is doctor's finding on the resident process: hooks are
// fastest when this install's worker runs, and silently slow when a stale
// one holds the socket.
func workerCheck(ctx context.Context, f *Factory) Check {
	p := f.Paths()
	if config.WorkerOff(f.Getenv) {
		return Check{"worker", true, "not used (VIBE_WORKER=off): each hook runs its handler in a process of its own", ""}
	}
	h, up := askWorker(ctx, p)
	if !up {
		if held, _ := client.LockHeld(p); held {
			return Check{"worker", false, "running but not answering on " + p.Socket,
				"see `vibe worker logs`; then `vibe worker stop` and `vibe worker start`"}
		}
		return Check{"worker", true, "not running: hooks run their handlers in a process of their own (slower) until a session start starts it",
			"`vibe worker start` starts it now"}
	}
	bin := installedWorker(f)
	if why := client.Stale(p, bin, h); why != "" {
		return Check{"worker", false, why + ": hooks bypass it and run slower",
			"run `vibe setup` (it replaces the worker), or `vibe worker stop` then `vibe worker start`"}
	}
	return Check{"worker", true, fmt.Sprintf("running (pid %d, build %s; this vibe is %s)", h.PID, h.Version, buildinfo.Version), ""}
}
