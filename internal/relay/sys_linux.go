package relay

import "syscall"

// dupStdin makes f this process's standard input (Dup3: Linux on arm64 has
// no dup2).
func dupStdin(f int) error { return syscall.Dup3(f, 0, 0) }

// executable is this binary's path: argv[0] when it names this file
// itself (a path with a slash to a regular file, not a link to one: the
// daemon is looked for beside the real binary), else /proc/self/exe, which
// costs several times the one lstat.
func executable() (string, error) {
	if a := runtimeArgs(); len(a) > 0 && hasSlash(a[0]) {
		var st syscall.Stat_t
		if syscall.Lstat(a[0], &st) == nil && st.Mode&syscall.S_IFMT == syscall.S_IFREG {
			return a[0], nil
		}
	}
	return readlink("/proc/self/exe")
}

// readlink is the target of the symbolic link at path. Kept out of the
// functions that call it: its 4 KB buffer lives on the stack, and in a
// caller's frame it would make the main goroutine's stack grow (a copy to
// a new stack, about 20 µs of a hook's start-up) even where the link is
// never read.
//
//go:noinline
func readlink(path string) (string, error) {
	buf := make([]byte, 4096)
	n, err := syscall.Readlink(path, buf)
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
		return errUntrusted{"it runs as uid " + itoa(int(cred.Uid)) + ", not as this user"}
	}
	var want, got syscall.Stat_t
	if err := syscall.Stat(daemon, &want); err != nil {
		return errUntrusted{daemon + " cannot be read: " + err.Error()}
	}
	proc := "/proc/" + itoa(int(cred.Pid)) + "/exe"
	if err := syscall.Stat(proc, &got); err != nil {
		return errUntrusted{"its program (pid " + itoa(int(cred.Pid)) + ") cannot be read: " + err.Error()}
	}
	if want.Dev != got.Dev || want.Ino != got.Ino {
		name, err := readlink(proc)
		if err != nil {
			name = "another program"
		}
		return errUntrusted{"pid " + itoa(int(cred.Pid)) + " runs " + name + ", not " + daemon}
	}
	return nil
}
