package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/vibe-science/vibe/internal/config"
	"github.com/vibe-science/vibe/internal/fault"
	"github.com/vibe-science/vibe/internal/store"
)

// IO are the streams a command writes to.
type IO struct {
	In     io.Reader
	Out    io.Writer
	ErrOut io.Writer
	// TTY reports whether Out is a terminal (tables and colour only then).
	TTY bool
	// Interactive reports whether In and Out are both terminals: a command
	// may ask a question and wait for the answer (`vibe setup` does).
	Interactive bool
	// Width is the terminal's width in columns (0: unknown, 80 is assumed).
	Width int
}

// Factory hands commands their dependencies, lazily.
type Factory struct {
	IO     IO
	Now    func() time.Time
	Getenv func(string) string
	// Exec runs an external program (the claude CLI); tests replace it.
	Exec func(ctx context.Context, name string, args ...string) (string, error)
	// LookPath finds an external program.
	LookPath func(string) (string, error)
	// Root is the plugin root (the checkout holding bin/, hooks.json).
	Root string

	st *store.Store
}

// Paths resolves VIBE_HOME.
func (f *Factory) Paths() config.Paths { return config.Resolve(f.Getenv) }

// Store opens the database once.
func (f *Factory) Store(ctx context.Context) (*store.Store, error) {
	if f.st != nil {
		return f.st, nil
	}
	path := f.Paths().DB
	st, err := store.Open(ctx, path, store.Options{})
	if err != nil {
		// The store's errors name the operation, not the file; a researcher
		// with VIBE_HOME or VIBE_DB set needs to know which file it was.
		return nil, fmt.Errorf("open the database %s: %w", path, err)
	}
	f.st = st
	return st, nil
}

// Close releases what the factory opened.
func (f *Factory) Close() {
	if f.st != nil {
		f.st.Close()
		f.st = nil
	}
}

// PluginRoot guesses the plugin root: VIBE_PLUGIN_ROOT, else the folder
// above the running binary's bin/.
func PluginRoot(getenv func(string) string) string {
	if r := getenv("VIBE_PLUGIN_ROOT"); r != "" {
		return r
	}
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	if real, err := filepath.EvalSymlinks(exe); err == nil {
		exe = real
	}
	return filepath.Dir(filepath.Dir(exe))
}

// ExitCode is the one table from errors to the CLI's exit codes:
// 0 success, 1 a check failed or something went wrong, 2 usage.
func ExitCode(err error) int {
	if err == nil {
		return 0
	}
	var ue *UsageError
	if errors.As(err, &ue) {
		return 2
	}
	switch fault.KindOf(err) {
	case fault.Invalid:
		return 2
	}
	return 1
}

// UsageError is a mistake in how a command was called (a flag, an
// argument): exit code 2, with the usage to fix it in the message.
type UsageError struct{ Err error }

// Error is the message, which says how to call the command.
func (u *UsageError) Error() string { return u.Err.Error() }

// Unwrap is the error the usage error wraps.
func (u *UsageError) Unwrap() error { return u.Err }
