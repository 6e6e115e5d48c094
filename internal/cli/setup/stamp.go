package setup

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// plugin is what registering vibe's plugin with Claude Code needs: the
// checkout it installs from, VIBE_HOME (where the registration is
// remembered), the environment (where Claude Code keeps its files) and the
// claude CLI. Setup and uninstall fill it from their Options.
type plugin struct {
	Root     string
	Home     string
	Getenv   func(string) string
	Exec     func(ctx context.Context, name string, args ...string) (string, error)
	LookPath func(string) (string, error)
}

func (o *SetupOptions) plugin() plugin {
	return plugin{Root: o.Root, Home: o.Paths().Home, Getenv: o.Getenv, Exec: o.Exec, LookPath: o.LookPath}
}

func (o *UninstallOptions) plugin() plugin {
	return plugin{Root: o.Root, Home: o.Paths().Home, Getenv: o.Getenv, Exec: o.Exec, LookPath: o.LookPath}
}

// stampFile is where setup remembers the registration it made or saw.
func (pl plugin) stampFile() string { return filepath.Join(pl.Home, "plugin-registered") }

// registrationStamp describes what a registration depends on: the checkout,
// the size and modification time of each binary hooks.json runs (a rebuild
// changes them and makes Claude Code's copy stale), Claude Code's cached
// copy of the plugin and its list of installed plugins, when present (an
// uninstall outside vibe changes them). Equal stamps mean nothing changed.
func (pl plugin) registrationStamp() string {
	var b strings.Builder
	fmt.Fprintf(&b, "plugin %s\nroot %s\n", PluginRef, pl.Root)
	for _, name := range HookBinaries {
		fmt.Fprintf(&b, "bin %s %s\n", name, statLine(filepath.Join(pl.Root, "bin", name)))
	}
	cached := pl.cachedCopy()
	fmt.Fprintf(&b, "cache %s %s\n", cached, statLine(cached))
	installed := filepath.Join(pl.claudeHome(), "plugins", "installed_plugins.json")
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

func (pl plugin) readStamp() string {
	raw, err := os.ReadFile(pl.stampFile())
	if err != nil {
		return ""
	}
	return string(raw)
}

// writeStamp remembers the registration; failing to is harmless (the next
// setup asks claude again), so the error is dropped.
func (pl plugin) writeStamp() {
	_ = os.WriteFile(pl.stampFile(), []byte(pl.registrationStamp()), 0o644)
}

func (pl plugin) removeStamp() { _ = os.Remove(pl.stampFile()) }

// claudeHome is Claude Code's configuration folder (~/.claude, or
// CLAUDE_CONFIG_DIR).
func (pl plugin) claudeHome() string {
	if d := pl.Getenv("CLAUDE_CONFIG_DIR"); d != "" {
		return d
	}
	return filepath.Join(pl.Getenv("HOME"), ".claude")
}
