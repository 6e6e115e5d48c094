// Package status holds `vibe status`: what vibe knows about this machine and project at a glance (worker, model, sessions, gates).
//
// Each command is an Options struct, a NewCmdX(f, runF) constructor and a
// private runX (see internal/cli). It must not import another command
// package except for a helper that package exports for it, nor cli/root.
package status
