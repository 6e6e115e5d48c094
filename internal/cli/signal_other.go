//go:build windows

package cli

import "os"

func signalZero(p *os.Process) error { return nil }
