package session

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/spf13/cobra"

	"github.com/vibe-science/vibe/internal/cli"
	"github.com/vibe-science/vibe/internal/store"
	"github.com/vibe-science/vibe/internal/store/record"
)

// SpineOptions are the flags of `vibe spine`.
type SpineOptions struct {
	IO          cli.IO
	Store       func(context.Context) (*store.Store, error)
	ProjectRoot func(dir string, all bool) (string, error)
	Now         func() time.Time

	Project string
	All     bool
	Session string
	Action  string
	Tool    string
	Since   time.Duration
	Limit   int
	JSON    bool
}

// NewCmdSpine builds `vibe spine`.
func NewCmdSpine(f *cli.Factory, runF func(*SpineOptions) error) *cobra.Command {
	opts := &SpineOptions{IO: f.IO, Store: f.Store, ProjectRoot: f.ProjectRoot, Now: f.Now}
	cmd := &cobra.Command{
		Use:   "spine",
		Short: "Show recent research-spine entries (every tool call vibe recorded)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := cli.CheckLimit(opts.Limit); err != nil {
				return err
			}
			if runF != nil {
				return runF(opts)
			}
			return runSpine(cmd.Context(), opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.Project, "project", "", "project folder (default: the current one)")
	fl.BoolVar(&opts.All, "all", false, "every project")
	fl.StringVar(&opts.Session, "session", "", "only this session (id or prefix)")
	fl.StringVar(&opts.Action, "action", "", "only this action type, e.g. MODEL_TRAIN")
	fl.StringVar(&opts.Tool, "tool", "", "only this tool, e.g. Bash")
	fl.Var(cli.NewDurationValue(&opts.Since, 0), "since", "only entries newer than this, e.g. 24h or 7d")
	fl.IntVar(&opts.Limit, "limit", 30, "how many")
	fl.BoolVar(&opts.JSON, "json", false, "print JSON")
	return cmd
}

func runSpine(ctx context.Context, o *SpineOptions) error {
	if ctx == nil {
		ctx = context.Background()
	}
	st, err := o.Store(ctx)
	if err != nil {
		return err
	}
	pr, err := o.ProjectRoot(o.Project, o.All || o.Session != "")
	if err != nil {
		return err
	}
	filter := record.SpineFilter{Project: pr, ActionType: o.Action,
		Tool: o.Tool, Limit: o.Limit}
	if o.Session != "" {
		if filter.Session, err = st.ResolveSessionID(ctx, o.Session); err != nil {
			return err
		}
	}
	if o.Since > 0 {
		filter.Since = o.Now().Add(-o.Since)
	}
	entries, err := st.Spine(ctx, filter)
	if err != nil {
		return err
	}
	if o.JSON {
		return cli.WriteJSON(o.IO.Out, spineJSON(entries))
	}
	if len(entries) == 0 {
		where := "this project"
		if pr != "" {
			where = pr
		} else if o.All {
			where = "any project"
		}
		if o.Session != "" || o.Action != "" || o.Tool != "" || o.Since > 0 {
			fmt.Fprintf(o.IO.ErrOut, "no spine entry of %s matches these filters\n", where)
		} else {
			fmt.Fprintf(o.IO.ErrOut, "no tool call recorded for %s yet: the hooks record each one a Claude Code session makes there\n", where)
		}
		return nil
	}
	writeSpine(o.IO, entries)
	return nil
}

type spineEntryJSON struct {
	ID           int64  `json:"id"`
	Session      string `json:"session"`
	RecordedAt   string `json:"recorded_at"`
	Action       string `json:"action"`
	Tool         string `json:"tool"`
	Input        string `json:"input"`
	Output       string `json:"output"`
	InputSHA256  string `json:"input_sha256"`
	OutputSHA256 string `json:"output_sha256"`
	DurationMS   *int64 `json:"duration_ms"`
	AgentType    string `json:"agent_type,omitempty"`
}

func spineJSON(es []record.SpineEntry) []spineEntryJSON {
	out := make([]spineEntryJSON, 0, len(es))
	for _, e := range es {
		out = append(out, spineEntryJSON{e.ID, e.SessionID, e.At.UTC().Format(time.RFC3339), e.ActionType, e.ToolName,
			e.InputSummary, e.OutputSummary, e.InputSHA256, e.OutputSHA256, e.DurationMS, e.AgentType})
	}
	return out
}

func writeSpine(io cli.IO, es []record.SpineEntry) {
	var rows [][]string
	for _, e := range es {
		rows = append(rows, []string{strconv.FormatInt(e.ID, 10), cli.TS(e.At), cli.ShortID(e.SessionID), e.ActionType, e.ToolName, e.InputSummary})
	}
	cli.Table(io, "ID\tTIME\tSESSION\tACTION\tTOOL\tINPUT", rows)
}
