// Command vibe-embed-worker is vibe's resident process (the name stays for
// the installed plugins that start it). For one VIBE_HOME it holds the
// database open and runs the hook handlers for the per-event hook binaries
// (they relay each event over its Unix socket), drains the embedding queue
// with hugot's pure-Go backend, and answers recall queries (embed, k nearest
// memories, health). Without --foreground it starts a detached copy of
// itself and returns; hooks and `vibe worker start` start it that way. When
// its executable is replaced by a new build it stops and starts the new
// file. After a while with no hook, query or work it exits (settings
// worker_idle_exit_sec, VIBE_WORKER_IDLE_EXIT; 30 minutes by default), and
// the next hook starts it again. All logic lives in internal/worker; this
// file wires flags, signals and the embedder.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"golang.org/x/term"

	"github.com/vibe-science/vibe/internal/buildinfo"
	"github.com/vibe-science/vibe/internal/config"
	"github.com/vibe-science/vibe/internal/embed/hugotembed"
	"github.com/vibe-science/vibe/internal/worker"
	"github.com/vibe-science/vibe/internal/worker/client"
)

func main() {
	flag.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(), `vibe-embed-worker %s: vibe's resident process. For one VIBE_HOME it holds
the database open and runs the hook handlers the per-event hook binaries relay
to it, drains the embedding queue, and answers recall queries, on the socket
VIBE_HOME/worker.sock. Hooks and `+"`vibe worker start`"+` start it; `+"`vibe worker status`"+`
shows it, `+"`vibe worker stop`"+` stops it.

Usage: vibe-embed-worker [--home DIR] [--foreground]

`, buildinfo.Version)
		flag.PrintDefaults()
	}
	home := flag.String("home", "", "VIBE_HOME to serve (default: $VIBE_HOME, else ~/.vibe-science)")
	fg := flag.Bool("foreground", false, "run in this process until SIGTERM or Ctrl-C (default: start detached and return)")
	flag.Parse()
	if *home != "" {
		os.Setenv("VIBE_HOME", *home)
	}
	paths := config.Resolve(os.Getenv)
	exe, exeErr := os.Executable()
	if !*fg {
		err := exeErr
		if err == nil {
			var started bool
			started, err = client.EnsureRunningBinary(paths, exe)
			if err == nil && started {
				fmt.Fprintf(os.Stderr, "vibe-embed-worker: started for %s (logs in %s)\n", paths.Home, paths.Logs)
			} else if err == nil {
				fmt.Fprintf(os.Stderr, "vibe-embed-worker: already running for %s\n", paths.Home)
			}
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "vibe-embed-worker:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	var mirror io.Writer
	if term.IsTerminal(int(os.Stderr.Fd())) {
		mirror = os.Stderr
	}
	if exeErr != nil {
		exe = "" // not watched: a rebuild is then noticed by the next session start
	}
	// The fallback embedder and the lazy download are on unless switched
	// off (VIBE_EMBED_FALLBACK=off, VIBE_MODEL_PULL=off: an offline or
	// audited machine, a benchmark of the lexical path).
	w := worker.New(worker.Config{Paths: paths, Load: hugotembed.Load, Now: time.Now, Getenv: os.Getenv, LogMirror: mirror, Executable: exe,
		Fallback: !config.EmbedFallbackOff(os.Getenv), AutoPull: !config.ModelPullOff(os.Getenv)})
	if err := w.Open(ctx); err != nil {
		if errors.Is(err, worker.ErrAlreadyRunning) {
			if mirror != nil { // a terminal; a detached racing start stays silent
				fmt.Fprintln(os.Stderr, "vibe-embed-worker:", err)
			}
			os.Exit(0) // a racing start: the running worker serves
		}
		fmt.Fprintln(os.Stderr, "vibe-embed-worker:", err)
		os.Exit(1)
	}
	replaced := false
	select {
	case <-ctx.Done():
	case <-w.Idle(): // rested long enough: the next hook starts a worker again
	case <-w.Replaced():
		replaced = true
	}
	stop() // a second signal kills at once
	if err := w.Close(); err != nil {
		fmt.Fprintln(os.Stderr, "vibe-embed-worker: close:", err)
		os.Exit(1)
	}
	if replaced {
		// The lock is released: the new build takes over (a hook's session
		// start would otherwise do it).
		if err := client.Spawn(paths, exe); err != nil {
			fmt.Fprintln(os.Stderr, "vibe-embed-worker: start the new build:", err)
			os.Exit(1)
		}
	}
}
