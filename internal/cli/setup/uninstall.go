package setup

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/vibe-science/vibe/internal/cli"
	"github.com/vibe-science/vibe/internal/config"
	"github.com/vibe-science/vibe/internal/worker"
	"github.com/vibe-science/vibe/internal/worker/client"
)

// UninstallOptions are the flags of `vibe uninstall` and what it uses.
type UninstallOptions struct {
	IO     cli.IO
	Paths  func() config.Paths
	Getenv func(string) string
	// Exec runs and LookPath finds the claude CLI.
	Exec     func(ctx context.Context, name string, args ...string) (string, error)
	LookPath func(string) (string, error)
	// CloseStore releases the database the factory opened, so that --purge
	// removes a file nothing holds.
	CloseStore func()
	// StopWorker stops the running worker, polling every poll, and returns
	// its pid (worker.Stop); client.ErrNotRunning when none runs.
	StopWorker func(ctx context.Context, p config.Paths, poll time.Duration) (int, error)
	// Root is the plugin root (where ~/.local/bin/vibe points when `make
	// install` linked it).
	Root string

	// Purge removes VIBE_HOME (the database, models and logs) too.
	Purge bool
	JSON  bool
}

// NewCmdUninstall builds `vibe uninstall`.
func NewCmdUninstall(f *cli.Factory, runF func(*UninstallOptions) error) *cobra.Command {
	opts := &UninstallOptions{IO: f.IO, Paths: f.Paths, Getenv: f.Getenv, Exec: f.Exec, LookPath: f.LookPath,
		CloseStore: f.Close, StopWorker: worker.Stop, Root: f.Root}
	cmd := &cobra.Command{
		Use:   "uninstall",
		Short: "Unregister the plugin from Claude Code and stop the worker; keep the data unless --purge",
		Long: `uninstall undoes what setup and make install did: it removes the plugin and its marketplace from
Claude Code (through the claude CLI), stops the embed worker, and removes the ~/.local/bin/vibe link
when it points into this checkout. The database, models and logs under VIBE_HOME stay, so a later
setup finds every session and memory again; --purge removes VIBE_HOME as well. The checkout itself
and the projects' .vibe-science/ folders are never touched.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if runF != nil {
				return runF(opts)
			}
			return runUninstall(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.Purge, "purge", false, "also remove VIBE_HOME: the database, models and logs")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print the result as JSON")
	return cmd
}

func runUninstall(ctx context.Context, o *UninstallOptions) error {
	if ctx == nil {
		ctx = context.Background()
	}
	o.CloseStore()
	start := time.Now()
	pl := o.plugin()
	var steps []SetupStep
	steps = append(steps, pl.unregister(ctx))

	stopCtx, cancel := context.WithTimeout(ctx, 30*time.Second)
	pid, err := o.StopWorker(stopCtx, o.Paths(), 50*time.Millisecond)
	cancel()
	workerStopped := err == nil || errors.Is(err, client.ErrNotRunning)
	switch {
	case errors.Is(err, client.ErrNotRunning):
		steps = append(steps, step("worker", true, "not running", ""))
	case err != nil:
		steps = append(steps, step("worker", false, err.Error(), "stop it with `vibe worker stop`, then run uninstall again"))
	default:
		steps = append(steps, step("worker", true, "stopped (pid "+itoa(pid)+")", ""))
	}
	pl.removeStamp()

	if link := localBinLink(o.Getenv); link != "" {
		if target, err := os.Readlink(link); err == nil && target == filepath.Join(o.Root, "bin", "vibe") {
			if err := os.Remove(link); err != nil {
				steps = append(steps, step("PATH link", false, err.Error(), "remove "+link+" by hand"))
			} else {
				steps = append(steps, step("PATH link", true, "removed "+link, ""))
			}
		}
	}

	home := o.Paths().Home
	if o.Purge && !workerStopped {
		steps = append(steps, step("data", false, "kept in "+home+": the worker still runs and holds the database",
			"stop it with `vibe worker stop`, then run `vibe uninstall --purge` again"))
	} else if o.Purge {
		if err := os.RemoveAll(home); err != nil {
			steps = append(steps, step("data", false, err.Error(), "remove "+home+" by hand"))
		} else {
			steps = append(steps, step("data", true, "removed "+home, ""))
		}
	} else {
		steps = append(steps, step("data", true, "kept in "+home+" (`vibe uninstall --purge` removes it)", ""))
	}
	return report(&SetupOptions{IO: o.IO, JSON: o.JSON}, steps, start)
}

// unregister removes the plugin and the marketplace setup added; what is
// already gone is not an error.
func (pl plugin) unregister(ctx context.Context) SetupStep {
	if _, err := pl.LookPath("claude"); err != nil {
		return SetupStep{Step: "plugin", OK: true, Note: true, Detail: "the claude CLI is not on PATH, so nothing was unregistered",
			Fix: "if Claude Code is installed elsewhere, run: claude plugin uninstall " + PluginRef + " && claude plugin marketplace remove " + MarketplaceName}
	}
	gone := func(out string, err error) bool {
		s := strings.ToLower(out + " " + err.Error())
		return strings.Contains(s, "not installed") || strings.Contains(s, "not found") || strings.Contains(s, "no plugin") || strings.Contains(s, "not exist")
	}
	detail := PluginRef + " uninstalled"
	if out, err := pl.Exec(ctx, "claude", "plugin", "uninstall", PluginRef); err != nil {
		if !gone(out, err) {
			return step("plugin", false, "`claude plugin uninstall` failed: "+FirstLine(err.Error()), "run: claude plugin uninstall "+PluginRef)
		}
		detail = PluginRef + " was not installed"
	}
	if out, err := pl.Exec(ctx, "claude", "plugin", "marketplace", "remove", MarketplaceName); err != nil && !gone(out, err) {
		return step("plugin", false, "`claude plugin marketplace remove` failed: "+FirstLine(err.Error()), "run: claude plugin marketplace remove "+MarketplaceName)
	}
	return step("plugin", true, detail+" (restart Claude Code to unload it)", "")
}

// localBinLink is ~/.local/bin/vibe, where `make install` links the CLI.
func localBinLink(getenv func(string) string) string {
	home := getenv("HOME")
	if home == "" {
		return ""
	}
	return filepath.Join(home, ".local", "bin", "vibe")
}

func itoa(n int) string { return strconv.Itoa(n) }
