package session

import (
	"context"
	"fmt"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/vibe-science/vibe/internal/cli"
	"github.com/vibe-science/vibe/internal/privacy"
	"github.com/vibe-science/vibe/internal/store"
	"github.com/vibe-science/vibe/internal/store/record"
)

// NewCmdSessions builds `vibe sessions list|show`.
func NewCmdSessions(f *cli.Factory) *cobra.Command {
	cmd := &cobra.Command{Use: "sessions", Short: "List and show recorded sessions"}
	cmd.AddCommand(NewCmdSessionsList(f, nil), NewCmdSessionsShow(f, nil))
	return cmd
}

// SessionsListOptions are the flags of `vibe sessions list`.
type SessionsListOptions struct {
	IO          cli.IO
	Store       func(context.Context) (*store.Store, error)
	ProjectRoot func(dir string, all bool) (string, error)

	Project string
	All     bool
	Limit   int
	JSON    bool
}

// NewCmdSessionsList builds `vibe sessions list`.
func NewCmdSessionsList(f *cli.Factory, runF func(*SessionsListOptions) error) *cobra.Command {
	opts := &SessionsListOptions{IO: f.IO, Store: f.Store, ProjectRoot: f.ProjectRoot}
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List sessions of the current project (or --all), newest first",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := cli.CheckLimit(opts.Limit); err != nil {
				return err
			}
			if runF != nil {
				return runF(opts)
			}
			return runSessionsList(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&opts.Project, "project", "", "project folder (default: the current one)")
	cmd.Flags().BoolVar(&opts.All, "all", false, "every project")
	cmd.Flags().IntVar(&opts.Limit, "limit", 20, "how many")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print JSON")
	return cmd
}

type sessionJSON struct {
	ID            string  `json:"id"`
	Project       string  `json:"project"`
	StartedAt     string  `json:"started_at"`
	EndedAt       *string `json:"ended_at"`
	Starts        int     `json:"starts"`
	Actions       int     `json:"actions"`
	ClaimsCreated int     `json:"claims_created"`
	ClaimsKilled  int     `json:"claims_killed"`
	GatesPassed   int     `json:"gates_passed"`
	GatesFailed   int     `json:"gates_failed"`
	Narrative     string  `json:"narrative,omitempty"`
}

func toJSON(s record.Session, withNarrative bool) sessionJSON {
	j := sessionJSON{ID: s.ID, Project: s.ProjectPath, StartedAt: s.StartedAt.Format("2006-01-02T15:04:05Z"),
		Starts: s.StartCount, Actions: s.TotalActions, ClaimsCreated: s.ClaimsCreated, ClaimsKilled: s.ClaimsKilled,
		GatesPassed: s.GatesPassed, GatesFailed: s.GatesFailed}
	if s.EndedAt != nil {
		e := s.EndedAt.Format("2006-01-02T15:04:05Z")
		j.EndedAt = &e
	}
	if withNarrative {
		j.Narrative = s.NarrativeSummary
	}
	return j
}

func runSessionsList(ctx context.Context, o *SessionsListOptions) error {
	if ctx == nil {
		ctx = context.Background()
	}
	st, err := o.Store(ctx)
	if err != nil {
		return err
	}
	pr, err := o.ProjectRoot(o.Project, o.All)
	if err != nil {
		return err
	}
	ss, err := st.Sessions(ctx, pr, o.Limit)
	if err != nil {
		return err
	}
	if o.JSON {
		out := make([]sessionJSON, 0, len(ss))
		for _, s := range ss {
			out = append(out, toJSON(s, false))
		}
		return cli.WriteJSON(o.IO.Out, out)
	}
	if len(ss) == 0 {
		fmt.Fprintln(o.IO.ErrOut, "no sessions recorded for this project yet")
		return nil
	}
	var rows [][]string
	for _, s := range ss {
		ended := "open"
		if s.EndedAt != nil {
			ended = cli.TS(*s.EndedAt)
		}
		rows = append(rows, []string{cli.ShortID(s.ID), cli.TS(s.StartedAt), ended, strconv.Itoa(s.TotalActions),
			fmt.Sprintf("%d/%d", s.ClaimsCreated, s.ClaimsKilled), fmt.Sprintf("%d/%d", s.GatesPassed, s.GatesFailed)})
	}
	cli.Table(o.IO, "SESSION\tSTARTED\tENDED\tACTIONS\tCLAIMS +/x\tGATES ok/fail", rows)
	return nil
}

// SessionsShowOptions are the flags of `vibe sessions show`.
type SessionsShowOptions struct {
	IO    cli.IO
	Store func(context.Context) (*store.Store, error)

	ID   string
	JSON bool
}

// NewCmdSessionsShow builds `vibe sessions show ID`.
func NewCmdSessionsShow(f *cli.Factory, runF func(*SessionsShowOptions) error) *cobra.Command {
	opts := &SessionsShowOptions{IO: f.IO, Store: f.Store}
	cmd := &cobra.Command{
		Use:   "show ID",
		Short: "Show one session: counters, narrative and recent actions (an id prefix is enough)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.ID = args[0]
			if runF != nil {
				return runF(opts)
			}
			return runSessionsShow(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print JSON")
	return cmd
}

func runSessionsShow(ctx context.Context, o *SessionsShowOptions) error {
	if ctx == nil {
		ctx = context.Background()
	}
	st, err := o.Store(ctx)
	if err != nil {
		return err
	}
	id, err := st.ResolveSessionID(ctx, o.ID)
	if err != nil {
		return err
	}
	s, err := st.Session(ctx, id)
	if err != nil {
		return err
	}
	entries, err := st.Spine(ctx, record.SpineFilter{Session: id, Limit: 20})
	if err != nil {
		return err
	}
	if o.JSON {
		return cli.WriteJSON(o.IO.Out, map[string]any{"session": toJSON(s, true), "recent_actions": spineJSON(entries)})
	}
	w := o.IO.Out
	fmt.Fprintf(w, "session  %s\nproject  %s\nstarted  %s (started %d time(s))\n", s.ID, s.ProjectPath, cli.TS(s.StartedAt), s.StartCount)
	if s.EndedAt != nil {
		fmt.Fprintf(w, "ended    %s (%s)\n", cli.TS(*s.EndedAt), s.EndReason)
	}
	fmt.Fprintf(w, "\n%s\n", privacy.Scrub(s.NarrativeSummary))
	if len(entries) > 0 {
		fmt.Fprintln(w, "\nrecent actions:")
		writeSpine(o.IO, entries)
	}
	return nil
}
