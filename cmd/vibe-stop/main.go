// Command vibe-stop is the Claude Code hook binary for this event; all logic
// lives in internal/stopturn and internal/hookrun.
package main

import (
	"os"

	"github.com/vibe-science/vibe/internal/hookrun"
	"github.com/vibe-science/vibe/internal/stopturn"
)

func main() { os.Exit(hookrun.Main(stopturn.Spec, nil)) }
