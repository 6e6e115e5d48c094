package doctor

import (
	"context"
	"fmt"

	"github.com/vibe-science/vibe/internal/buildinfo"
	"github.com/vibe-science/vibe/internal/cli"
	"github.com/vibe-science/vibe/internal/config"
	"github.com/vibe-science/vibe/internal/worker/client"
)

// workerCheck is doctor's finding on the resident process: hooks are
// fastest when this install's worker runs, and silently slow when a stale
// one holds the socket.
func workerCheck(ctx context.Context, o *DoctorOptions) Check {
	p := o.Paths()
	if config.WorkerOff(o.Getenv) {
		return Check{"worker", true, "not used (VIBE_WORKER=off): each hook runs its handler in a process of its own", ""}
	}
	h, up := cli.AskWorker(ctx, p)
	if !up {
		if held, _ := client.LockHeld(p); held {
			return Check{"worker", false, "running but not answering on " + p.Socket,
				"see `vibe worker logs`; then `vibe worker stop` and `vibe worker start`"}
		}
		// Not a fault: the worker exits after resting, and the next hook
		// starts it again.
		return Check{"worker", true, "not running: the next hook starts it (that hook runs its handler in a process of its own, slower); " +
			"`vibe worker start` starts it now", ""}
	}
	bin := cli.InstalledWorker(o.Root)
	if why := client.Stale(p, bin, h); why != "" {
		return Check{"worker", false, why + ": hooks bypass it and run slower",
			"run `vibe setup` (it replaces the worker), or `vibe worker stop` then `vibe worker start`"}
	}
	return Check{"worker", true, fmt.Sprintf("running (pid %d, build %s; this vibe is %s)", h.PID, h.Version, buildinfo.Version), ""}
}
