package decisions

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/vibe-science/vibe/internal/cli"
	"github.com/vibe-science/vibe/internal/store"
	"github.com/vibe-science/vibe/internal/store/record"
)

// DecisionsOptions are the flags of `vibe decisions`.
type DecisionsOptions struct {
	IO          cli.IO
	Store       func(context.Context) (*store.Store, error)
	ProjectRoot func(dir string, all bool) (string, error)
	Now         func() time.Time

	Project string
	All     bool
	Session string
	// Kinds are record.DecisionKinds (empty: every one but recorded).
	Kinds  []string
	Checks []string
	Since  time.Duration
	Limit  int
	JSON   bool
}

// NewCmdDecisions builds `vibe decisions`.
func NewCmdDecisions(f *cli.Factory, runF func(*DecisionsOptions) error) *cobra.Command {
	opts := &DecisionsOptions{IO: f.IO, Store: f.Store, ProjectRoot: f.ProjectRoot, Now: f.Now}
	cmd := &cobra.Command{
		Use:   "decisions",
		Short: "List what vibe denied, blocked, asked and warned, newest first",
		Long: `Lists the decisions vibe's hooks made, newest first: each call PreToolUse denied or asked the
user about, each turn PostToolUse or Stop blocked, and each warning Claude or you were told,
with its session, time, hook, tool, file, check and message (the reason; --json adds the fix,
the evidence and the decision hash). Passing checks are recorded too, and listed with
--kind recorded.

  vibe decisions                          this project's decisions
  vibe decisions --kind deny,block        only what stopped a call or a turn
  vibe decisions --session 5c1e --since 24h
  vibe decisions --check DQ4 --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := cli.CheckLimit(opts.Limit); err != nil {
				return err
			}
			for i, k := range opts.Kinds {
				k = strings.ToLower(strings.TrimSpace(k))
				if k == "all" {
					opts.Kinds = append([]string(nil), record.DecisionKinds...)
					break
				}
				if !slices.Contains(record.DecisionKinds, k) {
					return &cli.UsageError{Err: fmt.Errorf("--kind must be one of %s or all, not %q",
						strings.Join(record.DecisionKinds, ", "), opts.Kinds[i])}
				}
				opts.Kinds[i] = k
			}
			if runF != nil {
				return runF(opts)
			}
			return runDecisions(cmd.Context(), opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.Project, "project", "", "project folder (default: the current one)")
	fl.BoolVar(&opts.All, "all", false, "every project")
	fl.StringVar(&opts.Session, "session", "", "only this session (id or prefix)")
	fl.StringSliceVar(&opts.Kinds, "kind", nil, "only these decisions: "+strings.Join(record.DecisionKinds, ", ")+" or all (default: all but recorded)")
	fl.StringSliceVar(&opts.Checks, "check", nil, "only these checks, e.g. DQ4,permission")
	fl.Var(cli.NewDurationValue(&opts.Since, 0), "since", "only decisions newer than this, e.g. 24h or 7d")
	fl.IntVar(&opts.Limit, "limit", 50, "how many")
	fl.BoolVar(&opts.JSON, "json", false, "print JSON")
	return cmd
}

func runDecisions(ctx context.Context, o *DecisionsOptions) error {
	if ctx == nil {
		ctx = context.Background()
	}
	st, err := o.Store(ctx)
	if err != nil {
		return err
	}
	root, err := o.ProjectRoot(o.Project, o.All || o.Session != "")
	if err != nil {
		return err
	}
	f := record.DecisionFilter{Project: root, Kinds: o.Kinds, Checks: o.Checks, Limit: o.Limit}
	if o.Session != "" {
		if f.Session, err = st.ResolveSessionID(ctx, o.Session); err != nil {
			return err
		}
	}
	if o.Since > 0 {
		f.Since = o.Now().Add(-o.Since)
	}
	ds, err := st.Decisions(ctx, f)
	if err != nil {
		return err
	}
	if o.JSON {
		return cli.WriteJSON(o.IO.Out, JSON(ds))
	}
	if len(ds) == 0 {
		where := "any project"
		if root != "" {
			where = root
		}
		if len(o.Kinds)+len(o.Checks) > 0 || o.Session != "" || o.Since > 0 {
			fmt.Fprintf(o.IO.ErrOut, "no decision of %s matches these filters\n", where)
		} else {
			fmt.Fprintf(o.IO.ErrOut, "vibe has denied, blocked, asked and warned nothing in %s yet\n", where)
		}
		return nil
	}
	rows := make([][]string, 0, len(ds))
	for _, d := range ds {
		rows = append(rows, []string{cli.TS(d.At), cli.OrDash(cli.ShortID(d.SessionID)), d.Event, cli.OrDash(d.Kind), d.Check,
			cli.OrDash(d.Tool), cli.OrDash(d.File), d.Reason})
	}
	cli.Table(o.IO, "TIME\tSESSION\tHOOK\tDECISION\tCHECK\tTOOL\tFILE\tMESSAGE", rows)
	return nil
}

// DecisionJSON is one decision in --json output (`vibe decisions`, and the
// decisions of `vibe gate history`).
type DecisionJSON struct {
	ID             int64    `json:"id"`
	DecidedAt      string   `json:"decided_at"`
	Session        string   `json:"session,omitempty"`
	Project        string   `json:"project"`
	Hook           string   `json:"hook"`
	Tool           string   `json:"tool,omitempty"`
	ToolUseID      string   `json:"tool_use_id,omitempty"`
	File           string   `json:"file,omitempty"`
	Check          string   `json:"check"`
	Result         string   `json:"result"`
	Severity       string   `json:"severity"`
	Decision       string   `json:"decision"`
	Reason         string   `json:"reason"`
	Recommendation string   `json:"recommendation,omitempty"`
	Paths          []string `json:"paths,omitempty"`
	Claims         []string `json:"claims,omitempty"`
	DecisionHash   string   `json:"decision_hash"`
}

// JSON is ds in --json form, never null.
func JSON(ds []record.Decision) []DecisionJSON {
	out := make([]DecisionJSON, 0, len(ds))
	for _, d := range ds {
		out = append(out, DecisionJSON{ID: d.ID, DecidedAt: d.At.UTC().Format(time.RFC3339), Session: d.SessionID,
			Project: d.ProjectPath, Hook: d.Event, Tool: d.Tool, ToolUseID: d.ToolUseID, File: d.File, Check: d.Check,
			Result: d.Result, Severity: d.Severity, Decision: d.Kind, Reason: d.Reason, Recommendation: d.Recommendation,
			Paths: d.Paths, Claims: d.Claims, DecisionHash: d.DecisionHash})
	}
	return out
}
