// Package decisions holds `vibe decisions`: what vibe's hooks denied,
// blocked, asked and warned, with the session, time, hook, tool, file,
// check and message of each, as hookrun recorded them.
//
// Each command is an Options struct, a NewCmdX(f, runF) constructor and a
// private runX (see internal/cli). It must not import another command
// package, nor cli/root.
package decisions
