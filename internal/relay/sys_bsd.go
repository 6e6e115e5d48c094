//go:build unix && !linux

package relay

import (
	"os"
	"syscall"
)

func dupStdin(f int) error { return syscall.Dup2(f, 0) }

// executable: only Linux offers the path without package os.
func executable() (string, error) { return os.Executable() }
