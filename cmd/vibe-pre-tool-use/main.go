// Command vibe-pre-tool-use is the Claude Code hook binary for this event; all logic
// lives in internal/pretool and internal/hookrun.
package main

import (
	"os"

	"github.com/vibe-science/vibe/internal/hookrun"
	"github.com/vibe-science/vibe/internal/pretool"
)

func main() { os.Exit(hookrun.Main(pretool.Spec, nil)) }
