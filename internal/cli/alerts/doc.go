// Package alerts holds `vibe alerts`: listing and resolving the alerts the hooks raised.
//
// Each command is an Options struct, a NewCmdX(f, runF) constructor and a
// private runX (see internal/cli). It must not import another command
// package except for a helper that package exports for it, nor cli/root.
package alerts
