// Package brief holds `vibe brief`: ingesting, validating, showing and listing the versions of a project's research brief.
//
// Each command is an Options struct, a NewCmdX(f, runF) constructor and a
// private runX (see internal/cli). It must not import another command
// package except for a helper that package exports for it, nor cli/root.
package brief
