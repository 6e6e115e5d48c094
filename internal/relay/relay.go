// Package relay is what a hook binary does: it reads the event and hands it
// to the resident process (internal/worker, binary vibe-embed-worker), which
// holds the database open and runs the hook's handler in-process
// (internal/handler through hookrun), then prints the worker's reply and
// exits with its code. When no worker answers, the event
// is too large for the socket, or the worker is another build, it runs the
// full handler binary (vibe-hook) next to itself on the same bytes: the
// outcome is the same, only slower. When no worker runs at all (it exited
// after resting, or was never started), the client also starts one,
// detached and without waiting for it (StartWorker), so that the hooks
// after this one are relayed again.
//
// A hook binary runs on every tool call, and its start-up is most of its
// cost, so this package links as little as a Go program can: no cgo, no
// SQLite, no network stack, no encoding/json, fmt or reflection, and on
// Linux not even package os (each of those measurably delays start-up). It
// speaks to the worker with raw system calls and the plain hook frame of
// internal/wire, and finds the socket through internal/vibehome.
//
// On Linux a client links nothing but what package syscall links already,
// wire, vibehome and buildinfo (`make deps-check`), and on its way to the
// worker's reply it runs little code and allocates little, because in a
// new process each first touch is a page fault: of a page of code, of a
// span of memory for each size of buffer, and of a larger stack when a
// frame outgrows the first one. Measured against a client of the same
// system calls written as one function (2026-11-25, timed from the parent
// process, 500 runs in turns): the previous form of this package, which
// called into strings, strconv and bytes, grew its read buffers from 512
// bytes and kept readlink's 4 KB buffer in executable's frame, took 0.12
// ms longer a hook; this one as long in all (0.03 ms more from main to its
// exit, as much less before main). The hook commands also turn off the
// runtime's container-aware GOMAXPROCS, its updater and its names for
// memory mappings (`//go:debug` in cmd/vibe-*): 0.02-0.04 ms of start-up.
//
// In a folder that is no vibe project (vibehome.OptedIn, with the project
// Claude Code names in CLAUDE_PROJECT_DIR) the client answers nothing and
// runs no handler: a plugin installed for research costs other projects a
// start of this binary and a few stats (mayAct).
//
// The worker decides permissions, so the client sends an event only to a
// peer it trusts: on Linux the process behind the socket (SO_PEERCRED) must
// run as this user and execute this install's daemon binary
// (DaemonBinary next to the client, compared by device and inode through
// /proc/<pid>/exe); on darwin and FreeBSD only the uid can be read without
// cgo; on other systems nothing is checked. A peer that fails the check is
// sent nothing: the handler runs locally and its reply says why (NoteVar).
package relay

import (
	"errors"
	"io"
	"slices"

	"github.com/vibe-science/vibe/internal/buildinfo"
	"github.com/vibe-science/vibe/internal/vibehome"
	"github.com/vibe-science/vibe/internal/wire"
)

// FullBinary is the binary that runs any hook's handler locally.
const FullBinary = "vibe-hook"

// DaemonBinary is the resident process this install trusts with its hooks
// (internal/worker/client.BinaryName), built next to the hook binaries.
const DaemonBinary = "vibe-embed-worker"

// NoteVar carries a sentence from the client to the local handler, which
// adds it to its reply's systemMessage (the client cannot: it execs).
const NoteVar = "VIBE_RELAY_NOTE"

// MaxRelayed is the largest event sent over the socket (the worker reads
// frames of up to 4 MB, environment included); larger events run locally.
const MaxRelayed = 2 << 20

// maxEvent is hook.MaxEvent (64 MB), which this package cannot import
// without linking encoding/json; TestMaxEventMatchesHook keeps them equal.
// One byte more is read so the handler can tell an oversized event.
const maxEvent = 64 << 20

// maxReply bounds the worker's reply.
const maxReply = 16 << 20

// Env is the process around a hook binary.
type Env struct {
	Stdin      io.Reader
	Stdout     io.Writer
	Stderr     io.Writer
	Getenv     func(string) string
	Environ    func() []string
	Executable func() (string, error)
	// Daemon is the path of the only program the client relays to; nil
	// means DaemonBinary next to Executable.
	Daemon func() (string, error)
	// Run runs the full handler binary on the event and returns its exit
	// code; OSEnv's replaces this process with it (runHandler). A non-empty
	// note goes to the handler in NoteVar.
	Run func(full, hookName string, data []byte, note string) (int, error)
	// Args are the hook command's arguments after the binary's name; nil
	// means none. `--client codex` names the agent client (internal/client).
	Args func() []string
	// Setenv sets a variable for the handler, wherever it runs: Environ
	// reports it after the call. nil when the hook names no client.
	Setenv func(k, v string) error
	// Start starts the worker program daemon for the VIBE_HOME of paths,
	// detached, unless a worker holds its lock already, and returns at
	// once (OSEnv's startDaemon); nil starts nothing.
	Start func(daemon string, paths vibehome.Paths) error
}

// ClientVar carries the client named by `--client NAME` to the handler
// (the worker's forwarded environment, or vibe-hook's own).
const ClientVar = "VIBE_CLIENT"

// nameClient turns `--client NAME` (or `--client=NAME`) into ClientVar, so
// the worker and vibe-hook see it like any other VIBE_ variable.
func nameClient(env Env) {
	if env.Args == nil || env.Setenv == nil {
		return
	}
	args := env.Args()
	for i, a := range args {
		name, ok := cutPrefix(a, "--client=")
		if !ok && a == "--client" && i+1 < len(args) {
			name, ok = args[i+1], true
		}
		if ok {
			env.Setenv(ClientVar, name)
			return
		}
	}
}

// DeadlineMS is how long a hook waits for the worker's reply, in
// milliseconds: the handler's own budget plus room to spare (SessionEnd
// hooks share 1.5 s).
func DeadlineMS(hookName string) int64 {
	if hookName == "session-end" {
		return 1200
	}
	return 8000
}

// Main runs one hook event and returns the exit code.
func Main(hookName string, env Env) int {
	nameClient(env)
	data, err := readAll(env.Stdin, maxEvent+1)
	if err != nil {
		data = nil // the local handler reports the unreadable event
	}
	if !mayAct(env) && !eventIs(data, "Setup") {
		return 0 // no vibe project: the handler would say nothing either
	}
	rep, ok, note := relay(hookName, data, env)
	if ok {
		env.Stdout.Write(rep.Stdout)
		env.Stderr.Write(rep.Stderr)
		return failClosed(hookName, rep.Exit, env)
	}
	return failClosed(hookName, local(hookName, data, env, note), env)
}

// mayAct reports whether the handler may act on this event, so a hook in a
// folder that is no vibe project answers nothing at once, without a
// handler (the handler, hookrun.Env.Enforced, would be silent too, after
// the cost of reaching it). Only when Claude Code names the project
// (CLAUDE_PROJECT_DIR, absolute) and it did not opt in
// (vibehome.OptedIn), and the user did not turn enforcement on everywhere
// (VIBE_ENFORCE=everywhere) or keep a config.json the handler must read
// for it, is the answer no. Setup (`claude --init`, which the person runs
// on purpose) is answered everywhere: it prepares vibe and says whether the
// project opted in.
func mayAct(env Env) bool {
	dir := env.Getenv("CLAUDE_PROJECT_DIR")
	if dir == "" || !(dir[0] == '/' || len(dir) > 2 && dir[1] == ':') {
		return true
	}
	home := vibehome.Home(env.Getenv)
	for len(home) > 1 && (home[len(home)-1] == '/' || home[len(home)-1] == '\\') {
		home = home[:len(home)-1]
	}
	if v := env.Getenv("VIBE_ENFORCE"); v != "" {
		if equalFoldASCII(v, "everywhere") {
			return true
		}
	} else if exists(home + "/config.json") {
		return true
	}
	return vibehome.OptedIn(dir, home, isDir)
}

// failClosed turns any PreToolUse exit code but 0 (decided) and 2 (refused)
// into 2 with the reason on stderr. A client left to itself treats any other
// code as "no opinion", which would let a protected write through. Claude
// Code runs this binary with "onFailure": "block" (hooks.json) and would
// refuse anyway, but with a bare "failed"; Codex and Gemini run it through
// plugin/guard.sh, which does the same mapping; this is the binary's own
// net beneath both, and the one that says why. A Go panic already exits 2;
// runHandler runs PreToolUse's local handler as a child so that its crash
// lands here too.
func failClosed(hookName string, code int, env Env) int {
	if hookName != "pre-tool-use" || code == 0 || code == 2 {
		return code
	}
	io.WriteString(env.Stderr, "vibe: the "+hookName+" hook failed (exit "+itoa(code)+
		"), so this call was refused to keep protected files safe. See ~/.vibe-science/logs and run `vibe doctor`.\n")
	return 2
}

// errNoListener says nothing listens on the socket file: the worker that
// made it was killed (a worker that exits removes it).
var errNoListener = errors.New("no worker listens on the socket")

// errUntrusted marks a socket peer that is not this install's daemon.
type errUntrusted struct{ reason string }

func (e errUntrusted) Error() string { return e.reason }

// relay sends the event to the worker; ok is false when the event must run
// locally instead, and note then says why when the user should know (a
// process that is not this install's daemon holds the socket).
func relay(hookName string, data []byte, env Env) (rep wire.HookReply, ok bool, note string) {
	if equalFoldASCII(env.Getenv("VIBE_RELAY"), "off") || len(data) > MaxRelayed {
		return wire.HookReply{}, false, ""
	}
	socket := vibehome.Socket(env.Getenv)
	if !exists(socket) {
		startMissingWorker(hookName, env) // no worker: do not pay for a dial
		return wire.HookReply{}, false, ""
	}
	daemon, err := daemonPath(env)
	if err != nil {
		return wire.HookReply{}, false, ""
	}
	frame := wire.AppendHookRequest(nil, wire.HookRequest{
		Hook: hookName, Version: buildinfo.Version, Env: forwarded(env.Environ()), Stdin: data,
	})
	rep, err = roundTrip(socket, frame, DeadlineMS(hookName), daemon)
	if u, bad := err.(errUntrusted); bad {
		return wire.HookReply{}, false, "vibe: the process on " + socket + " is not this install's worker (" + u.reason +
			"), so the " + hookName + " hook ran its handler locally and sent it nothing. Stop that process, then run " +
			daemon + " to start this install's worker."
	}
	if err == errNoListener {
		startMissingWorker(hookName, env) // the socket file of a worker that was killed
	}
	if err != nil || rep.Code != "" {
		return wire.HookReply{}, false, "" // a refusal (another build, unknown hook): run locally
	}
	return rep, true, ""
}

// startMissingWorker starts the worker when none runs, so that the next hook is
// relayed again: the worker exits after resting (internal/worker), and the
// hook after that brings it back. This hook does not wait for it: it runs
// its handler locally all the same, and whatever the start does, its exit
// code is the handler's (PreToolUse still fails closed). SessionStart's
// handler starts the worker itself (and replaces one of another build),
// and VIBE_WORKER=off asks that nothing start it.
func startMissingWorker(hookName string, env Env) {
	if env.Start == nil || hookName == "session-start" || equalFoldASCII(env.Getenv("VIBE_WORKER"), "off") {
		return
	}
	daemon, err := daemonPath(env)
	if err != nil {
		return
	}
	env.Start(daemon, vibehome.Resolve(env.Getenv)) // a failure leaves hooks on the local path, as before
}

// daemonPath is the program the client trusts on the socket.
func daemonPath(env Env) (string, error) {
	if env.Daemon != nil {
		return env.Daemon()
	}
	exe, err := env.Executable()
	if err != nil {
		return "", err
	}
	return dir(exe) + DaemonBinary, nil
}

// forwarded is the environment a handler reads: vibe's and Claude Code's
// variables and HOME.
func forwarded(environ []string) []string {
	n := 0
	for _, kv := range environ {
		if forwards(kv) {
			n++
		}
	}
	out := make([]string, 0, n) // one allocation (see firstRead)
	for _, kv := range environ {
		if forwards(kv) {
			out = append(out, kv)
		}
	}
	return out
}

// forwards reports whether forwarded keeps the variable kv ("KEY=value").
func forwards(kv string) bool {
	i := indexByte(kv, '=')
	if i < 0 {
		return false
	}
	k := kv[:i]
	return hasPrefix(k, "VIBE_") || hasPrefix(k, "CLAUDE_") || k == "HOME"
}

// firstRead is the buffer readAll starts with, which holds most events
// and replies. A hook binary's start-up pays for each size of buffer it
// allocates (the runtime takes a span of memory for each size, and each
// span's first touch is a page fault), so the event and the reply share
// one size, whose span holds both.
const firstRead = 4 << 10

// readAll reads r to its end, or to limit bytes.
func readAll(r io.Reader, limit int) ([]byte, error) {
	b := make([]byte, 0, min(firstRead, limit))
	for len(b) < limit {
		if len(b) == cap(b) {
			b = slices.Grow(b, min(cap(b), limit-len(b)))
		}
		n, err := r.Read(b[len(b):min(cap(b), limit)])
		b = b[:len(b)+n]
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return b, err
		}
	}
	return b, nil
}

// local runs the full handler binary on the event.
func local(hookName string, data []byte, env Env, note string) int {
	exe, err := env.Executable()
	if err != nil {
		return missing(hookName, env, err)
	}
	full := dir(exe) + FullBinary
	code, err := env.Run(full, hookName, data, note)
	if err != nil {
		return missing(hookName, env, errors.New(full+": "+err.Error()))
	}
	return code
}

// dir is the folder part of a path, separator included.
func dir(p string) string {
	return p[:lastSeparator(p)+1]
}

// missing answers when the handler binary cannot run: PreToolUse refuses
// (exit 2 blocks the call, the reason goes to Claude), every other hook lets
// the session go on and tells the user.
func missing(hookName string, env Env, err error) int {
	msg := "vibe: the " + hookName + " handler could not run (" + err.Error() +
		"): run `make build` (or `vibe setup`) in the vibe plugin folder"
	if hookName == "pre-tool-use" {
		io.WriteString(env.Stderr, msg+"; this call was refused to keep protected files safe.\n")
		return 2
	}
	io.WriteString(env.Stdout, `{"systemMessage":`+jsonString(msg+".")+"}\n")
	return 0
}

// jsonString quotes s as a JSON string.
func jsonString(s string) string {
	const hex = "0123456789abcdef"
	b := make([]byte, 0, len(s)+2)
	b = append(b, '"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			b = append(b, '\\', c)
		case c < 0x20:
			b = append(b, `\u00`...)
			b = append(b, hex[c>>4], hex[c&0xf])
		default:
			b = append(b, c)
		}
	}
	return string(append(b, '"'))
}
