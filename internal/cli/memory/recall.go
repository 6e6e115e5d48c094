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
	"github.com/vibe-science/vibe/internal/fault"
	"github.com/vibe-science/vibe/internal/recall"
	"github.com/vibe-science/vibe/internal/store"
)

// RecallOptions are the flags of `vibe recall`.
type RecallOptions struct {
	IO          cli.IO
	Store       func(context.Context) (*store.Store, error)
	ProjectRoot func(dir string, all bool) (string, error)
	Now         func() time.Time

	Query   string
	Project string
	Limit   int
	JSON    bool
	// Vectors is the embed worker's KNN client; nil searches lexically and
	// says so on stderr, with LexicalWhy when it is set.
	Vectors    recall.Vectors
	LexicalWhy string
}

// NewCmdRecall builds `vibe recall QUERY`: layer 3 of progressive
// disclosure, the memories of a project for a question, in full.
func NewCmdRecall(f *cli.Factory, runF func(*RecallOptions) error) *cobra.Command {
	opts := &RecallOptions{IO: f.IO, Store: f.Store, ProjectRoot: f.ProjectRoot, Now: f.Now}
	cmd := &cobra.Command{
		Use:   "recall QUERY",
		Short: "Search the project's memories (BM25 and vectors) and print them in full",
		Long: "Search the memories vibe recorded for a project: decisions, gate failures, claim events and\n" +
			"kill reasons, seeds, session narratives and notes. Words are matched with FTS5 (BM25), meanings\n" +
			"with the embed worker's vectors when it runs; stderr says when the search was lexical only.",
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Query = strings.Join(args, " ")
			if opts.Limit < 1 {
				return &cli.UsageError{Err: fmt.Errorf("--limit must be at least 1, not %d", opts.Limit)}
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
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print JSON: [{id, ref, kind, text, score, sources, conflict?}]")
	return cmd
}

// recallJSON is one hit of `vibe recall --json`; these keys are the
// contract scripts rely on.
type recallJSON struct {
	ID       int64    `json:"id"`
	Ref      string   `json:"ref"`
	Kind     string   `json:"kind"`
	Text     string   `json:"text"`
	Score    float64  `json:"score"`
	Sources  []string `json:"sources"`
	Conflict *int64   `json:"conflict,omitempty"`
}

func runRecall(ctx context.Context, o *RecallOptions) error {
	if ctx == nil {
		ctx = context.Background()
	}
	st, err := o.Store(ctx)
	if err != nil {
		return err
	}
	root, err := o.ProjectRoot(o.Project, false)
	if err != nil {
		return err
	}
	res, err := recall.Search(ctx, st, o.Vectors, recall.Query{
		Project: root, Text: o.Query, Limit: o.Limit, Now: o.Now()})
	if err != nil {
		return err
	}
	if note := lexicalNote(res.Note, o.Vectors == nil, o.LexicalWhy); note != "" {
		fmt.Fprintln(o.IO.ErrOut, "recall:", note)
	}
	if o.JSON {
		out := make([]recallJSON, 0, len(res.Hits))
		for _, h := range res.Hits {
			out = append(out, recallJSON{ID: h.ID, Ref: h.Ref, Kind: h.Kind, Text: h.Text,
				Score: math.Round(h.Score*1e6) / 1e6, Sources: h.Sources, Conflict: h.Conflict})
		}
		return cli.WriteJSON(o.IO.Out, out)
	}
	if len(res.Hits) == 0 {
		fmt.Fprintf(o.IO.ErrOut, "no memory of this project matches %q\n", o.Query)
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
		if h.Conflict != nil {
			fmt.Fprintf(w, "  contradicts [M-%d]", *h.Conflict)
		}
		fmt.Fprintf(w, "\n%s\n", h.Text)
	}
	return nil
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

// lexicalNote is what recall tells the user about its mode: the search's
// own note, with the reason vectors were off or how to turn them on.
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
