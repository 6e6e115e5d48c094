//go:build !windows

package cli

import (
	"os"
	"syscall"
)

func signalZero(p *os.Process) error { return p.Signal(syscall.Signal(0)) }
