// Package root holds the whole `vibe` command tree (NewRootCmd, Main), its
// help topics and the hidden docs generator. It imports every command
// package; nothing imports it but cmd/vibe (tests of one noun run a tree
// of that noun alone, through clitest.Main).
package root
