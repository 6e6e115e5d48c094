//go:build darwin || freebsd

package relay

import (
	"syscall"

	"golang.org/x/sys/unix"
)

// checkPeer trusts the process on the other end of socket s when it runs as
// this user (LOCAL_PEERCRED). These systems give no cgo-free way to read
// another process's executable, so unlike on Linux the program itself is
// not checked: the socket's 0700 folder and the uid are the guard.
func checkPeer(s int, daemon string) error {
	cred, err := unix.GetsockoptXucred(s, unix.SOL_LOCAL, unix.LOCAL_PEERCRED)
	if err != nil {
		return errUntrusted{"its identity cannot be read: " + err.Error()}
	}
	if int(cred.Uid) != syscall.Getuid() {
		return errUntrusted{"it runs as uid " + itoa(int(cred.Uid)) + ", not as this user"}
	}
	return nil
}
