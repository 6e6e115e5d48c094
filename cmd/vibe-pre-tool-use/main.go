// Command vibe-pre-tool-use is the Claude Code hook binary for this event: it hands
// the event to the resident worker, or runs vibe-hook locally (internal/relay).
package main

import (
	"syscall"

	"github.com/vibe-science/vibe/internal/relay"
)

func main() { syscall.Exit(relay.Main("pre-tool-use", relay.OSEnv())) }
