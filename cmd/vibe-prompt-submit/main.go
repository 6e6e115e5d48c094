// Command vibe-prompt-submit is the Claude Code hook binary for this event; all logic
// lives in internal/promptsubmit and internal/hookrun.
package main

import (
	"os"

	"github.com/vibe-science/vibe/internal/hookrun"
	"github.com/vibe-science/vibe/internal/promptsubmit"
)

func main() { os.Exit(hookrun.Main(promptsubmit.Spec, nil)) }
