//go:build !unix

package client

import (
	"time"

	"github.com/vibe-science/vibe/internal/config"
)

// Foreign: without /proc nothing tells another build's worker apart.
func Foreign(paths config.Paths, bin string) (int, bool) { return ReadPID(paths), false }

// ReplaceForeign does nothing where Foreign cannot tell.
func ReplaceForeign(paths config.Paths, bin string, wait time.Duration) (bool, error) {
	return false, nil
}

// Replace does nothing where /proc cannot confirm what pid runs.
func Replace(paths config.Paths, pid int, bin string, wait time.Duration) (bool, error) {
	return false, nil
}
