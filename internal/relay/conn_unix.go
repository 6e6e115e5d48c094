//go:build unix

package relay

import (
	"bytes"
	"errors"
	"fmt"
	"syscall"
	"time"
)

// maxReply bounds the worker's reply line.
const maxReply = 16 << 20

// roundTrip sends one line to the Unix socket and reads one line back with
// blocking system calls and socket timeouts: a hook sends a single request,
// and Go's network poller (its threads and epoll set-up) would cost more
// than the exchange itself.
func roundTrip(socket string, line []byte, timeout time.Duration) ([]byte, error) {
	fd, err := syscall.Socket(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("socket: %w", err)
	}
	defer syscall.Close(fd)
	tv := syscall.NsecToTimeval(timeout.Nanoseconds())
	if err := syscall.SetsockoptTimeval(fd, syscall.SOL_SOCKET, syscall.SO_SNDTIMEO, &tv); err != nil {
		return nil, fmt.Errorf("socket timeout: %w", err)
	}
	if err := syscall.SetsockoptTimeval(fd, syscall.SOL_SOCKET, syscall.SO_RCVTIMEO, &tv); err != nil {
		return nil, fmt.Errorf("socket timeout: %w", err)
	}
	if err := syscall.Connect(fd, &syscall.SockaddrUnix{Name: socket}); err != nil {
		return nil, fmt.Errorf("connect %s: %w", socket, err)
	}
	for len(line) > 0 {
		n, err := syscall.Write(fd, line)
		if err != nil {
			if errors.Is(err, syscall.EINTR) {
				continue
			}
			return nil, fmt.Errorf("send: %w", err)
		}
		line = line[n:]
	}
	var reply []byte
	buf := make([]byte, 64<<10)
	for {
		n, err := syscall.Read(fd, buf)
		if err != nil {
			if errors.Is(err, syscall.EINTR) {
				continue
			}
			return nil, fmt.Errorf("receive: %w", err) // EAGAIN: the timeout passed
		}
		if n == 0 {
			return nil, errors.New("receive: the worker closed the connection")
		}
		reply = append(reply, buf[:n]...)
		if i := bytes.IndexByte(reply, '\n'); i >= 0 {
			return reply[:i], nil
		}
		if len(reply) > maxReply {
			return nil, fmt.Errorf("receive: reply longer than %d bytes", maxReply)
		}
	}
}
