//go:build unix

package worker

import "syscall"

func terminate(pid int) error { return syscall.Kill(pid, syscall.SIGTERM) }
