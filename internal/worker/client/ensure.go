package client

import (
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/gofrs/flock"

	"github.com/vibe-science/vibe/internal/config"
)

// BinaryName is the worker executable, built next to the hooks and the CLI.
const BinaryName = "vibe-embed-worker"

// StderrLog is the file under Paths.Logs that receives a detached worker's
// stdout and stderr: only what the worker could not log itself (a Go panic,
// a runtime crash) lands there.
const StderrLog = "worker-stderr.log"

// probeTimeout bounds the socket dial that proves a worker is listening; a
// local dial answers in microseconds, so this only matters for a wedged
// worker.
const probeTimeout = 50 * time.Millisecond

// Binary is the worker executable beside the running one: hooks, the CLI
// and the worker are installed together in the plugin's bin/.
func Binary() (string, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("find %s: %w", BinaryName, err)
	}
	if real, err := filepath.EvalSymlinks(exe); err == nil {
		exe = real
	}
	return filepath.Join(filepath.Dir(exe), BinaryName), nil
}

// EnsureRunning starts the worker beside the running executable unless one
// already runs for paths.Home. It never waits for the worker: when one runs
// it costs one socket dial (tens of microseconds), otherwise a lock probe
// and a fork; the model then loads in the new process.
func EnsureRunning(paths config.Paths) (started bool, err error) {
	bin, err := Binary()
	if err != nil {
		return false, err
	}
	return EnsureRunningBinary(paths, bin)
}

// EnsureRunningBinary is EnsureRunning with an explicit worker executable.
func EnsureRunningBinary(paths config.Paths, bin string) (started bool, err error) {
	if Listening(paths.Socket) {
		return false, nil
	}
	held, err := LockHeld(paths)
	if err != nil {
		return false, err
	}
	if held { // starting up, or wedged: either way not ours to replace
		return false, nil
	}
	if err := Spawn(paths, bin); err != nil {
		return false, err
	}
	return true, nil
}

// Listening reports whether something accepts connections on socket.
func Listening(socket string) bool {
	conn, err := net.DialTimeout("unix", socket, probeTimeout)
	if err != nil {
		return false
	}
	conn.Close()
	return true
}

// LockHeld reports whether a worker holds paths.LockFile. The lock, not the
// pid file, decides whether a worker runs: the kernel drops it when the
// process dies, however it dies, so a stale pid file misleads nobody.
func LockHeld(paths config.Paths) (bool, error) {
	if err := os.MkdirAll(filepath.Dir(paths.LockFile), config.DirMode); err != nil {
		return false, fmt.Errorf("probe worker lock: %w", err)
	}
	l := flock.New(paths.LockFile)
	ok, err := l.TryRLock()
	if err != nil {
		return false, fmt.Errorf("probe worker lock %s: %w", paths.LockFile, err)
	}
	if ok {
		l.Unlock()
		return false, nil
	}
	return true, nil
}

// ReadPID reads the pid file; 0 when it is missing or unreadable.
func ReadPID(paths config.Paths) int {
	raw, err := os.ReadFile(paths.PIDFile)
	if err != nil {
		return 0
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(raw)))
	if err != nil || pid <= 0 {
		return 0
	}
	return pid
}

// Spawn starts bin detached: in its own session (so the hook's process
// group and terminal signals do not reach it), stdin from /dev/null, stdout
// and stderr appended to StderrLog. The child is released at once.
func Spawn(paths config.Paths, bin string) error {
	if st, err := os.Stat(bin); err != nil || st.IsDir() {
		return fmt.Errorf("start worker: %s not found: build it with `make build`", bin)
	}
	if err := os.MkdirAll(paths.Logs, config.DirMode); err != nil {
		return fmt.Errorf("start worker: %w", err)
	}
	out, err := os.OpenFile(filepath.Join(paths.Logs, StderrLog), os.O_CREATE|os.O_WRONLY|os.O_APPEND, config.FileMode)
	if err != nil {
		return fmt.Errorf("start worker: %w", err)
	}
	config.NarrowFile(out)
	defer out.Close()
	cmd := exec.Command(bin, "--foreground", "--home", paths.Home)
	cmd.Stdout, cmd.Stderr = out, out
	cmd.Dir = paths.Home
	cmd.SysProcAttr = detached()
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start worker %s: %w", bin, err)
	}
	return cmd.Process.Release()
}

// ErrNotRunning says no worker holds the lock.
var ErrNotRunning = errors.New("embed worker is not running")
