package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/vibe-science/vibe/db"
	"github.com/vibe-science/vibe/internal/config"
	"github.com/vibe-science/vibe/internal/store"
)

// DoctorOptions are the flags of `vibe doctor`.
type DoctorOptions struct {
	IO      IO
	Factory *Factory
	JSON    bool
}

// NewCmdDoctor builds `vibe doctor`.
func NewCmdDoctor(f *Factory, runF func(*DoctorOptions) error) *cobra.Command {
	opts := &DoctorOptions{IO: f.IO, Factory: f}
	cmd := &cobra.Command{
		Use:   "doctor",
		Short: "Check every prerequisite and say how to fix each failure",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if runF != nil {
				return runF(opts)
			}
			return runDoctor(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print JSON")
	return cmd
}

// Check is one doctor finding.
type Check struct {
	Name   string `json:"name"`
	OK     bool   `json:"ok"`
	Detail string `json:"detail"`
	Fix    string `json:"fix,omitempty"`
}

func runDoctor(ctx context.Context, o *DoctorOptions) error {
	if ctx == nil {
		ctx = context.Background()
	}
	f := o.Factory
	p := f.Paths()
	var checks []Check
	add := func(c Check) { checks = append(checks, c) }

	if err := os.MkdirAll(p.Home, config.DirMode); err != nil {
		add(Check{"vibe home", false, err.Error(), "set VIBE_HOME to a writable folder"})
	} else if tmp, err := os.CreateTemp(p.Home, ".doctor-*"); err != nil {
		add(Check{"vibe home", false, p.Home + " is not writable: " + err.Error(), "fix the folder's permissions or set VIBE_HOME"})
	} else {
		tmp.Close()
		os.Remove(tmp.Name())
		add(Check{"vibe home", true, p.Home, ""})
	}

	st, err := store.Open(ctx, p.DB, store.Options{})
	if err != nil {
		add(Check{"database", false, err.Error(), "if the file is corrupt, move it aside (" + p.DB + ") and run `vibe setup`; if it is locked, find the process holding it"})
	} else {
		v, _ := st.Version(ctx)
		if vec, err := st.Check(ctx); err != nil {
			add(Check{"database", false, err.Error(), "rebuild with `make build` (needs -tags sqlite_fts5 and libsqlite3-dev); move a corrupt file aside"})
		} else {
			add(Check{"database", true, fmt.Sprintf("%s, schema %d of %d, sqlite-vec %s, FTS5 ok", p.DB, v, db.Latest(), vec), ""})
		}
		st.Close()
	}

	if m := missingBinaries(f.Root); len(m) > 0 {
		add(Check{"hook binaries", false, "missing: " + strings.Join(m, ", "), "run `make build` in " + f.Root})
	} else {
		add(Check{"hook binaries", true, filepath.Join(f.Root, "bin"), ""})
	}
	guard := filepath.Join(f.Root, "plugin", "guard.sh")
	if info, err := os.Stat(guard); err != nil || info.Mode()&0o111 == 0 {
		add(Check{"pre-tool-use guard", false, guard + " is missing or not executable", "restore it from git and `chmod +x` it"})
	} else {
		add(Check{"pre-tool-use guard", true, guard, ""})
	}
	if _, err := os.Stat(filepath.Join(f.Root, "hooks.json")); err != nil {
		add(Check{"hooks.json", false, err.Error(), "run vibe from its checkout, or set VIBE_PLUGIN_ROOT"})
	} else {
		add(Check{"hooks.json", true, filepath.Join(f.Root, "hooks.json"), ""})
	}

	if path, err := f.LookPath("claude"); err != nil {
		add(Check{"claude CLI", false, "not on PATH", "install Claude Code (npm install -g @anthropic-ai/claude-code)"})
	} else {
		out, err := f.Exec(ctx, "claude", "--version")
		if err != nil {
			add(Check{"claude CLI", false, path + ": " + firstLine(err.Error()), "reinstall Claude Code"})
		} else {
			add(Check{"claude CLI", true, path + " " + strings.TrimSpace(out), ""})
			list, err := f.Exec(ctx, "claude", "plugin", "list")
			switch {
			case err != nil:
				add(Check{"plugin registered", false, firstLine(err.Error()), "run `vibe setup`"})
			case strings.Contains(list, PluginRef):
				add(Check{"plugin registered", true, PluginRef, ""})
			default:
				add(Check{"plugin registered", false, PluginRef + " is not installed", "run `vibe setup`, or start Claude Code with --plugin-dir " + f.Root})
			}
		}
	}
	add(Check{"embedding model", true, modelState(p.Models), ""})

	failed := 0
	for _, c := range checks {
		if !c.OK {
			failed++
		}
	}
	if o.JSON {
		if err := writeJSON(o.IO.Out, map[string]any{"ok": failed == 0, "checks": checks}); err != nil {
			return err
		}
	} else {
		for _, c := range checks {
			mark := "ok  "
			if !c.OK {
				mark = "FAIL"
			}
			fmt.Fprintf(o.IO.Out, "%s %-18s %s\n", mark, c.Name, c.Detail)
			if c.Fix != "" {
				fmt.Fprintf(o.IO.Out, "     fix: %s\n", c.Fix)
			}
		}
	}
	if failed > 0 {
		return fmt.Errorf("%d check(s) failed", failed)
	}
	return nil
}
