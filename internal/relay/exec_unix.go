//go:build unix

package relay

import (
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// execHandler replaces this process with the handler binary, the event on
// its stdin through an unlinked temporary file: no second process to wait
// for and no pipe to copy through. It returns only when that is not
// possible (the caller then runs the handler as a child).
func execHandler(full, hookName string, data []byte) error {
	f, err := os.CreateTemp("", "vibe-event-*")
	if err != nil {
		return err
	}
	os.Remove(f.Name())
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if _, err := f.Seek(0, 0); err != nil {
		f.Close()
		return err
	}
	if err := unix.Dup2(int(f.Fd()), 0); err != nil {
		f.Close()
		return err
	}
	return syscall.Exec(full, []string{full, hookName}, os.Environ())
}
