// Command vibe-embed-worker is the embed daemon: it turns queued memories
// into vectors with hugot's pure-Go backend and answers recall queries on a
// Unix socket. Without --foreground it starts a detached copy of itself and
// returns; hooks and `vibe worker start` start it that way. All logic lives
// in internal/worker; this file wires flags, signals and the embedder.
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

	"github.com/vibe-science/vibe/internal/config"
	"github.com/vibe-science/vibe/internal/embed/hugotembed"
	"github.com/vibe-science/vibe/internal/worker"
	"github.com/vibe-science/vibe/internal/worker/client"
)

func main() {
	home := flag.String("home", "", "VIBE_HOME to serve (default: $VIBE_HOME, else ~/.vibe-science)")
	fg := flag.Bool("foreground", false, "run in this process until SIGTERM or Ctrl-C (default: start detached and return)")
	flag.Parse()
	if *home != "" {
		os.Setenv("VIBE_HOME", *home)
	}
	paths := config.Resolve(os.Getenv)
	if !*fg {
		exe, err := os.Executable()
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
	// The fallback embedder and the lazy download are on unless switched
	// off (VIBE_EMBED_FALLBACK=off, VIBE_MODEL_PULL=off: an offline or
	// audited machine, a benchmark of the lexical path).
	w := worker.New(worker.Config{Paths: paths, Load: hugotembed.Load, Now: time.Now, LogMirror: mirror,
		Fallback: os.Getenv("VIBE_EMBED_FALLBACK") != "off", AutoPull: os.Getenv("VIBE_MODEL_PULL") != "off"})
	if err := w.Open(ctx); err != nil {
		fmt.Fprintln(os.Stderr, "vibe-embed-worker:", err)
		if errors.Is(err, worker.ErrAlreadyRunning) {
			os.Exit(0) // a racing start: the running worker serves
		}
		os.Exit(1)
	}
	<-ctx.Done()
	stop() // a second signal kills at once
	if err := w.Close(); err != nil {
		fmt.Fprintln(os.Stderr, "vibe-embed-worker: close:", err)
		os.Exit(1)
	}
}
