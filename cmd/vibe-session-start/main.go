// Command vibe-session-start is the Claude Code hook binary for this event; all logic
// lives in internal/sessionstart and internal/hookrun.
package main

import (
	"os"

	"github.com/vibe-science/vibe/internal/hookrun"
	"github.com/vibe-science/vibe/internal/sessionstart"
)

func main() { os.Exit(hookrun.Main(sessionstart.Spec, nil)) }
