// Package ui holds `vibe ui`: the read-only local web viewer.
//
// Each command is an Options struct, a NewCmdX(f, runF) constructor and a
// private runX (see internal/cli). It must not import another command
// package except for a helper that package exports for it, nor cli/root.
package ui
