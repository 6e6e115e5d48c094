//go:build !unix

package relay

import (
	"bytes"
	"errors"
	"os"
	"os/exec"

	"github.com/vibe-science/vibe/internal/wire"
)

// OSEnv is the Env of a real process. Without Unix sockets there is no
// worker to relay to, so start-up cost matters less: package os it is.
func OSEnv() Env {
	return Env{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Getenv: os.Getenv, Environ: os.Environ,
		Executable: os.Executable, Run: runHandler,
		Args: func() []string { return os.Args[1:] }, Setenv: os.Setenv}
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

func isDir(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.IsDir()
}

// roundTrip is not available without Unix sockets: hooks run locally.
func roundTrip(string, []byte, int64, string) (wire.HookReply, error) {
	return wire.HookReply{}, errors.New("no Unix sockets on this system")
}

// runHandler runs the handler as a child process (no exec here).
func runHandler(full, hookName string, data []byte, note string) (int, error) {
	cmd := exec.Command(full, hookName)
	if note != "" {
		cmd.Env = append(os.Environ(), NoteVar+"="+note)
	}
	cmd.Stdin = bytes.NewReader(data)
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if errors.As(err, &exit) && exit.ExitCode() >= 0 {
		return exit.ExitCode(), nil
	}
	return 0, err
}
