// The runtime's container-aware GOMAXPROCS, its updater and its names for
// memory mappings cost a hook binary start-up time it has no use for: it
// runs one goroutine for a millisecond (internal/relay).

//go:debug containermaxprocs=0
//go:debug updatemaxprocs=0
//go:debug decoratemappings=0

// Command vibe-session-end is the Claude Code hook binary for this event: it hands
// the event to the resident worker, or runs vibe-hook locally (internal/relay).
package main

import (
	"syscall"

	"github.com/vibe-science/vibe/internal/relay"
)

func main() { syscall.Exit(relay.Main("session-end", relay.OSEnv())) }
