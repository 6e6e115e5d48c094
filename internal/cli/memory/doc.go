// Package memory holds `vibe memory` and `vibe recall`: adding, showing, forgetting, importing and exporting memories, and searching them (lexical, with the worker's vectors when it runs).
//
// Each command is an Options struct, a NewCmdX(f, runF) constructor and a
// private runX (see internal/cli). It must not import another command
// package except for a helper that package exports for it, nor cli/root.
package memory
