// Package doctor holds `vibe doctor`: the checks of an installation (binaries, registration, settings, build prerequisites, project configs, client set-ups), each with the fix for its failure.
//
// Each command is an Options struct, a NewCmdX(f, runF) constructor and a
// private runX (see internal/cli). It must not import another command
// package except for a helper that package exports for it, nor cli/root.
package doctor
