package memory

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/vibe-science/vibe/internal/cli"
	"github.com/vibe-science/vibe/internal/config"
	"github.com/vibe-science/vibe/internal/disclosure"
	"github.com/vibe-science/vibe/internal/fault"
	"github.com/vibe-science/vibe/internal/recall"
	"github.com/vibe-science/vibe/internal/store"
	"github.com/vibe-science/vibe/internal/store/record"
)

// RecallOptions are the flags of `vibe recall`.
type RecallOptions struct {
	IO          cli.IO
	Store       func(context.Context) (*store.Store, error)
	ProjectRoot func(dir string, all bool) (string, error)
	Now         func() time.Time
	// Paths finds the settings that name the current embedding model, for
	// the fix recall names while the fallback embedder stands in.
	Paths func() config.Paths

	Query   string
	Project string
	Limit   int
	JSON    bool
	// Kinds, Since (a duration back from now, or a date), Session and All
	// (every project) filter the memories searched.
	Kinds   []string
	Since   string
	Session string
	All     bool
	// Vectors is the embed worker's KNN client; nil searches lexically and
	// says so on stderr, with LexicalWhy when it is set.
	Vectors    recall.Vectors
	LexicalWhy string
}

// NewCmdRecall builds `vibe recall QUERY`: layer 3 of progressive
// disclosure, the memories of a project for a question, in full.
func NewCmdRecall(f *cli.Factory, runF func(*RecallOptions) error) *cobra.Command {
	opts := &RecallOptions{IO: f.IO, Store: f.Store, ProjectRoot: f.ProjectRoot, Now: f.Now, Paths: f.Paths}
	cmd := &cobra.Command{
		Use:   "recall QUERY",
		Short: "Search the project's memories (BM25 and vectors) and print them in full",
		Long: "Search the memories vibe recorded for a project: decisions, gate failures, claim events and\n" +
			"kill reasons, seeds, session narratives, failed tool calls, notes, patterns, insights, hypotheses\n" +
			"and open threads. Words are matched with FTS5 (BM25), meanings with the embed worker's vectors\n" +
			"when it runs; stderr says when the search was lexical only. A memory that a newer one contradicts\n" +
			"is ranked down, never hidden, and says which: superseded by [M-n].",
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Query = strings.Join(args, " ")
			if err := cli.CheckLimit(opts.Limit); err != nil {
				return err
			}
			for _, k := range opts.Kinds {
				if !recall.KnownKind(k) {
					return &cli.UsageError{Err: fmt.Errorf("--kind must be one of %s, not %q", strings.Join(recall.Kinds, ", "), k)}
				}
			}
			if opts.Since != "" {
				if _, err := sinceTime(opts.Since, time.Time{}); err != nil {
					return &cli.UsageError{Err: err}
				}
			}
			if opts.All && opts.Project != "" {
				return &cli.UsageError{Err: fmt.Errorf("--all searches every project; leave out --project")}
			}
			if runF != nil {
				return runF(opts)
			}
			if opts.Vectors == nil {
				opts.Vectors, opts.LexicalWhy = f.Vectors()
			}
			return runRecall(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&opts.Project, "project", "", "project folder (default: the current one)")
	cmd.Flags().IntVar(&opts.Limit, "limit", recall.DefaultLimit, "how many memories")
	cmd.Flags().StringArrayVar(&opts.Kinds, "kind", nil, "only memories of this kind (repeatable): "+strings.Join(recall.Kinds, ", "))
	cmd.Flags().StringVar(&opts.Since, "since", "", "only memories from this long ago on (7d, 2w, 36h) or since a date (2026-11-01)")
	cmd.Flags().StringVar(&opts.Session, "session", "", "only memories recorded in this session (its id, as vibe sessions list shows it)")
	cmd.Flags().BoolVar(&opts.All, "all", false, "search the memories of every project (lexical only)")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print JSON: [{id, ref, kind, text, score, sources, created_at, project, superseded_by?, disputes?, disputed_by?, conflicts?}]")
	return cmd
}

// sinceTime reads --since: a duration back from now (7d, 2w, 36h) or a
// date (2026-11-01, or RFC 3339).
func sinceTime(s string, now time.Time) (time.Time, error) {
	s = strings.TrimSpace(s)
	if d, err := cli.ParseDays(s); err == nil {
		if d <= 0 {
			return time.Time{}, fmt.Errorf("--since %q: want a positive duration", s)
		}
		return now.Add(-d), nil
	}
	if t, err := time.Parse("2006-01-02", s); err == nil {
		return t, nil
	}
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, nil
	}
	return time.Time{}, fmt.Errorf("--since %q: want a duration such as 7d, 2w or 36h, or a date such as 2026-11-01", s)
}

// recallJSON is one hit of `vibe recall --json`; these keys are the
// contract scripts rely on.
type recallJSON struct {
	ID           int64    `json:"id"`
	Ref          string   `json:"ref"`
	Kind         string   `json:"kind"`
	Text         string   `json:"text"`
	Score        float64  `json:"score"`
	Sources      []string `json:"sources"`
	CreatedAt    string   `json:"created_at"`
	Project      string   `json:"project"`
	SupersededBy *int64   `json:"superseded_by,omitempty"`
	// Disputes is the older, better-sourced memory the hit disputes (it
	// stays current); DisputedBy the newer, less trusted ones that
	// dispute the hit, newest first.
	Disputes   *int64  `json:"disputes,omitempty"`
	DisputedBy []int64 `json:"disputed_by,omitempty"`
	Conflicts  []int64 `json:"conflicts,omitempty"`
}

func runRecall(ctx context.Context, o *RecallOptions) error {
	if ctx == nil {
		ctx = context.Background()
	}
	st, err := o.Store(ctx)
	if err != nil {
		return err
	}
	root, err := o.ProjectRoot(o.Project, o.All)
	if err != nil {
		return err
	}
	checkNewMemories(ctx, st, o.IO)
	q := recall.Query{Project: root, Text: o.Query, Limit: o.Limit, Now: o.Now(), Kinds: o.Kinds,
		Session: o.Session, AllProjects: o.All}
	if o.Since != "" {
		if q.Since, err = sinceTime(o.Since, q.Now); err != nil {
			return &cli.UsageError{Err: err}
		}
	}
	res, err := recall.Search(ctx, st, o.Vectors, q)
	if err != nil {
		return err
	}
	if note := rankedBy(res, o.Vectors == nil, o.LexicalWhy, o.model(ctx, st)); note != "" {
		fmt.Fprintln(o.IO.ErrOut, "recall:", note)
	}
	if o.JSON {
		out := make([]recallJSON, 0, len(res.Hits))
		for _, h := range res.Hits {
			out = append(out, recallJSON{ID: h.ID, Ref: h.Ref, Kind: h.Kind, Text: h.Text,
				Score: math.Round(h.Score*1e6) / 1e6, Sources: h.Sources, CreatedAt: h.CreatedAt.UTC().Format(time.RFC3339),
				Project: h.ProjectPath, SupersededBy: h.SupersededBy, Disputes: h.Disputes, DisputedBy: h.DisputedBy, Conflicts: h.Conflicts})
		}
		return cli.WriteJSON(o.IO.Out, out)
	}
	if len(res.Hits) == 0 {
		where := "of this project"
		if o.All {
			where = "of any project"
		}
		fmt.Fprintf(o.IO.ErrOut, "no memory %s matches %q%s\n", where, o.Query, filtersNote(o))
		return nil
	}
	w := o.IO.Out
	for i, h := range res.Hits {
		if i > 0 {
			fmt.Fprintln(w)
		}
		fmt.Fprintf(w, "[M-%d] %s %s  score %.4f  %s", h.ID, h.Kind, h.CreatedAt.Format("2006-01-02"), h.Score, strings.Join(h.Sources, "+"))
		if h.Ref != "" {
			fmt.Fprintf(w, "  ref %s", h.Ref)
		}
		if o.All {
			fmt.Fprintf(w, "  project %s", h.ProjectPath)
		}
		if h.SupersededBy != nil {
			fmt.Fprintf(w, "  superseded by [M-%d]", *h.SupersededBy)
		}
		if h.Disputes != nil {
			fmt.Fprintf(w, "  disputes the better-sourced [M-%d]", *h.Disputes)
		}
		if len(h.Conflicts) > 0 {
			fmt.Fprintf(w, "  contradicts %s", memoryRefs(h.Conflicts))
		}
		fmt.Fprintf(w, "\n%s\n", h.Text)
		if d := h.Dispute; d != nil {
			more := ""
			if n := len(h.DisputedBy) - 1; n > 0 {
				more = fmt.Sprintf(" (and %d more)", n)
			}
			fmt.Fprintf(w, "disputed by [M-%d], a %s memory of %s%s: %s\n", d.ID, record.TrustLabel(d.Trust),
				d.CreatedAt.UTC().Format("2006-01-02"), more, disclosure.Shorten(strings.Join(strings.Fields(d.Text), " "), 40))
		}
	}
	return nil
}

// cliCheckBatch bounds how many memories the hooks wrote a CLI read
// checks for contradictions before it answers (about 2 ms each).
const cliCheckBatch = 100

// checkNewMemories links the memories the hooks wrote that the worker has
// not checked yet (it is stopped, or VIBE_WORKER=off), so that recall and
// show see their superseding; with the worker running there are none, and
// the check is one indexed read. A failure is said and the read goes on.
func checkNewMemories(ctx context.Context, st *store.Store, io cli.IO) {
	if _, _, err := recall.CheckPending(ctx, st, cliCheckBatch); err != nil {
		fmt.Fprintf(io.ErrOut, "could not check new memories for contradictions: %v\n", err)
	}
}

// filtersNote names the filters that narrowed a search with no hit.
func filtersNote(o *RecallOptions) string {
	var f []string
	if len(o.Kinds) > 0 {
		f = append(f, "kind "+strings.Join(o.Kinds, " or "))
	}
	if o.Since != "" {
		f = append(f, "since "+o.Since)
	}
	if o.Session != "" {
		f = append(f, "session "+o.Session)
	}
	if len(f) == 0 {
		return ""
	}
	return " (" + strings.Join(f, ", ") + ")"
}

// memoryRefs formats memory ids as "[M-3] [M-9]".
func memoryRefs(ids []int64) string {
	s := make([]string, len(ids))
	for i, id := range ids {
		s[i] = fmt.Sprintf("[M-%d]", id)
	}
	return strings.Join(s, " ")
}

// parseMemoryID reads a memory id as printed in context ("M-12") or bare
// ("12").
func parseMemoryID(s string) (int64, error) {
	t := strings.TrimPrefix(strings.TrimPrefix(strings.TrimSpace(s), "M-"), "m-")
	id, err := strconv.ParseInt(t, 10, 64)
	if err != nil || id <= 0 {
		return 0, fault.Errorf(fault.Invalid, "memory id", "%q is not a memory id; give it as 12 or M-12 (see `vibe recall QUERY`)", s)
	}
	return id, nil
}

// model is the current embedding model, as the worker decides it
// (cli.CurrentModel); "" when it cannot be read.
func (o *RecallOptions) model(ctx context.Context, st *store.Store) string {
	if o.Paths == nil {
		return ""
	}
	name, _ := cli.CurrentModel(ctx, st, o.Paths())
	return name
}

// rankedBy is what recall tells the user about what ranked its results:
// words only, and why vectors did not take part or how to turn them on;
// words and the named model's vectors; or words and the fallback
// embedder's, which stands in for the current model (model) while it is
// not installed and hashes words, so its hits (listed as "fallback") are no
// matches of meaning. The search's own note follows.
func rankedBy(res recall.Result, noVectors bool, why, model string) string {
	if res.Mode == recall.ModeLexical {
		return lexicalNote(res.Note, noVectors, why)
	}
	var line string
	switch {
	case res.Fallback:
		pull := "`vibe model pull`"
		if model != "" {
			pull = "`vibe model pull " + model + "`"
		}
		line = "ranked by words: BM25, and the fallback hashed-token embedder standing in while no model is installed (it hashes words, " +
			"so what it adds, listed as \"" + recall.SourceFallback + "\", matches words, not meanings); " + pull + " installs the model"
	case res.Embedder != "":
		line = "ranked by words (BM25) and by meaning (" + res.Embedder + "'s vectors)"
	default:
		line = "ranked by words (BM25): the worker's vectors found no memory of this project"
	}
	if res.Note != "" {
		line += "; " + res.Note
	}
	return line
}

// lexicalNote is what recall tells the user about a lexical search: the
// search's own note, with the reason vectors were off or how to turn them
// on.
func lexicalNote(note string, noVectors bool, why string) string {
	switch {
	case noVectors && why != "" && strings.HasPrefix(note, "no vector search configured"):
		return "lexical only: " + why + strings.TrimPrefix(note, "no vector search configured: lexical only")
	case strings.HasPrefix(note, "worker not running: lexical only"):
		return "worker not running: lexical only (start it with `vibe worker start`; `vibe model list` shows whether a model is installed)" +
			strings.TrimPrefix(note, "worker not running: lexical only")
	}
	return note
}
