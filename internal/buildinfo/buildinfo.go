// Package buildinfo holds the build's version, set by the Makefile with
// -ldflags "-X github.com/vibe-science/vibe/internal/buildinfo.Version=…".
// The hook clients and the worker compare it so a worker of another build
// never runs a hook (version skew). Standard library only; nothing else.
package buildinfo

// Version is the build version ("dev" for go build / go test).
var Version = "dev"
