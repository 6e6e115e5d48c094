package relay

import (
	"strings"
	"syscall"
)

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

// args are the process's arguments after its name, read from /proc
// without package os.
func args() []string {
	fd, err := syscall.Open("/proc/self/cmdline", syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil
	}
	defer syscall.Close(fd)
	buf := make([]byte, 0, 512)
	chunk := make([]byte, 512)
	for {
		n, err := syscall.Read(fd, chunk)
		if n <= 0 || err != nil {
			break
		}
		buf = append(buf, chunk[:n]...)
	}
	parts := strings.Split(strings.TrimSuffix(string(buf), "\x00"), "\x00")
	if len(parts) <= 1 {
		return nil
	}
	return parts[1:]
}
