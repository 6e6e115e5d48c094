// Package citations holds `vibe citations`: every paper id the project's
// findings, claim ledger, reviews and directions cite, with where, its
// status (retrieved, unretrieved, invalid) and the search that retrieved it;
// `--online` confirms ids against the registries (citation/online, cached
// in the database), and `vibe citations add` records a paper the
// researcher holds.
//
// Each command is an Options struct, a NewCmdX(f, runF) constructor and a
// private runX (see internal/cli). It must not import another command
// package, nor cli/root.
package citations
