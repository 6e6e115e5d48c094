package client

import (
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/gofrs/flock"

	"github.com/vibe-science/vibe/internal/config"
)

func shortPaths(t *testing.T) config.Paths {
	t.Helper()
	dir, err := os.MkdirTemp("", "vc")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return config.Resolve(func(k string) string {
		if k == "VIBE_HOME" {
			return dir
		}
		return ""
	})
}

// serveOnce answers the first request on socket with reply.
func serveOnce(t *testing.T, socket, reply string) {
	t.Helper()
	ln, err := net.Listen("unix", socket)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		conn, err := ln.Accept()
		if err != nil {
			return
		}
		defer conn.Close()
		buf := make([]byte, 4096)
		conn.Read(buf)
		conn.Write([]byte(reply))
	}()
}

func TestCallReplies(t *testing.T) {
	tests := []struct {
		name  string
		reply string
		want  string
		check func(error) bool
	}{
		{"garbage", "<html>\n", "embed worker unavailable: reply to health is not JSON: invalid character '<' looking for beginning of value",
			func(err error) bool { return errors.Is(err, ErrUnavailable) }},
		{"refusal", `{"ok":false,"error":"no embedding model installed","code":"no_model"}` + "\n", "no embedding model installed",
			func(err error) bool { var e *Error; return errors.As(err, &e) && e.Code == CodeNoModel }},
		{"hang up", "", "embed worker unavailable: no reply to health: EOF",
			func(err error) bool { return errors.Is(err, ErrUnavailable) }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := shortPaths(t)
			serveOnce(t, p.Socket, tc.reply)
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			defer cancel()
			_, err := Call(ctx, p.Socket, Request{Op: OpHealth})
			if err == nil || err.Error() != tc.want || !tc.check(err) {
				t.Errorf("err = %v, want %q", err, tc.want)
			}
		})
	}
}

func TestLockPIDAndListening(t *testing.T) {
	p := shortPaths(t)
	if Listening(p.Socket) {
		t.Error("Listening with no socket")
	}
	if held, err := LockHeld(p); err != nil || held {
		t.Errorf("LockHeld with no worker = %v, %v", held, err)
	}
	l := flock.New(p.LockFile)
	if ok, err := l.TryLock(); !ok || err != nil {
		t.Fatalf("TryLock: %v %v", ok, err)
	}
	if held, err := LockHeld(p); err != nil || !held {
		t.Errorf("LockHeld while locked = %v, %v", held, err)
	}
	l.Unlock()
	pids := []struct {
		content string
		want    int
	}{{"123\n", 123}, {" 77 ", 77}, {"", 0}, {"-4\n", 0}, {"pid\n", 0}}
	for _, tc := range pids {
		os.WriteFile(p.PIDFile, []byte(tc.content), 0o644)
		if got := ReadPID(p); got != tc.want {
			t.Errorf("ReadPID(%q) = %d, want %d", tc.content, got, tc.want)
		}
	}
	os.Remove(p.PIDFile)
	if got := ReadPID(p); got != 0 {
		t.Errorf("ReadPID(missing) = %d", got)
	}
	// EnsureRunning never spawns while another process holds the lock.
	l.TryLock()
	defer l.Unlock()
	started, err := EnsureRunningBinary(p, filepath.Join(p.Home, "no-such-binary"))
	if started || err != nil {
		t.Errorf("EnsureRunning under a held lock = %v, %v", started, err)
	}
}
