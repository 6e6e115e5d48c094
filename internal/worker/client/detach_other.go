//go:build !unix

package client

import "syscall"

func detached() *syscall.SysProcAttr { return &syscall.SysProcAttr{} }
