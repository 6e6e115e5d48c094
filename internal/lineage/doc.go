// Package lineage holds the reproducibility record of research results:
// for one version (its SHA-256) of a result file — metrics, calibration
// results, a findings JSON — who wrote it and, when a computation did,
// what re-runs it. The writer is a computation (a script, a module, inline
// code or a pipeline run by an interpreter), a hand (the agent's Write or
// Edit, or a shell command that only echoes, edits text or spells out the
// values it writes), or unknown (a copy, a program vibe cannot tell apart
// from an analysis, a change made outside the call). A computation's
// record names the command and the folder it ran in, the script and its
// hash, the input files it names and their hashes, the random seeds the
// command or the script sets, the environment (lock and environment files,
// the interpreter and its version, a package freeze taken once per
// environment) and the git commit with whether the tree was dirty.
//
// Classify decides the writer from the tool call alone, cheaply enough
// for a hook; Capture fills in the rest, reading files and running the
// interpreter and git under its context, which is why the hooks call it
// after their reply. Decide turns the records of one content hash into the
// origin the gates read: a content any computation produced is computed, a
// content only a hand wrote is hand-written, anything else is unknown
// (which never blocks). The project's mirror of the records,
// .vibe-science/lineage.jsonl (mirror.go), is what `vibe gate check` and a
// fresh clone read; Check says which recorded inputs, scripts and
// environment files changed since.
//
// It imports only the standard library and lazyre (its regular expressions
// compile on first use, not at every process start): the shell command arrives parsed
// (Run, from internal/permission's Runs), and the store, the hooks and the
// CLI are its callers.
package lineage
