package relay

import "syscall"

// dupStdin makes f this process's standard input (Dup3: Linux on arm64 has
// no dup2).
func dupStdin(f int) error { return syscall.Dup3(f, 0, 0) }

// executable is this binary's path, read from /proc without package os.
func executable() (string, error) {
	buf := make([]byte, 4096)
	n, err := syscall.Readlink("/proc/self/exe", buf)
	if err != nil {
		return "", err
	}
	return string(buf[:n]), nil
}
