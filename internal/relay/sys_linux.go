package relay

import (
	"strconv"
	"strings"
	"syscall"
)

// dupStdin makes f this process's standard input (Dup3: Linux on arm64 has
// no dup2).
func dupStdin(f int) error { return syscall.Dup3(f, 0, 0) }

// executable is this binary's path: argv[0] when it names this file
// itself (a path with a slash to a regular file, not a link to one: the
// daemon is looked for beside the real binary), else /proc/self/exe, which
// costs several times the one lstat.
func executable() (string, error) {
	if a := runtimeArgs(); len(a) > 0 && strings.Contains(a[0], "/") {
		var st syscall.Stat_t
		if syscall.Lstat(a[0], &st) == nil && st.Mode&syscall.S_IFMT == syscall.S_IFREG {
			return a[0], nil
		}
	}
	buf := make([]byte, 4096)
	n, err := syscall.Readlink("/proc/self/exe", buf)
	if err != nil {
		return "", err
	}
	return string(buf[:n]), nil
}

// checkPeer trusts the process on the other end of socket s only when it
// runs as this user and executes daemon: SO_PEERCRED names the process that
// made the listening socket, and /proc/<pid>/exe is the file it runs, so a
// listener started by anything else (a script, another install's copy, a
// rebuilt binary's old process) is refused. Files are compared by device
// and inode, so a symbolic link to the daemon is the daemon.
func checkPeer(s int, daemon string) error {
	cred, err := syscall.GetsockoptUcred(s, syscall.SOL_SOCKET, syscall.SO_PEERCRED)
	if err != nil {
		return errUntrusted{"its identity cannot be read: " + err.Error()}
	}
	if int(cred.Uid) != syscall.Getuid() {
		return errUntrusted{"it runs as uid " + strconv.Itoa(int(cred.Uid)) + ", not as this user"}
	}
	var want, got syscall.Stat_t
	if err := syscall.Stat(daemon, &want); err != nil {
		return errUntrusted{daemon + " cannot be read: " + err.Error()}
	}
	proc := "/proc/" + strconv.Itoa(int(cred.Pid)) + "/exe"
	if err := syscall.Stat(proc, &got); err != nil {
		return errUntrusted{"its program (pid " + strconv.Itoa(int(cred.Pid)) + ") cannot be read: " + err.Error()}
	}
	if want.Dev != got.Dev || want.Ino != got.Ino {
		buf := make([]byte, 4096)
		name := "another program"
		if n, err := syscall.Readlink(proc, buf); err == nil {
			name = string(buf[:n])
		}
		return errUntrusted{"pid " + strconv.Itoa(int(cred.Pid)) + " runs " + name + ", not " + daemon}
	}
	return nil
}
