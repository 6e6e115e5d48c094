// Package cli holds what every `vibe` command shares: the Factory that
// hands commands their dependencies lazily, the output helpers (--json,
// tables, timestamps), flag values, the project lookup, settings checks,
// the current embedding model and the one sentence for its absence
// (embedmodel.go), usage errors and the one table from errors to exit codes. The commands
// live one noun per sub-package (cli/gate, cli/memory, ...), each command
// an Options struct, a NewCmdX(f, runF) constructor and a private runX, so
// tests check argv → Options and Options → output separately. An Options
// struct lists the dependencies its command uses (Paths, Store, Exec, ...,
// filled from the Factory by NewCmdX), never the Factory itself, so a test
// fakes one without building the rest; the tree is
// assembled in cli/root, and cli/clitest builds factories for tests. Data
// goes to stdout, status and progress to stderr; listings take --json.
// Only cli and its sub-packages import cobra; cli imports none of them.
package cli
