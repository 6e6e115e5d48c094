//go:build unix

package relay

import (
	"errors"
	"io"
	"slices"
	"syscall"

	"github.com/vibe-science/vibe/internal/vibehome"
	"github.com/vibe-science/vibe/internal/wire"
)

// OSEnv is the Env of a real process: file descriptors 0, 1 and 2 and the
// process environment, through system calls.
func OSEnv() Env {
	return Env{Stdin: fd(0), Stdout: fd(1), Stderr: fd(2), Getenv: thisProcess.getenv, Environ: thisProcess.environ,
		Executable: executable, Run: runHandler,
		Args: args, Setenv: thisProcess.setenv, Start: startDaemon}
}

// exists reports whether a file is there.
func exists(path string) bool {
	var st syscall.Stat_t
	return syscall.Stat(path, &st) == nil
}

// isDir reports whether a path is a folder (links followed).
func isDir(path string) bool {
	var st syscall.Stat_t
	return syscall.Stat(path, &st) == nil && st.Mode&syscall.S_IFMT == syscall.S_IFDIR
}

// roundTrip sends one hook frame to the Unix socket and reads the reply
// with blocking system calls and socket timeouts: a hook sends a single
// request, and Go's network poller (its threads and epoll set-up) would
// cost more than the exchange itself. The peer must be daemon (checkPeer)
// before it is sent anything: an errUntrusted says why it is not.
func roundTrip(socket string, frame []byte, timeoutMS int64, daemon string) (rep wire.HookReply, err error) {
	s, err := syscall.Socket(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
	if err != nil {
		return wire.HookReply{}, err
	}
	defer syscall.Close(s)
	syscall.CloseOnExec(s)
	tv := syscall.NsecToTimeval(timeoutMS * 1e6)
	if err := syscall.SetsockoptTimeval(s, syscall.SOL_SOCKET, syscall.SO_SNDTIMEO, &tv); err != nil {
		return wire.HookReply{}, err
	}
	if err := syscall.SetsockoptTimeval(s, syscall.SOL_SOCKET, syscall.SO_RCVTIMEO, &tv); err != nil {
		return wire.HookReply{}, err
	}
	if err := syscall.Connect(s, &syscall.SockaddrUnix{Name: socket}); err != nil {
		if err == syscall.ECONNREFUSED || err == syscall.ENOENT {
			return wire.HookReply{}, errNoListener
		}
		return wire.HookReply{}, err
	}
	if err := checkPeer(s, daemon); err != nil {
		return wire.HookReply{}, err
	}
	if _, err := fd(s).Write(frame); err != nil {
		return wire.HookReply{}, err // EAGAIN: the timeout passed
	}
	b, err := readReply(fd(s))
	if err == nil {
		rep, err = wire.ParseHookReply(b, maxReply)
	}
	if err != nil {
		return wire.HookReply{}, errors.New("receive: " + err.Error())
	}
	return rep, nil
}

// readReply reads the worker's reply frame, exactly (wire.HookReplyLen):
// waiting for the worker to close the connection could cost a wake-up.
func readReply(r fd) ([]byte, error) {
	b := make([]byte, 0, firstRead)
	for want := 0; want == 0 || len(b) < want; {
		if len(b) == cap(b) {
			b = slices.Grow(b, max(want-len(b), len(b)))
		}
		n, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err != nil {
			return nil, err // io.EOF: the frame ended early; EAGAIN: the timeout passed
		}
		if want == 0 {
			if want, err = wire.HookReplyLen(b, maxReply); err != nil {
				return nil, err
			}
		}
	}
	return b, nil
}

// runHandler replaces this process with the handler binary, the event on
// its stdin through an unlinked temporary file: no second process to wait
// for and no pipe to copy through. Only when no temporary file can be made
// does it run the handler as a child fed through a pipe. PreToolUse's
// handler always runs as a child: a handler killed by a signal (the OOM
// killer, a crash in SQLite) must still refuse the call (failClosed), and
// nothing would be left to say so after an exec.
func runHandler(full, hookName string, data []byte, note string) (int, error) {
	argv, env := []string{full, hookName}, thisProcess.environ()
	if note != "" {
		env = append(env, NoteVar+"="+note)
	}
	if hookName == "pre-tool-use" {
		return runChild(full, argv, env, data)
	}
	if f, err := eventFile(data); err == nil {
		if err := dupStdin(f); err != nil {
			syscall.Close(f)
			return runChild(full, argv, env, data)
		}
		return 0, syscall.Exec(full, argv, env) // returns only on failure
	}
	return runChild(full, argv, env, data)
}

// eventFile writes data to a new temporary file, unlinked at once, and
// returns it open at offset 0.
func eventFile(data []byte) (int, error) {
	dir := thisProcess.getenv("TMPDIR")
	if dir == "" {
		dir = "/tmp"
	}
	prefix := dir + "/vibe-event-" + itoa(syscall.Getpid()) + "-"
	for i := 0; i < 100; i++ {
		name := prefix + itoa(i)
		f, err := syscall.Open(name, syscall.O_RDWR|syscall.O_CREAT|syscall.O_EXCL|syscall.O_CLOEXEC, 0o600)
		if err == syscall.EEXIST {
			continue
		}
		if err != nil {
			return -1, err
		}
		syscall.Unlink(name)
		if _, err := fd(f).Write(data); err != nil {
			syscall.Close(f)
			return -1, err
		}
		if _, err := syscall.Seek(f, 0, 0); err != nil {
			syscall.Close(f)
			return -1, err
		}
		return f, nil
	}
	return -1, errors.New("no free temporary file name")
}

// runChild runs the handler as a child process with the event on a pipe and
// this process's stdout and stderr, and waits for it.
func runChild(full string, argv, env []string, data []byte) (int, error) {
	var p [2]int
	if err := syscall.Pipe(p[:]); err != nil {
		return 0, err
	}
	syscall.CloseOnExec(p[0])
	syscall.CloseOnExec(p[1])
	pid, err := syscall.ForkExec(full, argv, &syscall.ProcAttr{Env: env, Files: []uintptr{uintptr(p[0]), 1, 2}})
	syscall.Close(p[0])
	if err != nil {
		syscall.Close(p[1])
		return 0, err
	}
	fd(p[1]).Write(data) // a handler that stops reading early gets EPIPE here, as from any pipe
	syscall.Close(p[1])
	var ws syscall.WaitStatus
	for {
		_, err := syscall.Wait4(pid, &ws, 0, nil)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return 0, err
		}
		break
	}
	if ws.Signaled() {
		return 0, errors.New("the handler was killed by " + ws.Signal().String())
	}
	return ws.ExitStatus(), nil
}

// startDaemon starts the worker program daemon for the VIBE_HOME of p,
// as client.Spawn does (internal/worker/client): in a session of its own,
// so the hook's process group and terminal signals do not reach it, stdin
// from /dev/null, stdout and stderr appended to the logs' worker-stderr.log
// (/dev/null while that folder does not exist), and never waited for: it
// returns once the program is executing (a fork with the parent held until
// the exec, a few hundred microseconds). None of the hook's own files
// reaches the worker, so Claude Code, which reads the hook's output until
// it closes, does not wait for it. A worker that holds the lock (running,
// or starting) is left alone; two hooks that race start two, and the one
// that does not get the lock exits.
func startDaemon(daemon string, p vibehome.Paths) error {
	if lockHeld(p.LockFile) {
		return nil
	}
	null, err := syscall.Open("/dev/null", syscall.O_RDWR|syscall.O_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer syscall.Close(null)
	out, err := syscall.Open(p.Logs+"/"+stderrLog, syscall.O_WRONLY|syscall.O_APPEND|syscall.O_CREAT|syscall.O_CLOEXEC, 0o600)
	if err != nil {
		out = null
	} else {
		defer syscall.Close(out)
	}
	env := thisProcess.environ()
	kept := env[:0]
	for _, kv := range env {
		if !hasPrefix(kv, ClientVar+"=") { // the hook's client is no worker's
			kept = append(kept, kv)
		}
	}
	_, err = syscall.ForkExec(daemon, []string{daemon, "--foreground", "--home", p.Home}, &syscall.ProcAttr{
		Dir: p.Home, Env: kept, Files: []uintptr{uintptr(null), uintptr(out), uintptr(out)},
		Sys: &syscall.SysProcAttr{Setsid: true},
	})
	return err
}

// stderrLog is client.StderrLog (internal/worker/client, which this package
// cannot import); TestStderrLogMatchesClient keeps them equal.
const stderrLog = "worker-stderr.log"

// lockHeld reports whether a process holds the worker lock at path (the
// flock the worker takes in Open): a probe that takes a shared lock and
// gives it back at once. A missing file is a lock nobody holds.
func lockHeld(path string) bool {
	f, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return false
	}
	defer syscall.Close(f)
	if err := syscall.Flock(f, syscall.LOCK_SH|syscall.LOCK_NB); err != nil {
		return err == syscall.EWOULDBLOCK
	}
	syscall.Flock(f, syscall.LOCK_UN)
	return false
}

// fd is an open file descriptor as a reader and writer.
type fd int

func (f fd) Read(p []byte) (int, error) {
	for {
		n, err := syscall.Read(int(f), p)
		switch {
		case err == syscall.EINTR:
			continue
		case err != nil:
			return 0, err
		case n == 0 && len(p) > 0:
			return 0, io.EOF
		}
		return n, nil
	}
}

func (f fd) Write(p []byte) (int, error) {
	done := 0
	for done < len(p) {
		n, err := syscall.Write(int(f), p[done:])
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return done, err
		}
		done += n
	}
	return done, nil
}
