// Command vibe-session-end is the Claude Code hook binary for this event; all logic
// lives in internal/sessionend and internal/hookrun.
package main

import (
	"os"

	"github.com/vibe-science/vibe/internal/hookrun"
	"github.com/vibe-science/vibe/internal/sessionend"
)

func main() { os.Exit(hookrun.Main(sessionend.Spec, nil)) }
