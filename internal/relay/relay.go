// Package relay is what a hook binary does: it reads the event and hands it
// to the embed worker, which holds the database open and runs the hook's
// handler in-process (internal/hooks through hookrun), then prints the
// worker's reply and exits with its code. When no worker answers, the event
// is too large for the socket, or the worker is another build, it runs the
// full handler binary (vibe-hook) next to itself on the same bytes: the
// outcome is the same, only slower. A hook binary built on this package
// links no cgo and no SQLite, so it starts like a plain Go program; the
// price of cgo and SQLite is paid once, by the resident worker. It imports
// the standard library, config, hook and the worker's wire types only (no
// network stack: one blocking socket exchange, see roundTrip).
package relay

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/vibe-science/vibe/internal/buildinfo"
	"github.com/vibe-science/vibe/internal/config"
	"github.com/vibe-science/vibe/internal/hook"
	"github.com/vibe-science/vibe/internal/worker/proto"
)

// FullBinary is the binary that runs any hook's handler locally.
const FullBinary = "vibe-hook"

// MaxRelayed is the largest event sent over the socket (the worker reads
// lines of up to 4 MB and JSON inflates bytes by a third); larger events
// run locally.
const MaxRelayed = 2 << 20

// Env is the process around a hook binary.
type Env struct {
	Stdin      io.Reader
	Stdout     io.Writer
	Stderr     io.Writer
	Getenv     func(string) string
	Environ    func() []string
	Executable func() (string, error)
	// Replace lets the local fallback replace this process with the handler
	// (a real hook binary); tests leave it false and run it as a child.
	Replace bool
}

// OSEnv is the Env of a real process.
func OSEnv() Env {
	return Env{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Getenv: os.Getenv, Environ: os.Environ,
		Executable: os.Executable, Replace: true}
}

// Deadline is how long a hook waits for the worker's reply: the handler's
// own budget plus room to spare (SessionEnd hooks share 1.5 s).
func Deadline(hookName string) time.Duration {
	if hookName == "session-end" {
		return 1200 * time.Millisecond
	}
	return 8 * time.Second
}

// Main runs one hook event and returns the exit code.
func Main(hookName string, env Env) int {
	data, err := io.ReadAll(io.LimitReader(env.Stdin, hook.MaxEvent+1))
	if err != nil {
		data = nil // the local handler reports the unreadable event
	}
	if resp, ok := relay(hookName, data, env); ok {
		env.Stdout.Write(resp.Stdout)
		env.Stderr.Write(resp.Stderr)
		return resp.Exit
	}
	return local(hookName, data, env)
}

// relay sends the event to the worker; ok is false when the event must run
// locally instead.
func relay(hookName string, data []byte, env Env) (*proto.Response, bool) {
	if strings.EqualFold(env.Getenv("VIBE_RELAY"), "off") || len(data) > MaxRelayed {
		return nil, false
	}
	paths := config.Resolve(env.Getenv)
	if _, err := os.Stat(paths.Socket); err != nil {
		return nil, false // no worker: do not pay for a dial
	}
	line, err := json.Marshal(proto.Request{
		Op: proto.OpHook, Hook: hookName, Version: buildinfo.Version, Env: forwarded(env.Environ()), Stdin: data,
	})
	if err != nil {
		return nil, false
	}
	raw, err := roundTrip(paths.Socket, append(line, '\n'), Deadline(hookName))
	if err != nil {
		return nil, false
	}
	var resp proto.Response
	if err := json.Unmarshal(raw, &resp); err != nil || !resp.OK {
		return nil, false // a refusal (another build, unknown hook): run locally
	}
	return &resp, true
}

// forwarded is the environment a handler reads: vibe's and Claude Code's
// variables and HOME.
func forwarded(environ []string) map[string]string {
	out := map[string]string{}
	for _, kv := range environ {
		k, v, ok := strings.Cut(kv, "=")
		if ok && (strings.HasPrefix(k, "VIBE_") || strings.HasPrefix(k, "CLAUDE_") || k == "HOME") {
			out[k] = v
		}
	}
	return out
}

// local runs the full handler binary on the event.
func local(hookName string, data []byte, env Env) int {
	exe, err := env.Executable()
	if err != nil {
		return missing(hookName, env, err)
	}
	full := filepath.Join(filepath.Dir(exe), FullBinary)
	if env.Replace {
		if _, err := os.Stat(full); err == nil {
			_ = execHandler(full, hookName, data) // returns only on failure
		}
	}
	cmd := exec.Command(full, hookName)
	cmd.Stdin = bytes.NewReader(data)
	cmd.Stdout, cmd.Stderr = env.Stdout, env.Stderr
	err = cmd.Run()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &exit) && exit.ExitCode() >= 0:
		return exit.ExitCode()
	}
	return missing(hookName, env, err)
}

// missing answers when the handler binary cannot run: PreToolUse refuses
// (exit 2 blocks the call, the reason goes to Claude), every other hook lets
// the session go on and tells the user.
func missing(hookName string, env Env, err error) int {
	msg := fmt.Sprintf("vibe: the %s handler could not run (%v): run `make build` (or `vibe setup`) in the vibe plugin folder", hookName, err)
	if hookName == "pre-tool-use" {
		fmt.Fprintln(env.Stderr, msg+"; this call was refused to keep protected files safe.")
		return 2
	}
	out, _ := json.Marshal(map[string]string{"systemMessage": msg + "."})
	env.Stdout.Write(append(out, '\n'))
	return 0
}
