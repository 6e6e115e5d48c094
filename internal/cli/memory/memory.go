package memory

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/vibe-science/vibe/internal/cli"
	"github.com/vibe-science/vibe/internal/disclosure"
	"github.com/vibe-science/vibe/internal/privacy"
	"github.com/vibe-science/vibe/internal/recall"
	"github.com/vibe-science/vibe/internal/store"
	"github.com/vibe-science/vibe/internal/store/record"
)

// NewCmdMemory builds `vibe memory add|import|export|forget|show`.
func NewCmdMemory(f *cli.Factory) *cobra.Command {
	cmd := &cobra.Command{Use: "memory", Short: "Add, import, export, forget and show the memories recall searches"}
	cmd.AddCommand(NewCmdMemoryAdd(f, nil), NewCmdMemoryImport(f, nil), NewCmdMemoryExport(f, nil),
		NewCmdMemoryForget(f, nil), NewCmdMemoryShow(f, nil))
	return cmd
}

// MemoryAddOptions are the flags of `vibe memory add`.
type MemoryAddOptions struct {
	IO          cli.IO
	Store       func(context.Context) (*store.Store, error)
	ProjectRoot func(dir string, all bool) (string, error)
	Now         func() time.Time

	Text    string
	Kind    string
	Ref     string
	Project string
	JSON    bool
	// SourceType is where the knowledge comes from (code, paper, person,
	// blog, model); Trust, when set, overrides its default trust.
	SourceType string
	Trust      *float64
	// InAgent says the command runs inside a Claude Code session
	// (CLAUDECODE=1): a memory with no --source is then the model's own
	// output, not a person's note.
	InAgent bool
	// Vectors lets conflict detection compare meanings; nil compares words
	// (LexicalWhy says why, when set).
	Vectors    recall.Vectors
	LexicalWhy string
}

// NewCmdMemoryAdd builds `vibe memory add TEXT`.
func NewCmdMemoryAdd(f *cli.Factory, runF func(*MemoryAddOptions) error) *cobra.Command {
	opts := &MemoryAddOptions{IO: f.IO, Store: f.Store, ProjectRoot: f.ProjectRoot, Now: f.Now}
	var trust float64
	cmd := &cobra.Command{
		Use:   "add TEXT",
		Short: "Remember a note, decision, pattern, insight, hypothesis or open thread for this project (it supersedes an earlier memory it contradicts)",
		Args:  cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Text = strings.Join(args, " ")
			if !recall.KnownKind(opts.Kind) {
				return &cli.UsageError{Err: fmt.Errorf("--kind must be one of %s, not %q", strings.Join(recall.Kinds, ", "), opts.Kind)}
			}
			if _, ok := record.SourceTrust[opts.SourceType]; opts.SourceType != "" && !ok {
				return &cli.UsageError{Err: fmt.Errorf("--source must be one of code, paper, person, blog, model, not %q", opts.SourceType)}
			}
			opts.InAgent = f.Getenv("CLAUDECODE") == "1"
			if cmd.Flags().Changed("trust") {
				if trust < 0 || trust > 1 {
					return &cli.UsageError{Err: fmt.Errorf("--trust must be between 0 and 1, not %v", trust)}
				}
				opts.Trust = record.Trust(trust)
			}
			if runF != nil {
				return runF(opts)
			}
			if opts.Vectors == nil {
				opts.Vectors, opts.LexicalWhy = f.Vectors()
			}
			return runMemoryAdd(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&opts.Kind, "kind", record.KindNote, "kind: "+strings.Join(recall.Kinds, ", "))
	cmd.Flags().StringVar(&opts.Ref, "ref", "", "where it comes from: a file, claim id, DOI or URL")
	cmd.Flags().StringVar(&opts.Project, "project", "", "project folder (default: the current one)")
	cmd.Flags().StringVar(&opts.SourceType, "source", "", "where it comes from, which sets its default trust: code 1, person 1 (the default; inside a Claude Code session code, person and no source are model output, and --trust cannot raise a trust), paper 0.85 (0.6 without a DOI, PMID or arXiv id in the text or --ref), blog 0.5, model 0.35")
	cmd.Flags().Float64Var(&trust, "trust", 0, "trust from 0 to 1 (overrides --source's default; 0 is kept as 0)")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print JSON: {id, conflicts?, supersedes?, disputes?, disputed_by?, superseded_by?, raised?}")
	return cmd
}

func runMemoryAdd(ctx context.Context, o *MemoryAddOptions) error {
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
	var vec recall.Vectors
	var watched *watchedVectors
	if o.Vectors != nil {
		watched = &watchedVectors{inner: o.Vectors}
		vec = watched
	}
	m := record.NewMemory{ProjectPath: pr, Kind: o.Kind, Text: o.Text, Ref: o.Ref, Source: "cli",
		SourceType: o.SourceType, Trust: o.Trust, At: o.Now()}
	if o.InAgent {
		var changed bool
		if m, changed = recall.FromAgent(m); changed || o.SourceType == "" {
			as := m.SourceType
			if as == record.SourceModel {
				as = "model output"
			}
			fmt.Fprintf(o.IO.ErrOut, "memory add: recorded as %s (trust %s), since it runs in a Claude Code session: the agent's own word is "+
				"model output, and only the researcher, in their own terminal, records a person's note or raises a trust; "+
				"cite a paper with --source paper --ref DOI\n", as, trustText(record.TrustOf(recall.Sourced(m))))
		}
	}
	a, err := recall.AddMemory(ctx, st, vec, m)
	if err != nil {
		return err
	}
	switch {
	case watched == nil && o.LexicalWhy != "":
		fmt.Fprintf(o.IO.ErrOut, "memory add: contradictions were checked by words only: %s\n", o.LexicalWhy)
	case watched != nil && watched.err != nil:
		fmt.Fprintf(o.IO.ErrOut, "memory add: contradictions were checked by words only: %s\n", vectorReason(watched.err))
	}
	if o.JSON {
		return cli.WriteJSON(o.IO.Out, struct {
			ID           int64   `json:"id"`
			Conflicts    []int64 `json:"conflicts,omitempty"`
			Supersedes   []int64 `json:"supersedes,omitempty"`
			Disputes     []int64 `json:"disputes,omitempty"`
			DisputedBy   []int64 `json:"disputed_by,omitempty"`
			SupersededBy *int64  `json:"superseded_by,omitempty"`
			Raised       bool    `json:"raised,omitempty"`
		}{a.ID, a.Conflicts, a.Supersedes, a.Disputes, a.DisputedBy, a.SupersededBy, a.Raised})
	}
	fmt.Fprintf(o.IO.Out, "M-%d\n", a.ID)
	if a.Raised {
		fmt.Fprintf(o.IO.ErrOut, "M-%d was recorded before with less trust; it now has this one's\n", a.ID)
	}
	if len(a.Conflicts) == 0 {
		return nil
	}
	disputes := false
	for _, c := range a.Conflicts {
		other, err := st.Memory(ctx, c)
		if err != nil {
			return err
		}
		verb, why := "contradicts", ""
		switch {
		case slices.Contains(a.Supersedes, c):
			verb = "supersedes"
		case slices.Contains(a.Disputes, c):
			verb, why, disputes = "disputes", fmt.Sprintf("; M-%d is better sourced and stays current", c), true
		case slices.Contains(a.DisputedBy, c):
			verb, why, disputes = "is disputed by", fmt.Sprintf("; M-%d is less trusted, and M-%d stays current", c, a.ID), true
		}
		fmt.Fprintf(o.IO.ErrOut, "M-%d %s M-%d (%s %s, trust %s): %s%s\n", a.ID, verb, other.ID, other.Kind,
			other.CreatedAt.Format("2006-01-02"), trustText(other.Trust), disclosure.Shorten(other.Text, 40), why)
	}
	if a.SupersededBy != nil {
		fmt.Fprintf(o.IO.ErrOut, "M-%d is superseded by the newer M-%d.\n", a.ID, *a.SupersededBy)
	}
	if disputes {
		fmt.Fprintln(o.IO.ErrOut, "Trust settles a contradiction ("+record.TrustScale()+"), then recency: recall ranks the disputing memory down "+
			"and notes the dispute on the other. Settle it with `vibe memory forget ID` (the wrong one) or by adding the value that holds with --source person.")
		return nil
	}
	fmt.Fprintln(o.IO.ErrOut, "Recall ranks a superseded memory down and points to the newer one; forget the wrong one with `vibe memory forget ID`.")
	return nil
}

// trustText is a trust as people read it: 1, 0.85, 0.35.
func trustText(t float64) string { return strconv.FormatFloat(t, 'f', -1, 64) }

// MemoryImportOptions are the flags of `vibe memory import`.
type MemoryImportOptions struct {
	IO          cli.IO
	Store       func(context.Context) (*store.Store, error)
	ProjectRoot func(dir string, all bool) (string, error)
	Now         func() time.Time

	File    string
	Project string
	JSON    bool
	// InAgent says the import runs inside a Claude Code session: each
	// line is then the agent's claim (recall.ImportByAgent).
	InAgent bool
}

// NewCmdMemoryImport builds `vibe memory import FILE.jsonl`.
func NewCmdMemoryImport(f *cli.Factory, runF func(*MemoryImportOptions) error) *cobra.Command {
	opts := &MemoryImportOptions{IO: f.IO, Store: f.Store, ProjectRoot: f.ProjectRoot, Now: f.Now}
	cmd := &cobra.Command{
		Use:   "import FILE.jsonl",
		Short: "Import memories, one JSON object a line: {\"text\", \"kind\", \"ref\", \"created_at\"} (- reads stdin)",
		Long: "Import memories from JSONL, one object a line: text (required), kind (default note), ref (kept and\n" +
			"returned by recall), created_at (RFC 3339 or unix milliseconds; default now), trust (0..1).\n" +
			"A bad line is reported with its number on stderr and skipped; the rest is imported.",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.File = args[0]
			opts.InAgent = f.Getenv("CLAUDECODE") == "1"
			if runF != nil {
				return runF(opts)
			}
			return runMemoryImport(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&opts.Project, "project", "", "project folder (default: the current one)")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print the report as JSON")
	return cmd
}

// importProgressEvery is how many lines pass between progress lines.
const importProgressEvery = 5000

func runMemoryImport(ctx context.Context, o *MemoryImportOptions) error {
	if ctx == nil {
		ctx = context.Background()
	}
	var r io.Reader = o.IO.In
	if o.File != "-" {
		fh, err := os.Open(o.File)
		if err != nil {
			return fmt.Errorf("import memories: %w", err)
		}
		defer fh.Close()
		r = fh
	}
	st, err := o.Store(ctx)
	if err != nil {
		return err
	}
	next := importProgressEvery
	pr, err := o.ProjectRoot(o.Project, false)
	if err != nil {
		return err
	}
	imp := recall.Import[*store.Tx]
	if o.InAgent {
		imp = recall.ImportByAgent[*store.Tx]
		fmt.Fprintln(o.IO.ErrOut, "memory import: inside a Claude Code session each line is the agent's claim: "+
			"a person's or code's source, or none, is recorded as model output, and no trust above its source's is kept")
	}
	rep, err := imp(ctx, st, r, pr, o.Now(), func(lines int) {
		if lines >= next {
			fmt.Fprintf(o.IO.ErrOut, "… %d lines read\n", lines)
			next = lines + importProgressEvery
		}
	})
	if err != nil {
		return err
	}
	for _, s := range rep.Skipped {
		fmt.Fprintf(o.IO.ErrOut, "%s: %s: skipped\n", o.File, s)
	}
	if o.JSON {
		type skipped struct {
			Line  int    `json:"line"`
			Error string `json:"error"`
		}
		sk := make([]skipped, 0, len(rep.Skipped))
		for _, s := range rep.Skipped {
			sk = append(sk, skipped{s.Line, s.Err})
		}
		if err := cli.WriteJSON(o.IO.Out, map[string]any{"lines": rep.Lines, "added": rep.Added, "duplicates": rep.Duplicates,
			"conflicts": rep.Conflicts, "skipped": sk}); err != nil {
			return err
		}
		return importSkipped(o.File, rep.Skipped)
	}
	fmt.Fprintf(o.IO.Out, "imported %d of %d lines: %d added, %d already stored, %d contradicting an earlier memory, %d skipped\n",
		rep.Added+rep.Duplicates, rep.Lines, rep.Added, rep.Duplicates, rep.Conflicts, len(rep.Skipped))
	return importSkipped(o.File, rep.Skipped)
}

// importSkipped fails an import that skipped lines (exit 1), naming them:
// an import that lost lines is not a success a script may take for one.
func importSkipped(file string, skipped []recall.LineError) error {
	if len(skipped) == 0 {
		return nil
	}
	nums := make([]string, 0, len(skipped))
	for i, s := range skipped {
		if i == 10 {
			nums = append(nums, fmt.Sprintf("and %d more", len(skipped)-10))
			break
		}
		nums = append(nums, strconv.Itoa(s.Line))
	}
	noun, these, that := "line", "line", "that line"
	if len(skipped) > 1 {
		noun, these, that = "lines", "lines", "those lines"
	}
	if file == "-" {
		file = "stdin"
	}
	return fmt.Errorf("%s: %d %s skipped (%s %s); the other lines are stored: fix %s and import the file again (stored lines count as duplicates)",
		file, len(skipped), noun, these, strings.Join(nums, ", "), that)
}

// MemoryExportOptions are the flags of `vibe memory export`.
type MemoryExportOptions struct {
	IO          cli.IO
	Store       func(context.Context) (*store.Store, error)
	ProjectRoot func(dir string, all bool) (string, error)

	Project string
	All     bool
	JSON    bool // one array instead of JSON lines
}

// NewCmdMemoryExport builds `vibe memory export`.
func NewCmdMemoryExport(f *cli.Factory, runF func(*MemoryExportOptions) error) *cobra.Command {
	opts := &MemoryExportOptions{IO: f.IO, Store: f.Store, ProjectRoot: f.ProjectRoot}
	var jsonl bool
	cmd := &cobra.Command{
		Use:   "export",
		Short: "Print the project's memories as JSON lines (the import format) or one JSON array",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if opts.JSON && jsonl {
				return &cli.UsageError{Err: fmt.Errorf("--json and --jsonl exclude each other; pick one")}
			}
			if runF != nil {
				return runF(opts)
			}
			return runMemoryExport(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&opts.Project, "project", "", "project folder (default: the current one)")
	cmd.Flags().BoolVar(&opts.All, "all", false, "every project")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print one JSON array")
	cmd.Flags().BoolVar(&jsonl, "jsonl", false, "print one JSON object a line (the default)")
	return cmd
}

// memoryJSON is a memory as export and show print it; export's lines are
// valid import lines.
type memoryJSON struct {
	ID        int64   `json:"id"`
	Project   string  `json:"project"`
	Kind      string  `json:"kind"`
	Text      string  `json:"text"`
	Ref       string  `json:"ref,omitempty"`
	CreatedAt string  `json:"created_at"`
	Trust     float64 `json:"trust"`
	Source    string  `json:"source"`
	Session   string  `json:"session,omitempty"`
	// State, SupersededBy, Disputes, DisputedBy and Conflicts are where
	// the memory stands and its links (see `vibe memory show`); import
	// ignores them.
	State        string  `json:"state"`
	SupersededBy *int64  `json:"superseded_by,omitempty"`
	Disputes     *int64  `json:"disputes,omitempty"`
	DisputedBy   []int64 `json:"disputed_by,omitempty"`
	Conflicts    []int64 `json:"conflicts,omitempty"`
	Forgotten    bool    `json:"forgotten,omitempty"`
}

func toMemoryJSON(m record.MemoryRecord) memoryJSON {
	return memoryJSON{ID: m.ID, Project: m.ProjectPath, Kind: m.Kind, Text: m.Text, Ref: m.Ref,
		CreatedAt: m.CreatedAt.UTC().Format(time.RFC3339Nano), Trust: m.Trust, Source: m.Source, Session: m.SessionID,
		State: m.State(), SupersededBy: m.SupersededBy, Disputes: m.Disputes, DisputedBy: m.DisputedBy, Conflicts: m.Conflicts,
		Forgotten: m.Forgotten}
}

func runMemoryExport(ctx context.Context, o *MemoryExportOptions) error {
	if ctx == nil {
		ctx = context.Background()
	}
	st, err := o.Store(ctx)
	if err != nil {
		return err
	}
	enc := json.NewEncoder(o.IO.Out)
	enc.SetEscapeHTML(false)
	var all []memoryJSON
	n := 0
	pr, err := o.ProjectRoot(o.Project, o.All)
	if err != nil {
		return err
	}
	err = st.ExportMemories(ctx, pr, func(m record.MemoryRecord) error {
		n++
		if o.JSON {
			all = append(all, toMemoryJSON(m))
			return nil
		}
		return enc.Encode(privacy.ScrubAll(toMemoryJSON(m)))
	})
	if err != nil {
		return err
	}
	if o.JSON {
		if all == nil {
			all = []memoryJSON{}
		}
		return cli.WriteJSON(o.IO.Out, all)
	}
	if n == 0 {
		fmt.Fprintln(o.IO.ErrOut, "no memories to export")
	}
	return nil
}

// MemoryForgetOptions are the flags of `vibe memory forget`.
type MemoryForgetOptions struct {
	IO    cli.IO
	Store func(context.Context) (*store.Store, error)

	ID int64
}

// NewCmdMemoryForget builds `vibe memory forget ID`.
func NewCmdMemoryForget(f *cli.Factory, runF func(*MemoryForgetOptions) error) *cobra.Command {
	opts := &MemoryForgetOptions{IO: f.IO, Store: f.Store}
	cmd := &cobra.Command{
		Use:   "forget ID",
		Short: "Stop recalling a memory (it stays on record; adding the same text again brings it back)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, err := parseMemoryID(args[0])
			if err != nil {
				return &cli.UsageError{Err: err}
			}
			opts.ID = id
			if runF != nil {
				return runF(opts)
			}
			return runMemoryForget(cmd.Context(), opts)
		},
	}
	return cmd
}

func runMemoryForget(ctx context.Context, o *MemoryForgetOptions) error {
	if ctx == nil {
		ctx = context.Background()
	}
	st, err := o.Store(ctx)
	if err != nil {
		return err
	}
	// What the memory outranked, or disputed, may stand again: say which.
	var before, after []record.MemoryRecord
	err = st.Tx(ctx, func(tx *store.Tx) error {
		m, err := tx.Memory(ctx, o.ID)
		if err != nil {
			return err
		}
		if before, err = linked(ctx, tx, m.Conflicts); err != nil {
			return err
		}
		if err := tx.ForgetMemory(ctx, o.ID); err != nil {
			return err
		}
		after, err = linked(ctx, tx, m.Conflicts)
		return err
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(o.IO.Out, "M-%d forgotten: recall and session context no longer show it\n", o.ID)
	for i, b := range before {
		now := after[i]
		if b.Forgotten || idOf(b.OutrankedBy()) == idOf(now.OutrankedBy()) {
			continue
		}
		if now.OutrankedBy() == nil {
			fmt.Fprintf(o.IO.Out, "M-%d now stands (%s): recall no longer ranks it down\n", now.ID, now.State())
		} else {
			fmt.Fprintf(o.IO.Out, "M-%d is now %s, below M-%d\n", now.ID, now.State(), *now.OutrankedBy())
		}
	}
	return nil
}

// idOf is *p, 0 for nil.
func idOf(p *int64) int64 {
	if p == nil {
		return 0
	}
	return *p
}

// linked reads the memories of ids in a transaction, in their order.
func linked(ctx context.Context, tx *store.Tx, ids []int64) ([]record.MemoryRecord, error) {
	out := make([]record.MemoryRecord, 0, len(ids))
	for _, id := range ids {
		m, err := tx.Memory(ctx, id)
		if err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, nil
}

// MemoryShowOptions are the flags of `vibe memory show`.
type MemoryShowOptions struct {
	IO    cli.IO
	Store func(context.Context) (*store.Store, error)

	ID   int64
	JSON bool
}

// NewCmdMemoryShow builds `vibe memory show ID`.
func NewCmdMemoryShow(f *cli.Factory, runF func(*MemoryShowOptions) error) *cobra.Command {
	opts := &MemoryShowOptions{IO: f.IO, Store: f.Store}
	cmd := &cobra.Command{
		Use:   "show ID",
		Short: "Show one memory in full (ID as in context: 12 or M-12)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, err := parseMemoryID(args[0])
			if err != nil {
				return &cli.UsageError{Err: err}
			}
			opts.ID = id
			if runF != nil {
				return runF(opts)
			}
			return runMemoryShow(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print JSON")
	return cmd
}

func runMemoryShow(ctx context.Context, o *MemoryShowOptions) error {
	if ctx == nil {
		ctx = context.Background()
	}
	st, err := o.Store(ctx)
	if err != nil {
		return err
	}
	checkNewMemories(ctx, st, o.IO)
	m, err := st.Memory(ctx, o.ID)
	if err != nil {
		return err
	}
	if o.JSON {
		return cli.WriteJSON(o.IO.Out, toMemoryJSON(m))
	}
	w := o.IO.Out
	state := ""
	if m.Forgotten {
		state = "  (forgotten: recall does not show it)"
	}
	fmt.Fprintf(w, "M-%d  %s%s\nproject  %s\ncreated  %s\nsource   %s\ntrust    %g\n", m.ID, m.Kind, state, m.ProjectPath,
		m.CreatedAt.UTC().Format("2006-01-02 15:04 UTC"), m.Source, m.Trust)
	if m.SessionID != "" {
		fmt.Fprintf(w, "session  %s\n", m.SessionID)
	}
	if m.Ref != "" {
		fmt.Fprintf(w, "ref      %s\n", m.Ref)
	}
	fmt.Fprintf(w, "state    %s\n", m.State())
	shown := map[int64]bool{}
	link := func(id int64, verb, why string) {
		shown[id] = true
		line := fmt.Sprintf("%s M-%d", verb, id)
		if why != "" {
			why += "; "
		}
		if other, err := st.Memory(ctx, id); err == nil {
			line += fmt.Sprintf(" (%s%s, trust %s): %s", why, other.CreatedAt.UTC().Format("2006-01-02"), trustText(other.Trust),
				disclosure.Shorten(other.Text, 40))
		}
		fmt.Fprintln(w, line)
	}
	if m.SupersededBy != nil {
		link(*m.SupersededBy, "superseded by", "newer, at least as trusted")
	}
	if m.Disputes != nil {
		link(*m.Disputes, "disputes", "older, better sourced: it stays current")
	}
	for _, c := range m.DisputedBy {
		link(c, "disputed by", "newer, less trusted: this one stays current")
	}
	for _, c := range m.Conflicts {
		if !shown[c] {
			link(c, "contradicts", "")
		}
	}
	fmt.Fprintf(w, "\n%s\n", m.Text)
	return nil
}

// watchedVectors remembers why the vector search failed: AddMemory falls
// back to words silently, and the user should hear it.
type watchedVectors struct {
	inner recall.Vectors
	err   error
}

func (w *watchedVectors) KNN(ctx context.Context, project, text string, k int, kinds []string) ([]recall.VectorHit, error) {
	hits, err := w.inner.KNN(ctx, project, text, k, kinds)
	if err != nil {
		w.err = err
	}
	return hits, err
}

// vectorReason says why the worker's vectors did not answer, and what
// turns them on.
func vectorReason(err error) string {
	switch {
	case errors.Is(err, recall.ErrNoModel):
		// The worker refuses only with its fallback embedder off.
		return "the current embedding model is not installed and the fallback embedder is off (VIBE_EMBED_FALLBACK=off; `vibe model pull` installs the model)"
	case errors.Is(err, recall.ErrNoWorker):
		return "the embed worker is not running (`vibe worker start`)"
	}
	return "the embed worker did not answer: " + err.Error()
}
