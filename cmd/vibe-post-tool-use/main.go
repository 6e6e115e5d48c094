// Command vibe-post-tool-use is the Claude Code hook binary for this event; all logic
// lives in internal/posttool and internal/hookrun.
package main

import (
	"os"

	"github.com/vibe-science/vibe/internal/hookrun"
	"github.com/vibe-science/vibe/internal/posttool"
)

func main() { os.Exit(hookrun.Main(posttool.Spec, nil)) }
