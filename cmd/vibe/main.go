// Command vibe is the command line: setup, status, doctor, gates, recall and
// inspection of everything the hooks recorded. All logic lives in
// internal/cli (the root command in internal/cli/root).
package main

import (
	"context"
	"os"
	"os/exec"
	"time"

	"golang.org/x/term"

	"github.com/vibe-science/vibe/internal/cli"
	"github.com/vibe-science/vibe/internal/cli/root"
)

func main() {
	tty := term.IsTerminal(int(os.Stdout.Fd()))
	width := 0
	if tty {
		width, _, _ = term.GetSize(int(os.Stdout.Fd()))
	}
	f := &cli.Factory{
		IO: cli.IO{In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr, TTY: tty, Width: width,
			Interactive: tty && term.IsTerminal(int(os.Stdin.Fd()))},
		Now:      time.Now,
		Getenv:   os.Getenv,
		LookPath: exec.LookPath,
		Exec: func(ctx context.Context, name string, args ...string) (string, error) {
			out, err := exec.CommandContext(ctx, name, args...).CombinedOutput()
			if err != nil {
				return string(out), &execError{err: err, out: string(out)}
			}
			return string(out), nil
		},
		Root: cli.PluginRoot(os.Getenv),
	}
	os.Exit(root.Main(os.Args[1:], f))
}

type execError struct {
	err error
	out string
}

func (e *execError) Error() string { return e.err.Error() + ": " + e.out }
