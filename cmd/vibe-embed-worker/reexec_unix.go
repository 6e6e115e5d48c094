//go:build unix

package main

import (
	"os"
	"syscall"

	"github.com/vibe-science/vibe/internal/worker"
)

// restartTuned executes exe again, in this process, with the GODEBUG
// setting that keeps Go's monitor on its slow tick (worker.RuntimeEnv,
// internal/worker/sched.go): the runtime reads GODEBUG once, at start. It
// returns nil at once when the setting is there (this is the restarted
// process), and only on failure otherwise.
func restartTuned(exe string) error {
	env, had := worker.RuntimeEnv(os.Environ())
	if had {
		return nil
	}
	return syscall.Exec(exe, os.Args, env)
}
