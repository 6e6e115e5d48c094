// Package cli holds the `vibe` command line: one file per noun, each command
// an Options struct, a NewCmdX(f, runF) constructor and a private runX, so
// tests can check argv → Options and Options → output separately. Data goes
// to stdout, status and progress to stderr; listings take --json. This is
// the only package that imports cobra.
package cli
