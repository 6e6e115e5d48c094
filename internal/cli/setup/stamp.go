package setup

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/vibe-science/vibe/internal/cli"
)

// stampFile is where setup remembers the registration it made or saw.
func stampFile(f *cli.Factory) string { return filepath.Join(f.Paths().Home, "plugin-registered") }

// registrationStamp describes what a registration depends on: the checkout,
// the size and modification time of each binary hooks.json runs (a rebuild
// changes them and makes Claude Code's copy stale), Claude Code's cached
// copy of the plugin and its list of installed plugins, when present (an
// uninstall outside vibe changes them). Equal stamps mean nothing changed.
func registrationStamp(f *cli.Factory) string {
	var b strings.Builder
	fmt.Fprintf(&b, "plugin %s\nroot %s\n", PluginRef, f.Root)
	for _, name := range HookBinaries {
		fmt.Fprintf(&b, "bin %s %s\n", name, statLine(filepath.Join(f.Root, "bin", name)))
	}
	cached := cachedCopy(f)
	fmt.Fprintf(&b, "cache %s %s\n", cached, statLine(cached))
	installed := filepath.Join(claudeHome(f), "plugins", "installed_plugins.json")
	fmt.Fprintf(&b, "installed %s\n", statLine(installed))
	return b.String()
}

func statLine(p string) string {
	if p == "" {
		return "-"
	}
	info, err := os.Stat(p)
	if err != nil {
		return "missing"
	}
	return fmt.Sprintf("%d %d", info.Size(), info.ModTime().UnixNano())
}

func readStamp(f *cli.Factory) string {
	raw, err := os.ReadFile(stampFile(f))
	if err != nil {
		return ""
	}
	return string(raw)
}

// writeStamp remembers the registration; failing to is harmless (the next
// setup asks claude again), so the error is dropped.
func writeStamp(f *cli.Factory) { _ = os.WriteFile(stampFile(f), []byte(registrationStamp(f)), 0o644) }

func removeStamp(f *cli.Factory) { _ = os.Remove(stampFile(f)) }

// claudeHome is Claude Code's configuration folder (~/.claude, or
// CLAUDE_CONFIG_DIR).
func claudeHome(f *cli.Factory) string {
	if d := f.Getenv("CLAUDE_CONFIG_DIR"); d != "" {
		return d
	}
	return filepath.Join(f.Getenv("HOME"), ".claude")
}
