//go:build unix

package store

import (
	"os"
	"syscall"
)

// lockSpool takes the replay lock (flock: the kernel drops it however the
// holder dies) and returns its release; errReplaying when another process
// holds it (a hook never waits for another's replay).
func lockSpool(path string) (func(), error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if err == syscall.EWOULDBLOCK {
			return nil, errReplaying
		}
		return nil, err
	}
	return func() { f.Close() }, nil
}
