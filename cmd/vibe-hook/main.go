// Command vibe-hook runs one hook's handler locally: `vibe-hook NAME` with
// the event on stdin. The per-event hook binaries run it when no embed
// worker answers; all logic lives in internal/handler and internal/hookrun.
package main

import (
	"fmt"
	"os"

	"github.com/vibe-science/vibe/internal/client"

	"github.com/vibe-science/vibe/internal/handler"
	"github.com/vibe-science/vibe/internal/hookrun"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: vibe-hook NAME < event.json (names:", handler.Names(), ")")
		os.Exit(2)
	}
	spec, err := handler.Lookup(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, "vibe-hook:", err)
		os.Exit(2)
	}
	os.Exit(client.Main(spec, hookrun.OSEnv()))
}
