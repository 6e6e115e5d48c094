// Package clitest builds what the `vibe` commands' tests share: a
// cli.Factory over buffers and a temporary VIBE_HOME, a project folder, a
// one-noun command tree run the way `vibe` runs it, the Options a command's
// constructor builds (Built, to start an Options → output test from and
// replace a dependency with a fake; Wired, that none is left nil), and
// checks every package's JSON output types must pass. Only tests import
// it; it must not import a command package (they import it).
package clitest
