// Package initcmd holds `vibe init`: making a folder a vibe project (named initcmd since init is reserved for package initialisers).
//
// Each command is an Options struct, a NewCmdX(f, runF) constructor and a
// private runX (see internal/cli). It must not import another command
// package except for a helper that package exports for it, nor cli/root.
package initcmd
