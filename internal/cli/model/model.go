package model

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/vibe-science/vibe/internal/cli"
	"github.com/vibe-science/vibe/internal/config"
	"github.com/vibe-science/vibe/internal/embed"
	"github.com/vibe-science/vibe/internal/fault"
	"github.com/vibe-science/vibe/internal/store"
)

// NewCmdModel builds `vibe model pull|list|use`.
func NewCmdModel(f *cli.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "model",
		Short: "Download, list and choose the embedding model",
		Long: "Recall ranks memories by meaning with a sentence-embedding model kept in VIBE_HOME/models.\n" +
			"While the current one is not installed, the worker embeds with the fallback hashed-token embedder\n" +
			"(degraded vectors, replaced once the model is in place) and downloads the model on first need;\n" +
			"VIBE_EMBED_FALLBACK=off keeps recall lexical (full-text search) instead, VIBE_MODEL_PULL=off leaves\n" +
			"the download to `vibe model pull` (`vibe help environment`). `vibe model list` says which applies.",
	}
	cmd.AddCommand(NewCmdModelPull(f, nil), NewCmdModelList(f, nil), NewCmdModelUse(f, nil))
	return cmd
}

// ModelPullOptions are the flags of `vibe model pull`.
type ModelPullOptions struct {
	IO    cli.IO
	Paths func() config.Paths
	// Current is the model the worker runs (cli.CurrentModel), pulled when
	// no name is given.
	Current func(context.Context) (string, error)

	Name string // "" the current model
	URL  string
	JSON bool
	// Catalog and Client default to embed.Catalog and http.DefaultClient;
	// tests point them at an httptest server.
	Catalog map[string]embed.Spec
	Client  *http.Client
}

// NewCmdModelPull builds `vibe model pull [name]`.
func NewCmdModelPull(f *cli.Factory, runF func(*ModelPullOptions) error) *cobra.Command {
	opts := &ModelPullOptions{IO: f.IO, Paths: f.Paths, Current: func(ctx context.Context) (string, error) {
		var choice cli.ModelChoice
		if st, err := f.Store(ctx); err == nil {
			choice = st
		} // without the database the settings decide, as for the worker
		return cli.CurrentModel(ctx, choice, f.Paths())
	}}
	cmd := &cobra.Command{
		Use:   "pull [name]",
		Short: "Download a model (default: the current one, else " + embed.DefaultModel + ") and check its SHA-256",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Name = ""
			if len(args) == 1 {
				opts.Name = args[0]
			}
			if runF != nil {
				return runF(opts)
			}
			return runModelPull(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&opts.URL, "url", "", "base URL to download from instead of Hugging Face (a mirror holding the same paths)")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print what was installed as JSON")
	return cmd
}

func runModelPull(ctx context.Context, o *ModelPullOptions) error {
	if ctx == nil {
		ctx = context.Background()
	}
	catalog := o.Catalog
	if catalog == nil {
		catalog = embed.Catalog
	}
	if o.Name == "" {
		name, err := o.Current(ctx)
		if err != nil {
			return fault.E(fault.Unavailable, "model pull", fmt.Errorf("which model is current: %w (name one: `vibe model pull %s`)", err, embed.DefaultModel))
		}
		o.Name = name
	}
	if err := embed.CheckName(o.Name); err != nil {
		return fault.E(fault.Invalid, "model pull", err)
	}
	spec, ok := catalog[o.Name]
	p := o.Paths()
	dir := embed.Dir(p.Models, o.Name)
	if !ok {
		return fault.Errorf(fault.NotFound, "model pull",
			"vibe does not know how to download %q (it can pull: %s); to use another model, place %s and %s in %s yourself",
			o.Name, strings.Join(catalogNames(catalog), ", "), embed.ONNXFile, embed.TokenizerFile, dir)
	}
	bar := &cli.ProgressBar{W: o.IO.ErrOut, TTY: o.IO.TTY}
	results, err := embed.Pull(ctx, spec, dir, embed.PullOptions{Client: o.Client, BaseURL: o.URL, Progress: bar.Update})
	bar.Finish()
	if err != nil {
		return fault.E(fault.Unavailable, "model pull", err)
	}
	if o.JSON {
		return cli.WriteJSON(o.IO.Out, map[string]any{"model": o.Name, "dir": dir, "files": results})
	}
	rows := make([][]string, 0, len(results))
	for _, r := range results {
		rows = append(rows, []string{r.File, cli.HumanBytes(r.Bytes), r.SHA256[:16], r.Check})
	}
	cli.Table(o.IO, "FILE\tSIZE\tSHA-256\tCHECK", rows)
	fmt.Fprintf(o.IO.Out, "installed %s in %s\n", o.Name, dir)
	for _, r := range results {
		if r.Check == "first-download" {
			fmt.Fprintf(o.IO.Out, "note: no published SHA-256 for %s; the digest above is now recorded in %s and checked on every later pull and load\n",
				r.File, filepath.Join(dir, embed.SumsFile))
		}
	}
	return nil
}

func catalogNames(c map[string]embed.Spec) []string {
	names := make([]string, 0, len(c))
	for n := range c {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// ModelListOptions are the flags of `vibe model list`.
type ModelListOptions struct {
	IO    cli.IO
	Paths func() config.Paths
	Store func(context.Context) (*store.Store, error)
	// Getenv reads VIBE_EMBED_FALLBACK and VIBE_MODEL_PULL, which decide
	// what a worker started now does without the current model.
	Getenv func(string) string

	Verify  bool
	JSON    bool
	Catalog map[string]embed.Spec
}

// NewCmdModelList builds `vibe model list`.
func NewCmdModelList(f *cli.Factory, runF func(*ModelListOptions) error) *cobra.Command {
	opts := &ModelListOptions{IO: f.IO, Paths: f.Paths, Store: f.Store, Getenv: f.Getenv}
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List installed and downloadable models, marking the current one",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if runF != nil {
				return runF(opts)
			}
			return runModelList(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.Verify, "verify", false, "hash every file against SHA256SUMS (reads each model in full)")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print JSON")
	return cmd
}

// ModelRow is one line of `vibe model list`.
type ModelRow struct {
	Name    string `json:"name"`
	Current bool   `json:"current"`
	// Status is installed, incomplete (files missing), available (in
	// the catalogue, not downloaded) or missing (the current model, neither
	// installed nor in the catalogue).
	Status string `json:"status"`
	Bytes  int64  `json:"bytes"`
	// Checksums is recorded or none; with --verify, verified, mismatch or
	// unrecorded.
	Checksums string `json:"checksums"`
	Dir       string `json:"dir,omitempty"`
	Problem   string `json:"problem,omitempty"`
}

func runModelList(ctx context.Context, o *ModelListOptions) error {
	if ctx == nil {
		ctx = context.Background()
	}
	catalog := o.Catalog
	if catalog == nil {
		catalog = embed.Catalog
	}
	p := o.Paths()
	st, err := o.Store(ctx)
	if err != nil {
		return err
	}
	current, err := cli.CurrentModel(ctx, st, p)
	if err != nil {
		return err
	}
	installed, err := embed.List(p.Models)
	if err != nil {
		return err
	}
	seen := map[string]bool{}
	var rows []ModelRow
	for _, m := range installed {
		seen[m.Name] = true
		r := ModelRow{Name: m.Name, Current: m.Name == current, Status: "installed", Bytes: m.Bytes, Dir: m.Dir, Checksums: "none"}
		if !m.Ready {
			r.Status = "incomplete"
			r.Problem = m.Dir + " lacks " + strings.Join(embed.Missing(m.Dir), " and ")
		}
		if m.Recorded {
			r.Checksums = "recorded"
		}
		if o.Verify {
			v, err := embed.Verify(m.Dir)
			r.Checksums = string(v)
			if err != nil {
				r.Problem = err.Error()
			}
		}
		rows = append(rows, r)
	}
	for _, name := range catalogNames(catalog) {
		if !seen[name] {
			var size int64
			sums := "published"
			for _, f := range catalog[name].Files {
				size += f.Size
				if f.SHA256 == "" {
					sums = "on first download" // recorded then, checked on every later pull and load
				}
			}
			rows = append(rows, ModelRow{Name: name, Current: name == current, Status: "available", Bytes: size, Checksums: sums})
		}
	}
	if !seen[current] {
		if _, ok := catalog[current]; !ok {
			rows = append(rows, ModelRow{Name: current, Current: true, Status: "missing", Checksums: "none"})
		}
	}
	sort.Slice(rows, func(i, j int) bool { return rows[i].Name < rows[j].Name })
	if o.JSON {
		if rows == nil {
			rows = []ModelRow{}
		}
		return cli.WriteJSON(o.IO.Out, rows)
	}
	out := make([][]string, 0, len(rows))
	for _, r := range rows {
		mark := " "
		if r.Current {
			mark = "*"
		}
		size := cli.HumanBytes(r.Bytes)
		switch {
		case r.Status == "missing":
			size = "-"
		case r.Bytes == 0 && r.Status == "available":
			size = "unpublished"
		}
		out = append(out, []string{mark + " " + r.Name, r.Status, size, r.Checksums})
	}
	cli.Table(o.IO, "  NAME\tSTATUS\tSIZE\tCHECKSUMS", out)
	// One line per model that needs one: an incomplete model says what it
	// lacks, and the current one what the worker does without it, in the
	// words of its status (it said "incomplete" above and "not installed"
	// here).
	for _, r := range rows {
		var line string
		switch {
		case r.Current && r.Status == "incomplete":
			effect, _ := cli.ModelAbsent(p, r.Name, o.Getenv)
			line = "current model " + r.Name + ": incomplete (" + r.Problem + "): " + effect
		case r.Current && r.Status != "installed":
			state, _ := cli.MissingModel(p, r.Name, o.Getenv)
			line = "current model " + r.Name + ": " + state
		case r.Status == "incomplete":
			line = r.Name + ": incomplete (" + r.Problem + "); `vibe model pull " + r.Name + "` completes it"
		case r.Problem != "":
			line = r.Name + ": " + r.Problem
		}
		if line != "" {
			fmt.Fprintln(o.IO.Out, line)
		}
	}
	return nil
}

// ModelUseOptions are the flags of `vibe model use`.
type ModelUseOptions struct {
	IO    cli.IO
	Paths func() config.Paths
	Store func(context.Context) (*store.Store, error)
	Now   func() time.Time

	Name string
	JSON bool
}

// NewCmdModelUse builds `vibe model use NAME`.
func NewCmdModelUse(f *cli.Factory, runF func(*ModelUseOptions) error) *cobra.Command {
	opts := &ModelUseOptions{IO: f.IO, Paths: f.Paths, Store: f.Store, Now: f.Now}
	cmd := &cobra.Command{
		Use:   "use NAME",
		Short: "Make an installed model current and re-embed every memory with it in the background",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Name = args[0]
			if runF != nil {
				return runF(opts)
			}
			return runModelUse(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print JSON")
	return cmd
}

func runModelUse(ctx context.Context, o *ModelUseOptions) error {
	if ctx == nil {
		ctx = context.Background()
	}
	p := o.Paths()
	if err := embed.CheckName(o.Name); err != nil {
		return fault.E(fault.Invalid, "model use", err)
	}
	dir := embed.Dir(p.Models, o.Name)
	if err := embed.Ready(dir); err != nil {
		if _, known := embed.Catalog[o.Name]; !known {
			// `vibe model pull` cannot fetch it: say what can be done.
			return fault.Errorf(fault.NotFound, "model use", "model %s is not installed in %s, and vibe does not know how to download it: place %s (or %s) and %s there, or use one `vibe model list` names",
				o.Name, dir, embed.ONNXFile, embed.StaticFile, embed.TokenizerFile)
		}
		return fault.Errorf(fault.NotFound, "model use", "model %s is not installed in %s: run `vibe model pull %s` first", o.Name, dir, o.Name)
	}
	st, err := o.Store(ctx)
	if err != nil {
		return err
	}
	// The settings file first: if it cannot be written, nothing changed.
	if err := setSettingsModel(p, o.Name); err != nil {
		return err
	}
	n, err := st.UseEmbedModel(ctx, o.Name, o.Now())
	if err != nil {
		return err
	}
	if o.JSON {
		return cli.WriteJSON(o.IO.Out, map[string]any{"model": o.Name, "queued": n})
	}
	fmt.Fprintf(o.IO.Out, "current model: %s; %d memories queued for embedding with it\n", o.Name, n)
	if n > 0 {
		fmt.Fprintln(o.IO.Out, "the worker re-embeds them in the background; until each is done, recall finds it by full-text search only")
	}
	return nil
}

// setSettingsModel writes "model" into VIBE_HOME/config.json, keeping every
// other key as it was.
func setSettingsModel(p config.Paths, name string) error {
	fields := map[string]json.RawMessage{}
	raw, err := os.ReadFile(p.Settings)
	switch {
	case errors.Is(err, os.ErrNotExist):
	case err != nil:
		return fmt.Errorf("read settings %s: %w", p.Settings, err)
	default:
		if err := json.Unmarshal(raw, &fields); err != nil {
			return fault.Errorf(fault.Invalid, "model use", "settings %s is not a JSON object (%v): fix or delete it, then retry", p.Settings, err)
		}
	}
	v, _ := json.Marshal(name)
	fields["model"] = v
	out, err := json.MarshalIndent(fields, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(p.Settings), config.DirMode); err != nil {
		return fmt.Errorf("write settings: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(p.Settings), ".config-*.json")
	if err != nil {
		return fmt.Errorf("write settings: %w", err)
	}
	if _, err := tmp.Write(append(out, '\n')); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return fmt.Errorf("write settings: %w", err)
	}
	tmp.Close()
	if err := os.Rename(tmp.Name(), p.Settings); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("write settings: %w", err)
	}
	return nil
}
