// Package setup holds `vibe setup` and `vibe uninstall`: registering the plugin with Claude Code (or setting up other clients), the registration stamp, and undoing both.
//
// Each command is an Options struct, a NewCmdX(f, runF) constructor and a
// private runX (see internal/cli). It must not import another command
// package except for a helper that package exports for it, nor cli/root.
package setup
