// Package version holds `vibe version` and the version line `vibe --version` prints.
//
// Each command is an Options struct, a NewCmdX(f, runF) constructor and a
// private runX (see internal/cli). It must not import another command
// package except for a helper that package exports for it, nor cli/root.
package version
