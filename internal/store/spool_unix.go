//go:build unix

package store

import (
	"os"
	"syscall"
)

// lockSpool takes the replay lock (flock: the kernel drops it however the
// holder dies) and returns its release.
func lockSpool(path string) (func(), error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, err
	}
	return func() { f.Close() }, nil
}
