// Package repro holds `vibe repro`: how each result file of a project was
// made (its lineage, internal/lineage), the recipe that re-runs it, and
// `vibe repro check`, which says which recorded inputs, scripts and
// environments changed since. It reads the database's records and, for
// what the database does not know (a fresh clone), the project's
// .vibe-science/lineage.jsonl.
//
// Each command is an Options struct, a NewCmdX(f, runF) constructor and a
// private runX (see internal/cli). It must not import another command
// package, nor cli/root.
package repro
