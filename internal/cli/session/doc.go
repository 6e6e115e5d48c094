// Package session holds `vibe sessions` and `vibe spine`: the sessions recorded and each one's spine of events.
//
// Each command is an Options struct, a NewCmdX(f, runF) constructor and a
// private runX (see internal/cli). It must not import another command
// package except for a helper that package exports for it, nor cli/root.
package session
