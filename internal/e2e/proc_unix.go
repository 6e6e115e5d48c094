//go:build unix

package e2e

import (
	"os/exec"
	"syscall"
)

// setProcessGroup puts the client in its own process group and makes the
// context's cancel kill the whole group, hooks included.
func setProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
}
