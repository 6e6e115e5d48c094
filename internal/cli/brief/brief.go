package brief

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/vibe-science/vibe/internal/brief"
	"github.com/vibe-science/vibe/internal/cli"
	"github.com/vibe-science/vibe/internal/config"
	"github.com/vibe-science/vibe/internal/fault"
	"github.com/vibe-science/vibe/internal/integritycheck"
	"github.com/vibe-science/vibe/internal/project"
	"github.com/vibe-science/vibe/internal/store"
	"github.com/vibe-science/vibe/internal/store/record"
	"github.com/vibe-science/vibe/internal/tamper"
)

// NewCmdBrief builds `vibe brief ingest|show|validate|history`.
func NewCmdBrief(f *cli.Factory) *cobra.Command {
	cmd := &cobra.Command{Use: "brief", Short: "Ingest, show and validate the project's research brief"}
	cmd.AddCommand(NewCmdBriefIngest(f, nil), NewCmdBriefShow(f, nil), NewCmdBriefValidate(f, nil), NewCmdBriefHistory(f, nil))
	return cmd
}

// BriefIngestOptions are the flags of `vibe brief ingest`.
type BriefIngestOptions struct {
	IO          cli.IO
	Store       func(context.Context) (*store.Store, error)
	FindProject func(dir string) (project.Project, error)
	Now         func() time.Time
	VibePaths   func() config.Paths // VIBE_HOME, where the safety net keeps its snapshot

	Project string
	File    string
}

// NewCmdBriefIngest builds `vibe brief ingest FILE`.
func NewCmdBriefIngest(f *cli.Factory, runF func(*BriefIngestOptions) error) *cobra.Command {
	opts := &BriefIngestOptions{IO: f.IO, Store: f.Store, FindProject: f.FindProject, Now: f.Now, VibePaths: f.Paths}
	cmd := &cobra.Command{
		Use:   "ingest FILE",
		Short: "Read a research brief (markdown or JSON), pin its code anchors and make it the current brief",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.File = args[0]
			if runF != nil {
				return runF(opts)
			}
			return runBriefIngest(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&opts.Project, "project", "", "project folder (default: the current one)")
	return cmd
}

// readBriefFile reads FILE and names it relative to the project root (or
// absolute when it lies outside the project).
func readBriefFile(findProject func(string) (project.Project, error), projectFlag, file string) (project.Project, string, []byte, error) {
	proj, err := findProject(projectFlag)
	if err != nil {
		return proj, "", nil, err
	}
	abs, err := filepath.Abs(file)
	if err != nil {
		return proj, "", nil, fault.E(fault.Invalid, "read brief", err)
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	content, err := os.ReadFile(abs)
	if err != nil {
		return proj, "", nil, fault.E(fault.NotFound, "read brief", err)
	}
	return proj, proj.Rel(abs), content, nil
}

func runBriefIngest(ctx context.Context, o *BriefIngestOptions) error {
	if ctx == nil {
		ctx = context.Background()
	}
	proj, name, content, err := readBriefFile(o.FindProject, o.Project, o.File)
	if err != nil {
		return err
	}
	st, err := o.Store(ctx)
	if err != nil {
		return err
	}
	in, err := integritycheck.IngestBrief(ctx, st, proj, name, content, o.Now())
	if err != nil {
		return err
	}
	// The project's copy is the one the safety net guards: taken into its
	// snapshot now, with the files its Critical constraints bind, so the
	// net neither restores the new copy nor reports it as someone's change.
	if o.VibePaths != nil {
		if _, err := tamper.New(tamper.Options{Home: o.VibePaths().Home}).Accept(proj.Root, []string{integritycheck.ProjectBriefFile}, o.Now()); err != nil {
			fmt.Fprintf(o.IO.ErrOut, "vibe: warning: the safety net did not take the new brief into its snapshot (%v); `vibe tamper accept %s` does\n", err, integritycheck.ProjectBriefFile)
		}
	}
	writePinWarnings(o.IO.ErrOut, in.PinErrors)
	v := in.Version
	fmt.Fprintf(o.IO.Out, "Ingested brief %q as version %d from %s: %d constraints, %d decisions, %d anchors (%d pinned).\n",
		v.Title, v.ID, v.SourcePath, v.Constraints, v.Decisions, v.Anchors, pinned(in.Brief.Anchors))
	return nil
}

func pinned(as []brief.Anchor) int {
	n := 0
	for _, a := range as {
		if a.Hash != "" {
			n++
		}
	}
	return n
}

func writePinWarnings(w io.Writer, errs []error) {
	for _, e := range errs {
		fmt.Fprintf(w, "vibe: warning: %v; the anchor stays unpinned (Unrecorded) until the brief is ingested again with the code in place\n", e)
	}
}

// BriefValidateOptions are the flags of `vibe brief validate`.
type BriefValidateOptions struct {
	IO          cli.IO
	FindProject func(dir string) (project.Project, error)

	Project string
	File    string
}

// NewCmdBriefValidate builds `vibe brief validate FILE`.
func NewCmdBriefValidate(f *cli.Factory, runF func(*BriefValidateOptions) error) *cobra.Command {
	opts := &BriefValidateOptions{IO: f.IO, FindProject: f.FindProject}
	cmd := &cobra.Command{
		Use:   "validate FILE",
		Short: "Check a research brief without storing it: syntax (with line numbers), meaning, and whether its anchors are in the code",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.File = args[0]
			if runF != nil {
				return runF(opts)
			}
			return runBriefValidate(opts)
		},
	}
	cmd.Flags().StringVar(&opts.Project, "project", "", "project folder the anchors are relative to (default: the current one)")
	return cmd
}

func runBriefValidate(o *BriefValidateOptions) error {
	proj, name, content, err := readBriefFile(o.FindProject, o.Project, o.File)
	if err != nil {
		return err
	}
	p := integritycheck.PrepareBrief(proj.Root, name, content)
	if len(p.Problems) > 0 {
		return fault.E(fault.Invalid, "validate brief", &integritycheck.ProblemsError{Source: name, Problems: p.Problems})
	}
	writePinWarnings(o.IO.ErrOut, p.PinErrors)
	b := p.Brief
	fmt.Fprintf(o.IO.Out, "%s is a valid brief %q: %d constraints, %d decisions, %d anchors (%d found in the code).\n",
		name, b.Title, len(b.Constraints), len(b.Decisions), len(b.Anchors), pinned(b.Anchors))
	return nil
}

// BriefShowOptions are the flags of `vibe brief show`.
type BriefShowOptions struct {
	IO          cli.IO
	Store       func(context.Context) (*store.Store, error)
	ProjectRoot func(dir string, all bool) (string, error)

	Project string
	JSON    bool
}

// NewCmdBriefShow builds `vibe brief show`.
func NewCmdBriefShow(f *cli.Factory, runF func(*BriefShowOptions) error) *cobra.Command {
	opts := &BriefShowOptions{IO: f.IO, Store: f.Store, ProjectRoot: f.ProjectRoot}
	cmd := &cobra.Command{
		Use:   "show",
		Short: "Show the current research brief with its anchors re-checked against the code now",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if runF != nil {
				return runF(opts)
			}
			return runBriefShow(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&opts.Project, "project", "", "project folder (default: the current one)")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print JSON")
	return cmd
}

type briefVersionJSON struct {
	ID          int64  `json:"id"`
	Source      string `json:"source"`
	Hash        string `json:"sha256"`
	Title       string `json:"title"`
	Constraints int    `json:"constraints"`
	Decisions   int    `json:"decisions"`
	Anchors     int    `json:"anchors"`
	IngestedAt  string `json:"ingested_at"`
}

func toBriefVersionJSON(v record.BriefVersion) briefVersionJSON {
	return briefVersionJSON{ID: v.ID, Source: v.SourcePath, Hash: v.Hash, Title: v.Title, Constraints: v.Constraints,
		Decisions: v.Decisions, Anchors: v.Anchors, IngestedAt: v.IngestedAt.UTC().Format(time.RFC3339)}
}

type briefShowJSON struct {
	Version briefVersionJSON     `json:"version"`
	Brief   brief.Brief          `json:"brief"`
	Anchors []brief.AnchorResult `json:"anchors"`
}

func runBriefShow(ctx context.Context, o *BriefShowOptions) error {
	if ctx == nil {
		ctx = context.Background()
	}
	pr, err := o.ProjectRoot(o.Project, false)
	if err != nil {
		return err
	}
	proj := project.Project{Root: pr}
	st, err := o.Store(ctx)
	if err != nil {
		return err
	}
	b, v, ok, err := integritycheck.CurrentBrief(ctx, st, proj)
	if err != nil {
		return err
	}
	if !ok {
		return fault.Errorf(fault.NotFound, "show brief", "project %s has no research brief: ingest one with `vibe brief ingest FILE`", proj.Root)
	}
	results := brief.CheckAnchors(proj.Root, b.Anchors, nil)
	if o.JSON {
		return cli.WriteJSON(o.IO.Out, briefShowJSON{Version: toBriefVersionJSON(v), Brief: b, Anchors: results})
	}
	writeBrief(o.IO.Out, b, v, results)
	return nil
}

func writeBrief(w io.Writer, b brief.Brief, v record.BriefVersion, results []brief.AnchorResult) {
	fmt.Fprintf(w, "Brief %q, version %d from %s, ingested %s (sha256 %s)\n", b.Title, v.ID, v.SourcePath, cli.TS(v.IngestedAt), cli.ShortID(v.Hash))
	fmt.Fprintf(w, "\nConstraints (%d):\n", len(b.Constraints))
	for _, c := range b.Constraints {
		fmt.Fprintf(w, "  %s  %s, %s: %s\n", c.ID, c.Severity, c.Action, c.Title)
		if len(c.AppliesTo) > 0 {
			fmt.Fprintf(w, "      applies to: %s\n", strings.Join(c.AppliesTo, ", "))
		}
		if c.Rationale != "" {
			fmt.Fprintf(w, "      why: %s\n", c.Rationale)
		}
	}
	fmt.Fprintf(w, "\nDecisions (%d):\n", len(b.Decisions))
	for _, d := range b.Decisions {
		date := ""
		if d.Date != "" {
			date = " (" + d.Date + ")"
		}
		fmt.Fprintf(w, "  %s  %s: %s%s\n", d.ID, d.Status, d.Title, date)
		if d.Text != "" {
			fmt.Fprintf(w, "      %s\n", d.Text)
		}
	}
	fmt.Fprintf(w, "\nAnchors (%d):\n", len(results))
	for _, r := range results {
		fmt.Fprintf(w, "  %-10s %s: %s\n", r.Status, r.Anchor, r.Reason)
	}
}

// BriefHistoryOptions are the flags of `vibe brief history`.
type BriefHistoryOptions struct {
	IO          cli.IO
	Store       func(context.Context) (*store.Store, error)
	ProjectRoot func(dir string, all bool) (string, error)

	Project string
	Limit   int
	JSON    bool
}

// NewCmdBriefHistory builds `vibe brief history`.
func NewCmdBriefHistory(f *cli.Factory, runF func(*BriefHistoryOptions) error) *cobra.Command {
	opts := &BriefHistoryOptions{IO: f.IO, Store: f.Store, ProjectRoot: f.ProjectRoot}
	cmd := &cobra.Command{
		Use:   "history",
		Short: "List every ingested version of the research brief, newest (current) first",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if runF != nil {
				return runF(opts)
			}
			return runBriefHistory(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&opts.Project, "project", "", "project folder (default: the current one)")
	cmd.Flags().IntVar(&opts.Limit, "limit", 20, "how many (0: all)")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print JSON")
	return cmd
}

func runBriefHistory(ctx context.Context, o *BriefHistoryOptions) error {
	if ctx == nil {
		ctx = context.Background()
	}
	st, err := o.Store(ctx)
	if err != nil {
		return err
	}
	pr, err := o.ProjectRoot(o.Project, false)
	if err != nil {
		return err
	}
	vs, err := st.BriefHistory(ctx, pr, o.Limit)
	if err != nil {
		return err
	}
	if o.JSON {
		out := make([]briefVersionJSON, 0, len(vs))
		for _, v := range vs {
			out = append(out, toBriefVersionJSON(v))
		}
		return cli.WriteJSON(o.IO.Out, out)
	}
	rows := make([][]string, 0, len(vs))
	for _, v := range vs {
		rows = append(rows, []string{strconv.FormatInt(v.ID, 10), cli.TS(v.IngestedAt), cli.ShortID(v.Hash),
			strconv.Itoa(v.Constraints), strconv.Itoa(v.Decisions), strconv.Itoa(v.Anchors), v.SourcePath, v.Title})
	}
	cli.Table(o.IO, "VERSION\tINGESTED\tSHA256\tCONSTRAINTS\tDECISIONS\tANCHORS\tSOURCE\tTITLE", rows)
	return nil
}
