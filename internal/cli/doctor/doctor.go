package doctor

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/vibe-science/vibe/db"
	"github.com/vibe-science/vibe/internal/cli"
	"github.com/vibe-science/vibe/internal/cli/setup"
	"github.com/vibe-science/vibe/internal/client"
	"github.com/vibe-science/vibe/internal/config"
	"github.com/vibe-science/vibe/internal/gate"
	"github.com/vibe-science/vibe/internal/permission"
	"github.com/vibe-science/vibe/internal/project"
	"github.com/vibe-science/vibe/internal/store"
)

// DoctorOptions are the flags of `vibe doctor` and what its checks read.
type DoctorOptions struct {
	IO     cli.IO
	Paths  func() config.Paths
	Getenv func(string) string
	// Exec runs and LookPath finds the programs doctor asks: claude, go
	// and the C compiler.
	Exec     func(ctx context.Context, name string, args ...string) (string, error)
	LookPath func(string) (string, error)
	// OpenDB opens the database file afresh, as a hook would, rather than
	// sharing the factory's store (openStore).
	OpenDB func(ctx context.Context, path string) (Database, error)
	// FindProject is the project doctor runs in; an error means none, and
	// its config files are not checked.
	FindProject func(dir string) (project.Project, error)
	// Root is the plugin root (bin/, hooks.json, plugin/guard.sh for the
	// clients set up with `vibe setup --client`).
	Root string
	// HeaderDirs are where the sqlite3.h check looks (sqliteHeaderDirs).
	HeaderDirs []string
	// AskCodex asks the codex program which of the hooks in settings it
	// trusts (client.CodexTrust outside tests).
	AskCodex func(ctx context.Context, codex, settings, cwd string) ([]client.HookTrust, error)

	JSON bool
	// Repair salvages a damaged database (runRepair) instead of the
	// checks.
	Repair bool
}

// Database is what doctor asks of the database file: the schema version,
// an integrity check that also proves sqlite-vec and FTS5 are built in,
// and the embedding model `vibe model use` chose.
type Database interface {
	Version(ctx context.Context) (int, error)
	Check(ctx context.Context) (vecVersion string, err error)
	EmbedModel(ctx context.Context) (string, error)
	Close() error
}

// openStore opens the store at path: DoctorOptions.OpenDB outside tests.
func openStore(ctx context.Context, path string) (Database, error) {
	st, err := store.Open(ctx, path, store.Options{})
	if err != nil {
		return nil, err // not a nil *store.Store in a non-nil Database
	}
	return st, nil
}

// openFix is the fix for a database that does not open, by what stopped
// it: a damaged file, a lock, a file that is not the user's, a folder.
func openFix(err error, path string) string {
	msg := err.Error()
	switch {
	case strings.Contains(msg, "corrupt") || strings.Contains(msg, "not a database") || strings.Contains(msg, "malformed"):
		return "run `vibe doctor --repair`: it moves the damaged file aside and keeps every readable row"
	case strings.Contains(msg, "locked"):
		return "another process holds the database: let it finish, or find it (`fuser " + path + "`)"
	case strings.Contains(msg, "permission denied") || strings.Contains(msg, "operation not permitted"):
		return "the file or its folder is not yours to read and write: run vibe as the user who owns it, take it over (`chown`), or set VIBE_HOME to a folder of your own"
	case strings.Contains(msg, "is a directory"):
		return "the database path names a folder: set VIBE_DB to a file, or unset it to use VIBE_HOME/db/vibe-science.db"
	}
	return "if the file is damaged, `vibe doctor --repair` keeps every readable row; if it is locked, find the process holding it"
}

// sqliteHeaderDirs are where doctor looks for sqlite3.h.
var sqliteHeaderDirs = []string{"/usr/include", "/usr/local/include", "/opt/homebrew/include", "/opt/local/include"}

// NewCmdDoctor builds `vibe doctor`.
func NewCmdDoctor(f *cli.Factory, runF func(*DoctorOptions) error) *cobra.Command {
	opts := &DoctorOptions{IO: f.IO, Paths: f.Paths, Getenv: f.Getenv, Exec: f.Exec, LookPath: f.LookPath,
		OpenDB: openStore, FindProject: f.FindProject, Root: f.Root, HeaderDirs: sqliteHeaderDirs, AskCodex: askCodex}
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
	cmd.Flags().BoolVar(&opts.Repair, "repair", false, "repair a damaged database: move it aside, copy every readable row into a fresh one, replay the spool")
	return cmd
}

// Check is one doctor finding. One that passes but names a fix is a
// warning (WARN): vibe works, degraded, and doctor still exits 0.
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
	if o.Repair {
		return runRepair(ctx, o)
	}
	p := o.Paths()
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

	// The current model as the worker reads it; without the database,
	// from the settings.
	model, _ := cli.CurrentModel(ctx, nil, p)
	st, err := o.OpenDB(ctx, p.DB)
	if err != nil {
		add(Check{"database", false, p.DB + ": " + err.Error(), openFix(err, p.DB)})
	} else {
		v, _ := st.Version(ctx)
		if vec, err := st.Check(ctx); err != nil {
			fix := "rebuild with `make build` (needs -tags sqlite_fts5 and libsqlite3-dev)"
			if strings.Contains(err.Error(), "quick_check") || strings.Contains(err.Error(), "malformed") {
				fix = "run `vibe doctor --repair`: it moves the damaged file aside and keeps every readable row"
			}
			add(Check{"database", false, err.Error(), fix})
		} else {
			add(Check{"database", true, fmt.Sprintf("%s, schema %d of %d, sqlite-vec %s, FTS5 ok", p.DB, v, db.Latest(), vec), ""})
		}
		if m, err := cli.CurrentModel(ctx, st, p); err == nil {
			model = m
		}
		st.Close()
	}

	if m := setup.MissingBinaries(o.Root); len(m) > 0 {
		add(Check{"hook binaries", false, "missing: " + strings.Join(m, ", "), setup.InstallFix(o.Root)})
	} else {
		add(Check{"hook binaries", true, filepath.Join(o.Root, "bin"), ""})
	}
	if _, err := os.Stat(filepath.Join(o.Root, "hooks.json")); err != nil {
		add(Check{"hooks.json", false, err.Error(), "run vibe from its checkout, or set VIBE_PLUGIN_ROOT"})
	} else {
		add(Check{"hooks.json", true, filepath.Join(o.Root, "hooks.json"), ""})
	}
	if c, ok := failClosedCheck(o.Root); ok { // failclosed.go
		add(c)
	}

	for _, c := range buildChecks(ctx, o) {
		add(c)
	}
	for _, c := range projectChecks(o) {
		add(c)
	}

	if path, err := o.LookPath("claude"); err != nil {
		add(Check{"claude CLI", false, "not on PATH", "install Claude Code (npm install -g @anthropic-ai/claude-code)"})
	} else {
		out, err := o.Exec(ctx, "claude", "--version")
		if err != nil {
			add(Check{"claude CLI", false, path + ": " + setup.FirstLine(err.Error()), "reinstall Claude Code"})
		} else {
			add(Check{"claude CLI", true, path + " " + strings.TrimSpace(out), ""})
			list, err := o.Exec(ctx, "claude", "plugin", "list")
			switch {
			case err != nil:
				add(Check{"plugin registered", false, setup.FirstLine(err.Error()), "run `vibe setup`"})
			case strings.Contains(list, setup.PluginRef):
				add(Check{"plugin registered", true, setup.PluginRef, ""})
			default:
				add(Check{"plugin registered", false, setup.PluginRef + " is not installed", "run `vibe setup`, or start Claude Code with --plugin-dir " + o.Root})
			}
		}
	}
	checks = append(checks, clientChecks(ctx, o)...) // doctor_clients.go
	add(workerCheck(ctx, o))                         // worker.go
	add(modelCheck(p, model, o.Getenv))              // doctor_model.go
	if raw, err := os.ReadFile(p.Settings); err == nil {
		if problems := cli.SettingsProblems(raw); len(problems) > 0 {
			fix := "edit " + p.Settings + " (`vibe help environment` says where VIBE_HOME is)"
			for _, pr := range problems {
				add(Check{"settings", false, p.Settings + ": " + pr, fix})
			}
		} else {
			add(Check{"settings", true, p.Settings, ""})
		}
	} else if !os.IsNotExist(err) {
		add(Check{"settings", false, err.Error(), "make " + p.Settings + " readable, or remove it to use the defaults"})
	} else {
		add(Check{"settings", true, "no " + p.Settings + ": the defaults apply", ""})
	}

	failed := 0
	for _, c := range checks {
		if !c.OK {
			failed++
		}
	}
	if o.JSON {
		type checkJSON struct {
			Check
			Warn bool `json:"warn,omitempty"`
		}
		out := make([]checkJSON, len(checks))
		for i, c := range checks {
			out[i] = checkJSON{c, c.warns()}
		}
		if err := cli.WriteJSON(o.IO.Out, map[string]any{"ok": failed == 0, "checks": out}); err != nil {
			return err
		}
	} else {
		for _, c := range checks {
			mark := "ok  "
			switch {
			case !c.OK:
				mark = "FAIL"
			case c.warns():
				mark = "WARN"
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

// warns reports whether c passes with a fix to name: a warning.
func (c Check) warns() bool { return c.OK && c.Fix != "" }

// buildChecks are the prerequisites of building vibe from source (the
// README's list). They matter only in a source checkout (o.Root holds
// go.mod); an installed copy runs without them.
func buildChecks(ctx context.Context, o *DoctorOptions) []Check {
	raw, err := os.ReadFile(filepath.Join(o.Root, "go.mod"))
	if err != nil {
		return []Check{{"build tools", true, "not needed for running (Go, a C compiler and sqlite3.h only build vibe from source)", ""}}
	}
	want := goDirective(string(raw))
	var checks []Check
	if path, err := o.LookPath("go"); err != nil {
		checks = append(checks, Check{"Go toolchain", false, "go not on PATH", "install Go " + want + " or newer (https://go.dev/dl/), needed to build vibe from " + o.Root})
	} else if out, err := o.Exec(ctx, "go", "env", "GOVERSION"); err != nil {
		checks = append(checks, Check{"Go toolchain", false, path + ": " + setup.FirstLine(err.Error()), "reinstall Go " + want + " or newer"})
	} else if have := goVersionOf(out); versionLess(strings.TrimPrefix(have, "go"), want) {
		checks = append(checks, Check{"Go toolchain", false, path + " is " + have + "; go.mod needs go " + want, "install Go " + want + " or newer (https://go.dev/dl/)"})
	} else {
		checks = append(checks, Check{"Go toolchain", true, path + " " + have, ""})
	}

	cc := ""
	if env := o.Getenv("CC"); env != "" {
		if p, err := o.LookPath(strings.Fields(env)[0]); err == nil {
			cc = p
		}
	}
	for _, name := range []string{"cc", "gcc", "clang"} {
		if cc != "" {
			break
		}
		if p, err := o.LookPath(name); err == nil {
			cc = p
		}
	}
	if cc == "" {
		checks = append(checks, Check{"C compiler", false, "none of cc, gcc, clang on PATH", "install one (Debian: apt-get install gcc); cgo builds SQLite into vibe"})
	} else {
		checks = append(checks, Check{"C compiler", true, cc, ""})
	}

	header := ""
	for _, d := range o.HeaderDirs {
		if _, err := os.Stat(filepath.Join(d, "sqlite3.h")); err == nil {
			header = filepath.Join(d, "sqlite3.h")
			break
		}
	}
	if header == "" {
		checks = append(checks, Check{"sqlite3.h", false, "not found in " + strings.Join(o.HeaderDirs, ", "), "Debian: apt-get install libsqlite3-dev (macOS: brew install sqlite)"})
	} else {
		checks = append(checks, Check{"sqlite3.h", true, header, ""})
	}
	return checks
}

// goDirective is the version of go.mod's go line ("1.26.0").
func goDirective(gomod string) string {
	for _, line := range strings.Split(gomod, "\n") {
		if f := strings.Fields(line); len(f) == 2 && f[0] == "go" {
			return f[1]
		}
	}
	return "1"
}

// goVersionOf finds "go1.x.y" in `go env GOVERSION` or `go version` output.
func goVersionOf(out string) string {
	for _, w := range strings.Fields(out) {
		if strings.HasPrefix(w, "go1") {
			return w
		}
	}
	return strings.TrimSpace(out)
}

// versionLess compares dotted versions numerically ("1.25.3" < "1.26").
func versionLess(a, b string) bool {
	pa, pb := strings.Split(a, "."), strings.Split(b, ".")
	for i := 0; i < max(len(pa), len(pb)); i++ {
		var x, y int
		if i < len(pa) {
			x, _ = strconv.Atoi(strings.TrimLeftFunc(pa[i], func(r rune) bool { return r < '0' || r > '9' }))
		}
		if i < len(pb) {
			y, _ = strconv.Atoi(pb[i])
		}
		if x != y {
			return x < y
		}
	}
	return false
}

// projectChecks read the current project's config files, when doctor runs
// in a project: a key vibe does not know would otherwise keep its default
// silently.
func projectChecks(o *DoctorOptions) []Check {
	proj, err := o.FindProject("")
	if err != nil {
		return nil
	}
	dir := proj.VibeDir()
	var checks []Check
	if _, err := os.Stat(proj.Path("permissions.json")); err != nil {
		checks = append(checks, Check{"permissions", true, dir + ": no permissions.json, the shipped policy applies", ""})
	} else if _, err := permission.Load(proj.Root); err != nil {
		checks = append(checks, Check{"permissions", false, setup.FirstLine(err.Error()) + unknownFieldHint(err, permission.Config{}),
			"fix " + permission.ProjectFile + " (`vibe permissions show` prints the policy in force)"})
	} else {
		checks = append(checks, Check{"permissions", true, proj.Path("permissions.json"), ""})
	}
	if _, err := os.Stat(filepath.Join(proj.Root, filepath.FromSlash(gate.DomainConfigPath))); err != nil {
		checks = append(checks, Check{"domain config", true, dir + ": no domain-config.json, the generic domain applies", ""})
	} else if _, err := gate.LoadDomain(proj.Root); err != nil {
		checks = append(checks, Check{"domain config", false, setup.FirstLine(err.Error()), "`vibe domain validate` lists each problem with its field"})
	} else {
		checks = append(checks, Check{"domain config", true, filepath.Join(proj.Root, filepath.FromSlash(gate.DomainConfigPath)), ""})
	}
	return checks
}

var unknownField = regexp.MustCompile(`unknown field "([^"]+)"`)

// unknownFieldHint is "; did you mean …?" for encoding/json's unknown-field
// error, from the JSON keys of the type the file decodes into.
func unknownFieldHint(err error, v any) string {
	m := unknownField.FindStringSubmatch(err.Error())
	if m == nil {
		return ""
	}
	keys := map[string]bool{}
	var walk func(t reflect.Type, depth int)
	walk = func(t reflect.Type, depth int) {
		if depth > 6 {
			return
		}
		switch t.Kind() {
		case reflect.Pointer, reflect.Slice, reflect.Array, reflect.Map:
			walk(t.Elem(), depth+1)
		case reflect.Struct:
			for i := 0; i < t.NumField(); i++ {
				name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
				if name != "" && name != "-" {
					keys[name] = true
				}
				walk(t.Field(i).Type, depth+1)
			}
		}
	}
	walk(reflect.TypeOf(v), 0)
	if s := cli.Nearest(m[1], cli.SortedKeysOf(keys)); len(s) > 0 {
		return "; did you mean " + strings.Join(s, " or ") + "?"
	}
	return ""
}
