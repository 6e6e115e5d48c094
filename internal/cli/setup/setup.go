package setup

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/vibe-science/vibe/internal/cli"
	"github.com/vibe-science/vibe/internal/config"
	"github.com/vibe-science/vibe/internal/store"
	"github.com/vibe-science/vibe/internal/worker/client"
)

// HookBinaries are the binaries hooks.json runs, built into <root>/bin.
var HookBinaries = []string{
	"vibe-session-start", "vibe-prompt-submit", "vibe-pre-tool-use",
	"vibe-post-tool-use", "vibe-stop", "vibe-session-end", "vibe-hook",
}

// Marketplace and plugin names, as in .claude-plugin/marketplace.json: the
// same whether Claude Code adds the marketplace from GitHub
// (`/plugin marketplace add vibe-science/vibe`) or from a checkout (setup).
const (
	MarketplaceName = "vibe-science"
	PluginRef       = "vibe@" + MarketplaceName
)

// The marketplace's name before releases: a plugin installed under it
// would run beside PluginRef, so setup removes it.
const (
	legacyMarketplace = "vibe-local"
	legacyPluginRef   = "vibe@" + legacyMarketplace
)

// SetupOptions are the flags of `vibe setup` and what it uses.
type SetupOptions struct {
	IO     cli.IO
	Paths  func() config.Paths
	Store  func(context.Context) (*store.Store, error)
	Getenv func(string) string
	// Exec runs and LookPath finds the claude CLI.
	Exec     func(ctx context.Context, name string, args ...string) (string, error)
	LookPath func(string) (string, error)
	// StartWorker starts the worker program bin unless a worker answers
	// already (client.EnsureRunningBinary); started says it was started.
	StartWorker func(p config.Paths, bin string) (started bool, err error)
	// Root is the plugin root (bin/, the marketplace Claude Code installs
	// from, skill/).
	Root string
	// Model offers the current embedding model's download
	// (setup_model.go); nil leaves the model alone.
	Model *ModelOffer

	NoRegister bool
	// Recheck asks claude even when the remembered registration still
	// matches the binaries.
	Recheck bool
	JSON    bool
	Clients []string // --client: claude, codex, gemini (setup_clients.go)
	Remove  bool     // --remove: take the named clients' hooks out again
}

// NewCmdSetup builds `vibe setup`.
func NewCmdSetup(f *cli.Factory, runF func(*SetupOptions) error) *cobra.Command {
	opts := &SetupOptions{IO: f.IO, Paths: f.Paths, Store: f.Store, Getenv: f.Getenv, Exec: f.Exec, LookPath: f.LookPath,
		StartWorker: client.EnsureRunningBinary, Root: f.Root, Model: &ModelOffer{Choice: ModelAsk}}
	var pullModel, noModel bool
	cmd := &cobra.Command{
		Use:   "setup",
		Short: "Create vibe's folders and database, check the binaries, register the plugin with Claude Code",
		Long: `setup is safe to run again: it creates what is missing under VIBE_HOME, brings the database
schema up to date, offers to download the embedding model when it is missing (recall ranks memories
by words only without it; setup asks on a terminal, and says so when its host cannot be reached),
checks that the hook binaries are built, and registers the plugin with Claude Code through the
claude CLI when it is installed (otherwise it prints the exact commands to run).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			switch {
			case pullModel && noModel:
				return &cli.UsageError{Err: fmt.Errorf("--model downloads the embedding model and --no-model leaves it out: give one of them")}
			case pullModel:
				opts.Model.Choice = ModelYes
			case noModel:
				opts.Model.Choice = ModelNo
			}
			if runF != nil {
				return runF(opts)
			}
			return runSetup(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.NoRegister, "no-register", false, "do not touch Claude Code's plugin registry")
	cmd.Flags().BoolVar(&opts.Recheck, "recheck", false, "ask claude about the plugin even when nothing changed since the last setup")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print the result as JSON")
	cmd.Flags().BoolVar(&pullModel, "model", false, "download the embedding model, if it is missing, without asking")
	cmd.Flags().BoolVar(&noModel, "no-model", false, "do not offer to download the embedding model")
	cmd.Flags().StringSliceVar(&opts.Clients, "client", nil, "set up these agent clients instead of registering the Claude Code plugin: claude, codex, gemini")
	cmd.Flags().BoolVar(&opts.Remove, "remove", false, "with --client: remove vibe's hooks and methodology from those clients")
	return cmd
}

// SetupStep is one line of setup's report.
type SetupStep struct {
	Step   string `json:"step"`
	OK     bool   `json:"ok"`
	Note   bool   `json:"note,omitempty"` // nothing failed, but the user has a step to take
	Detail string `json:"detail"`
	Fix    string `json:"fix,omitempty"`
}

func runSetup(ctx context.Context, o *SetupOptions) error {
	if ctx == nil {
		ctx = context.Background()
	}
	start := time.Now()
	var steps []SetupStep
	add := func(s SetupStep) { steps = append(steps, s) }

	p := o.Paths()
	for _, d := range []string{filepath.Dir(p.DB), p.Logs, p.Models} {
		if err := os.MkdirAll(d, config.DirMode); err != nil {
			add(step("folders", false, err.Error(), "make VIBE_HOME ("+p.Home+") writable or point VIBE_HOME elsewhere"))
			return report(o, steps, start)
		}
	}
	if err := config.SecureHome(p); err != nil {
		add(step("folders", false, err.Error(), "make "+p.Home+" yours (chown) so vibe can keep it private (0700)"))
		return report(o, steps, start)
	}
	add(step("folders", true, p.Home, ""))
	if raw, err := os.ReadFile(p.Settings); err == nil {
		// A misspelt key silently keeps its default; say so at setup.
		for _, pr := range cli.SettingsProblems(raw) {
			add(step("settings", false, p.Settings+": "+pr, "edit "+p.Settings))
		}
	}

	st, err := o.Store(ctx)
	if err != nil {
		add(step("database", false, err.Error(), "run `vibe doctor`; move a corrupt file aside and run setup again"))
		return report(o, steps, start)
	}
	v, _ := st.Version(ctx)
	add(step("database", true, fmt.Sprintf("%s (schema %d)", p.DB, v), ""))

	missing := MissingBinaries(o.Root)
	if len(missing) > 0 {
		add(step("binaries", false, "missing in "+filepath.Join(o.Root, "bin")+": "+strings.Join(missing, ", "),
			InstallFix(o.Root)))
	} else {
		add(step("binaries", true, filepath.Join(o.Root, "bin"), ""))
	}

	if o.Model != nil {
		add(modelStep(ctx, o, st)) // before the worker starts: it then finds the model
	}
	add(startWorker(ctx, o))

	if len(o.Clients) > 0 {
		steps = append(steps, setupClients(ctx, o)...)
		return report(o, steps, start)
	}
	if o.NoRegister {
		add(step("plugin", true, "registration skipped (--no-register)", ""))
	} else {
		add(o.plugin().register(ctx, o.Recheck))
	}
	return report(o, steps, start)
}

// startWorker starts the embed worker (detached) unless it runs already or
// VIBE_WORKER=off; the hooks hand their events to it.
func startWorker(ctx context.Context, o *SetupOptions) SetupStep {
	if config.WorkerOff(o.Getenv) {
		return SetupStep{Step: "worker", OK: true, Note: true, Detail: "not started (VIBE_WORKER=off)",
			Fix: "unset VIBE_WORKER and run `vibe worker start` for faster hooks and vector recall"}
	}
	bin := cli.InstalledWorker(o.Root)
	if _, err := os.Stat(bin); err != nil {
		return step("worker", false, bin+" is missing", InstallFix(o.Root))
	}
	started, err := o.StartWorker(o.Paths(), bin)
	switch {
	case err != nil:
		return step("worker", false, "could not start the embed worker: "+err.Error(), "see `vibe worker logs`, then `vibe worker start`")
	case started:
		return step("worker", true, "embed worker started", "")
	}
	// A worker of an earlier build or another install serves no hook.
	if detail, ok := cli.ReplaceStale(ctx, o.Paths(), bin); detail != "" {
		return step("worker", ok, detail, "`vibe worker stop`, then `vibe worker start`")
	}
	return step("worker", true, "embed worker running", "")
}

func step(name string, ok bool, detail, fix string) SetupStep {
	return SetupStep{Step: name, OK: ok, Detail: detail, Fix: fix}
}

// InstallFix is how to fill root/bin: `make build` in a git checkout, the
// plugin's bootstrap (plugin/bootstrap.sh: it downloads the release
// archive of the plugin's version) in Claude Code's copy of a plugin
// installed from a marketplace, which has no .git.
func InstallFix(root string) string {
	_, errGit := os.Stat(filepath.Join(root, ".git"))
	if _, err := os.Stat(filepath.Join(root, "plugin", "bootstrap.sh")); err == nil && errGit != nil {
		return "run `sh " + filepath.Join(root, "plugin", "bootstrap.sh") + " install` (it downloads this version's release; docs/install.md)"
	}
	return "run `make build` in " + root
}

// MissingBinaries are the hook binaries not built under root/bin.
func MissingBinaries(root string) []string {
	var missing []string
	for _, b := range HookBinaries {
		info, err := os.Stat(filepath.Join(root, "bin", b))
		if err != nil || info.Mode()&0o111 == 0 {
			missing = append(missing, b)
		}
	}
	return missing
}

// register installs the plugin from the checkout's marketplace. A plugin
// that is already installed from this checkout is left alone, unless its
// cached copy of the binaries is stale (Claude Code copies the plugin folder
// on install), in which case it is reinstalled.
//
// Asking `claude plugin list` costs 0.9-4 s, so a registration that setup
// made or saw is remembered (registrationStamp); while the binaries, the
// checkout and Claude Code's copy of the plugin are unchanged, a re-run
// does not ask again.
func (pl plugin) register(ctx context.Context, recheck bool) SetupStep {
	if !recheck && pl.readStamp() == pl.registrationStamp() {
		return step("plugin", true, PluginRef+" is installed (registered by vibe setup; nothing changed since)", "")
	}
	s := pl.registerWithClaude(ctx)
	if s.OK && !s.Note {
		pl.writeStamp()
	} else {
		pl.removeStamp()
	}
	return s
}

func (pl plugin) registerWithClaude(ctx context.Context) SetupStep {
	manual := fmt.Sprintf("claude plugin marketplace add %s && claude plugin install %s", pl.Root, PluginRef)
	if _, err := pl.LookPath("claude"); err != nil {
		return SetupStep{Step: "plugin", OK: true, Note: true, Detail: "not registered: the claude CLI is not on PATH",
			Fix: "install Claude Code, then run: " + manual + " (or start Claude Code with --plugin-dir " + pl.Root + ")"}
	}
	list, err := pl.Exec(ctx, "claude", "plugin", "list")
	if err != nil {
		return step("plugin", false, "`claude plugin list` failed: "+FirstLine(err.Error()), "run: "+manual)
	}
	if strings.Contains(list, legacyPluginRef) {
		_, err := pl.Exec(ctx, "claude", "plugin", "uninstall", legacyPluginRef)
		if err == nil {
			_, err = pl.Exec(ctx, "claude", "plugin", "marketplace", "remove", legacyMarketplace)
		}
		if err != nil {
			return step("plugin", false, "could not remove "+legacyPluginRef+", the plugin's name before releases, which would run beside "+PluginRef+": "+FirstLine(err.Error()),
				"run: claude plugin uninstall "+legacyPluginRef+" && claude plugin marketplace remove "+legacyMarketplace+" && "+manual)
		}
	}
	if strings.Contains(list, PluginRef) {
		if cached := pl.cachedCopy(); cached != "" && !sameBinaries(pl.Root, cached) {
			if _, err := pl.Exec(ctx, "claude", "plugin", "uninstall", PluginRef); err != nil {
				return step("plugin", false, "could not refresh the stale installed copy: "+FirstLine(err.Error()),
					"run: claude plugin uninstall "+PluginRef+" && "+manual)
			}
		} else {
			return step("plugin", true, PluginRef+" is installed", "")
		}
	}
	if out, err := pl.Exec(ctx, "claude", "plugin", "marketplace", "add", pl.Root); err != nil && !strings.Contains(out+err.Error(), "already") {
		return step("plugin", false, "`claude plugin marketplace add` failed: "+FirstLine(err.Error()), "run: "+manual)
	}
	if _, err := pl.Exec(ctx, "claude", "plugin", "install", PluginRef); err != nil {
		return step("plugin", false, "`claude plugin install` failed: "+FirstLine(err.Error()), "run: "+manual)
	}
	return step("plugin", true, PluginRef+" installed from "+pl.Root+" (restart Claude Code to load it)", "")
}

// cachedCopy finds Claude Code's installed copy of the plugin, if any.
func (pl plugin) cachedCopy() string {
	home := pl.Getenv("HOME")
	if d := pl.Getenv("CLAUDE_CONFIG_DIR"); d != "" {
		home = filepath.Dir(d)
	}
	matches, _ := filepath.Glob(filepath.Join(home, ".claude", "plugins", "cache", MarketplaceName, "vibe", "*"))
	if len(matches) == 0 {
		return ""
	}
	return matches[len(matches)-1]
}

func sameBinaries(a, b string) bool {
	for _, name := range HookBinaries {
		x, err1 := os.Stat(filepath.Join(a, "bin", name))
		y, err2 := os.Stat(filepath.Join(b, "bin", name))
		if err1 != nil || err2 != nil || x.Size() != y.Size() || x.ModTime().After(y.ModTime()) {
			return false
		}
	}
	return true
}

func report(o *SetupOptions, steps []SetupStep, start time.Time) error {
	failed := 0
	for _, s := range steps {
		if !s.OK {
			failed++
		}
	}
	if o.JSON {
		if err := cli.WriteJSON(o.IO.Out, map[string]any{"ok": failed == 0, "steps": steps,
			"seconds": time.Since(start).Seconds()}); err != nil {
			return err
		}
	} else {
		for _, s := range steps {
			mark := "ok  "
			if s.Note {
				mark = "note"
			}
			if !s.OK {
				mark = "FAIL"
			}
			fmt.Fprintf(o.IO.Out, "%s %-9s %s\n", mark, s.Step, s.Detail)
			if s.Fix != "" {
				fmt.Fprintf(o.IO.Out, "     fix: %s\n", s.Fix)
			}
		}
	}
	if failed > 0 {
		return fmt.Errorf("setup finished with %d problem(s); see the fixes above", failed)
	}
	return nil
}

// FirstLine is s up to its first newline.
func FirstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
