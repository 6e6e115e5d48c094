package repro

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/vibe-science/vibe/internal/cli"
	"github.com/vibe-science/vibe/internal/config"
	"github.com/vibe-science/vibe/internal/lineage"
	"github.com/vibe-science/vibe/internal/project"
	"github.com/vibe-science/vibe/internal/store"
)

// Options are the flags of `vibe repro [RESULT]`.
type Options struct {
	IO        cli.IO
	VibePaths func() config.Paths
	Store     func(context.Context) (*store.Store, error)
	Find      func(dir string) (project.Project, error)

	Project string
	// Artifact is the result file named; "" lists every recorded one.
	Artifact string
	JSON     bool
	// Packages prints the package list of the result's environment (pip
	// freeze form) instead of the recipe.
	Packages bool
}

// NewCmdRepro builds `vibe repro [RESULT]` and `vibe repro check`.
func NewCmdRepro(f *cli.Factory, runF func(*Options) error) *cobra.Command {
	opts := &Options{IO: f.IO, VibePaths: f.Paths, Store: f.Store, Find: f.FindProject}
	cmd := &cobra.Command{
		Use:   "repro [RESULT]",
		Short: "How a result file was made, and the recipe that re-runs it",
		Long: "For a result file the gates judge (metrics, calibration results, a findings JSON), vibe records after\n" +
			"each tool call who wrote it: a computation (a script or interpreter run through Bash), a hand (the\n" +
			"agent's Write or Edit, a shell command that only echoes or edits text) or an unknown writer. For a\n" +
			"computation it records the command, the script and the inputs with their hashes, the seeds, the\n" +
			"environment (lock files, interpreter version, a package freeze) and the git commit.\n\n" +
			"With a RESULT, repro prints the recipe that re-runs the version on disk now; with none, it lists the\n" +
			"recorded results. --packages prints the package list the result was computed with, in pip's\n" +
			"requirements form. The records are the database's, or .vibe-science/lineage.jsonl in a fresh clone.",
		Example: "  vibe repro results/metrics.json\n  vibe repro --json .vibe-science/RQ-001/04-results/FINDINGS.json\n" +
			"  vibe repro --packages results/metrics.json > requirements-repro.txt\n  vibe repro check",
		Args: cobra.MaximumNArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			if len(args) == 1 {
				opts.Artifact = args[0]
			}
			if runF != nil {
				return runF(opts)
			}
			return runRepro(opts)
		},
	}
	cmd.Flags().StringVar(&opts.Project, "project", "", "project folder (default: the current one)")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print the record as JSON")
	cmd.Flags().BoolVar(&opts.Packages, "packages", false, "print the package list of the result's environment")
	cmd.AddCommand(NewCmdReproCheck(f, nil))
	return cmd
}

// records are a project's lineage records: the database's, then the
// mirror's for what the database does not know.
type records struct {
	root   string
	db     []lineage.Record // newest first per path, from the database
	mirror lineage.Mirror
}

func load(ctx context.Context, root string, open func(context.Context) (*store.Store, error), paths []string) (records, error) {
	r := records{root: root}
	m, err := lineage.ReadMirror(root)
	if err != nil {
		return r, err
	}
	r.mirror = m
	if open == nil {
		return r, nil
	}
	st, err := open(ctx)
	if err != nil {
		return r, nil // the mirror is what there is
	}
	var rows []recordRow
	if paths == nil {
		latest, err := st.LatestLineage(ctx, root)
		if err != nil {
			return r, err
		}
		for _, l := range latest {
			rows = append(rows, recordRow{l.Path, l.SHA256, l.Writer, l.By, l.Tool, l.At, l.Detail})
		}
	}
	for _, p := range paths {
		hist, err := st.LineageHistory(ctx, root, p, 50)
		if err != nil {
			return r, err
		}
		for _, l := range hist {
			rows = append(rows, recordRow{l.Path, l.SHA256, l.Writer, l.By, l.Tool, l.At, l.Detail})
		}
	}
	for _, row := range rows {
		r.db = append(r.db, row.record())
	}
	return r, nil
}

type recordRow struct {
	path, sha, writer, by, tool string
	at                          time.Time
	detail                      []byte
}

// record is the row's full record, or what the row holds when its record
// was not captured.
func (row recordRow) record() lineage.Record {
	var rec lineage.Record
	if len(row.detail) > 0 && json.Unmarshal(row.detail, &rec) == nil && rec.Path != "" {
		return rec
	}
	return lineage.Record{Path: row.path, SHA256: row.sha, Writer: lineage.Writer(row.writer), By: row.by, Tool: row.tool, At: row.at}
}

// forPath is the record of path's content now (sha), else its newest
// record; ok is false when none is known. current says the record is of
// the content on disk.
func (r records) forPath(path, sha string) (rec lineage.Record, current, ok bool) {
	var newest *lineage.Record
	for i := range r.db {
		if r.db[i].Path != path {
			continue
		}
		if r.db[i].SHA256 == sha {
			return r.db[i], true, true
		}
		if newest == nil {
			newest = &r.db[i]
		}
	}
	for i := len(r.mirror.Records) - 1; i >= 0; i-- {
		m := r.mirror.Records[i]
		if m.Path != path {
			continue
		}
		if m.SHA256 == sha {
			return m, true, true
		}
		if newest == nil {
			newest = &m
		}
	}
	if newest == nil {
		return lineage.Record{}, false, false
	}
	return *newest, false, true
}

// latest is the newest record of every path the database or the mirror
// knows, the database's first.
func (r records) latest() []lineage.Record {
	seen := map[string]bool{}
	var out []lineage.Record
	for _, rec := range r.db {
		if !seen[rec.Path] {
			seen[rec.Path] = true
			out = append(out, rec)
		}
	}
	for _, p := range r.mirror.Paths() {
		if !seen[p] {
			seen[p] = true
			if rec, ok := r.mirror.Latest(p); ok {
				out = append(out, rec)
			}
		}
	}
	return out
}

func runRepro(o *Options) error {
	proj, err := o.Find(o.Project)
	if err != nil {
		return err
	}
	ctx := context.Background()
	if o.Artifact == "" {
		if o.Packages {
			return &cli.UsageError{Err: fmt.Errorf("--packages needs a RESULT: vibe repro --packages results/metrics.json")}
		}
		return list(ctx, o, proj)
	}
	rel, abs, err := resultPath(proj, o.Artifact)
	if err != nil {
		return err
	}
	sum, _, ok := lineage.HashFile(abs, lineage.MaxHashBytes)
	if !ok {
		if !strings.ContainsAny(o.Artifact, "./") && len(cli.Nearest(o.Artifact, []string{"check"})) > 0 {
			return &cli.UsageError{Err: fmt.Errorf("%s: no such file in %s; did you mean `vibe repro check`?", rel, proj.Root)}
		}
		return fmt.Errorf("%s: no such file in %s", rel, proj.Root)
	}
	recs, err := load(ctx, proj.Root, o.Store, []string{rel})
	if err != nil {
		return err
	}
	rec, current, ok := recs.forPath(rel, sum)
	if !ok {
		return fmt.Errorf("no record of how %s was made (it was not written during a session, or before vibe recorded lineage); run the script that computes it through Bash in a session", rel)
	}
	if o.Packages {
		if rec.Env == nil || rec.Env.Freeze == "" {
			return fmt.Errorf("no package list was recorded for %s (the interpreter was not asked, or the record is of a hand write)", rel)
		}
		pkgs, ok := recs.mirror.Freezes[rec.Env.Freeze]
		if !ok {
			return fmt.Errorf("the package list %s of %s is not in %s", short(rec.Env.Freeze), rel, lineage.MirrorFile)
		}
		_, err := io.WriteString(o.IO.Out, pkgs)
		return err
	}
	if o.JSON {
		return cli.WriteJSON(o.IO.Out, struct {
			lineage.Record
			Current bool `json:"current"`
		}{rec, current})
	}
	if !current {
		fmt.Fprintf(o.IO.ErrOut, "%s has changed since vibe recorded it (sha256 %s now, %s then): the recipe below made the earlier version\n",
			rel, short(sum), short(rec.SHA256))
	}
	writeRecipe(o.IO.Out, proj.Root, rec)
	switch rec.Writer {
	case lineage.Hand:
		return fmt.Errorf("%s was written by hand (%s) at %s: no computation made it, so there is nothing to re-run; re-run the script that computes it through Bash",
			rel, rec.By, when(rec.At))
	case lineage.Unknown:
		return fmt.Errorf("vibe cannot tell how %s was computed (%s)", rel, rec.By)
	}
	return nil
}

// resultPath makes a path a person typed project-relative.
func resultPath(proj project.Project, p string) (rel, abs string, err error) {
	abs, err = filepath.Abs(p)
	if err != nil {
		return "", "", err
	}
	if _, err := os.Stat(abs); err != nil {
		if alt := filepath.Join(proj.Root, filepath.FromSlash(p)); !filepath.IsAbs(p) {
			abs = alt // a path relative to the project, typed elsewhere in it
		}
	}
	if real, err := filepath.EvalSymlinks(filepath.Dir(abs)); err == nil {
		abs = filepath.Join(real, filepath.Base(abs))
	}
	rel = proj.Rel(abs)
	if filepath.IsAbs(rel) {
		return "", "", &cli.UsageError{Err: fmt.Errorf("%s is outside the project %s; run the command inside the project or give --project", p, proj.Root)}
	}
	return rel, abs, nil
}

func when(t time.Time) string {
	if t.IsZero() {
		return "an unknown time"
	}
	return t.UTC().Format("2006-01-02 15:04 UTC")
}

func short(s string) string {
	if len(s) > 12 {
		return s[:12]
	}
	return s
}

// writeRecipe prints how a record's result was made and, for a
// computation, the commands that make it again.
func writeRecipe(w io.Writer, root string, rec lineage.Record) {
	fmt.Fprintf(w, "%s  sha256 %s  written %s by %s (%s)\n", rec.Path, short(rec.SHA256), when(rec.At), rec.By, rec.Writer)
	if rec.Writer != lineage.Computation {
		return
	}
	fmt.Fprintln(w, "\nRe-run:")
	dir := root
	if rec.Cwd != "" && rec.Cwd != "." {
		dir = filepath.Join(root, filepath.FromSlash(rec.Cwd))
	}
	fmt.Fprintf(w, "  cd %s\n", shellQuote(dir))
	if g := rec.Git; g != nil {
		line := "  git checkout " + g.Commit
		switch {
		case g.Dirty == nil:
			line += "    # whether the tree had uncommitted changes is not known"
		case *g.Dirty:
			line += "    # the tree had uncommitted changes then: " + strings.Join(g.Changed, ", ")
		}
		fmt.Fprintln(w, line)
	}
	if rec.Env != nil {
		for _, f := range rec.Env.Files {
			if r := lineage.Restore(f.Path); r != "" {
				fmt.Fprintf(w, "  %s    # %s sha256 %s\n", r, f.Path, short(f.SHA256))
			}
		}
		if rec.Env.Freeze != "" && len(rec.Env.Files) == 0 {
			fmt.Fprintf(w, "  vibe repro --packages %s > requirements-repro.txt && pip install -r requirements-repro.txt\n", rec.Path)
		}
	}
	cmd := rec.Command
	if cmd == "" {
		cmd = strings.Join(rec.Argv, " ")
	}
	fmt.Fprintf(w, "  %s\n", cmd)
	if rec.Script != nil {
		fmt.Fprintf(w, "\nScript:  %s  sha256 %s\n", rec.Script.Path, short(rec.Script.SHA256))
	} else if rec.Module != "" {
		fmt.Fprintf(w, "\nModule:  %s\n", rec.Module)
	} else if rec.Inline != "" {
		fmt.Fprintf(w, "\nInline code: sha256 %s (in the command)\n", short(rec.Inline))
	}
	if len(rec.Inputs) > 0 {
		fmt.Fprintln(w, "Inputs:")
		for _, in := range rec.Inputs {
			fmt.Fprintf(w, "  %s  %s\n", in.Path, hashOrSize(in))
		}
	} else {
		fmt.Fprintln(w, "Inputs:  none named by the command or the script")
	}
	if len(rec.Seeds) > 0 {
		fmt.Fprintf(w, "Seeds:   %s\n", strings.Join(rec.Seeds, ", "))
	} else {
		fmt.Fprintln(w, "Seeds:   none set in the command or the script")
	}
	if e := rec.Env; e != nil {
		fmt.Fprintln(w, "Environment:")
		if e.Interpreter != "" {
			v := e.Version
			if v == "" {
				v = "version not recorded"
			}
			fmt.Fprintf(w, "  %s (%s)\n", e.Interpreter, v)
		}
		for _, f := range e.Files {
			fmt.Fprintf(w, "  %s  %s\n", f.Path, hashOrSize(f))
		}
		if e.Freeze != "" {
			fmt.Fprintf(w, "  %d packages  sha256 %s (vibe repro --packages %s)\n", e.Packages, short(e.Freeze), rec.Path)
		}
	}
	if g := rec.Git; g != nil {
		branch := ""
		if g.Branch != "" {
			branch = " on " + g.Branch
		}
		fmt.Fprintf(w, "Commit:  %s%s\n", g.Commit, branch)
	} else {
		fmt.Fprintln(w, "Commit:  none (the project is not a git repository)")
	}
}

func hashOrSize(f lineage.File) string {
	if f.SHA256 == "" {
		return fmt.Sprintf("%d bytes, too large to hash", f.Size)
	}
	return "sha256 " + f.SHA256
}

func shellQuote(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t\n'\"$`\\*?[]{}()<>|&;!#~") {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// list prints the recorded results: path, writer, what wrote it, when.
func list(ctx context.Context, o *Options, proj project.Project) error {
	recs, err := load(ctx, proj.Root, o.Store, nil)
	if err != nil {
		return err
	}
	latest := recs.latest()
	if o.JSON {
		if latest == nil {
			latest = []lineage.Record{}
		}
		return cli.WriteJSON(o.IO.Out, latest)
	}
	if len(latest) == 0 {
		fmt.Fprintln(o.IO.ErrOut, "no result has a recorded lineage yet: results written during a session are recorded after the call")
		return nil
	}
	var rows [][]string
	for _, r := range latest {
		rows = append(rows, []string{r.Path, string(r.Writer), r.By, when(r.At), short(r.SHA256)})
	}
	cli.Table(o.IO, "RESULT\tWRITER\tBY\tAT\tSHA256", rows)
	return nil
}

// CheckOptions are the flags of `vibe repro check`.
type CheckOptions struct {
	IO        cli.IO
	VibePaths func() config.Paths
	Store     func(context.Context) (*store.Store, error)
	Find      func(dir string) (project.Project, error)
	Now       func() time.Time
	Getenv    func(string) string

	Project string
	JSON    bool
	// NoEnv skips the interpreter and its packages (no program runs).
	NoEnv bool
}

// NewCmdReproCheck builds `vibe repro check`.
func NewCmdReproCheck(f *cli.Factory, runF func(*CheckOptions) error) *cobra.Command {
	opts := &CheckOptions{IO: f.IO, VibePaths: f.Paths, Store: f.Store, Find: f.FindProject, Now: f.Now, Getenv: f.Getenv}
	cmd := &cobra.Command{
		Use:   "check",
		Short: "Which recorded inputs, scripts and environments changed since each result was computed",
		Long: "For the newest record of each result a computation wrote, compares the result itself, its script, its\n" +
			"inputs and the lock and environment files with their recorded hashes, and asks the interpreter for its\n" +
			"version and package list (--no-env skips that). Exits 1 when something changed: the result may no\n" +
			"longer be what re-running its recipe gives.",
		Example: "  vibe repro check\n  vibe repro check --json --no-env",
		Args:    cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			if runF != nil {
				return runF(opts)
			}
			return runReproCheck(opts)
		},
	}
	cmd.Flags().StringVar(&opts.Project, "project", "", "project folder (default: the current one)")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print the results and their changes as JSON")
	cmd.Flags().BoolVar(&opts.NoEnv, "no-env", false, "do not run the interpreters (their versions and packages are not compared)")
	return cmd
}

// checked is one result as `vibe repro check --json` prints it.
type checked struct {
	Path    string           `json:"path"`
	SHA256  string           `json:"sha256"`
	By      string           `json:"by"`
	Changes []lineage.Change `json:"changes"`
}

func runReproCheck(o *CheckOptions) error {
	proj, err := o.Find(o.Project)
	if err != nil {
		return err
	}
	ctx := context.Background()
	recs, err := load(ctx, proj.Root, o.Store, nil)
	if err != nil {
		return err
	}
	opt := lineage.Options{Exec: !o.NoEnv, Cache: filepath.Join(o.VibePaths().Home, "lineage"), Now: o.Now(), Path: o.Getenv("PATH")}
	out := []checked{}
	changed := 0
	for _, rec := range recs.latest() {
		if rec.Writer != lineage.Computation {
			continue
		}
		c := checked{Path: rec.Path, SHA256: rec.SHA256, By: rec.By, Changes: lineage.Check(ctx, proj.Root, rec, opt)}
		if c.Changes == nil {
			c.Changes = []lineage.Change{}
		}
		if len(c.Changes) > 0 {
			changed++
		}
		out = append(out, c)
	}
	if o.JSON {
		if err := cli.WriteJSON(o.IO.Out, out); err != nil {
			return err
		}
	} else {
		for _, c := range out {
			for _, ch := range c.Changes {
				fmt.Fprintf(o.IO.Out, "%s: %s\n", c.Path, ch)
			}
		}
		if changed == 0 { // else the error says how many changed
			noun := "results"
			if len(out) == 1 {
				noun = "result"
			}
			fmt.Fprintf(o.IO.ErrOut, "%d computed %s checked, none changed since they were made\n", len(out), noun)
		}
	}
	if changed > 0 {
		return fmt.Errorf("repro check: %d of %d computed results changed since they were made; re-run their recipes (vibe repro RESULT)", changed, len(out))
	}
	return nil
}
