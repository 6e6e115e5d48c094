// Package permissions holds `vibe permissions`: showing the role policy and checking what it decides for a path.
//
// Each command is an Options struct, a NewCmdX(f, runF) constructor and a
// private runX (see internal/cli). It must not import another command
// package except for a helper that package exports for it, nor cli/root.
package permissions
