package alerts

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/vibe-science/vibe/internal/cli"
	"github.com/vibe-science/vibe/internal/fault"
	"github.com/vibe-science/vibe/internal/store"
	"github.com/vibe-science/vibe/internal/store/record"
)

// NewCmdAlerts builds `vibe alerts list|resolve`.
func NewCmdAlerts(f *cli.Factory) *cobra.Command {
	cmd := &cobra.Command{Use: "alerts", Short: "List and resolve the observer's alerts (a HALT denies writes until resolved)"}
	cmd.AddCommand(NewCmdAlertsList(f, nil), NewCmdAlertsResolve(f, nil))
	return cmd
}

// AlertsListOptions are the flags of `vibe alerts list`.
type AlertsListOptions struct {
	IO          cli.IO
	Store       func(context.Context) (*store.Store, error)
	ProjectRoot func(dir string, all bool) (string, error)

	Project string
	All     bool
	Limit   int
	JSON    bool
}

// NewCmdAlertsList builds `vibe alerts list`.
func NewCmdAlertsList(f *cli.Factory, runF func(*AlertsListOptions) error) *cobra.Command {
	opts := &AlertsListOptions{IO: f.IO, Store: f.Store, ProjectRoot: f.ProjectRoot}
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the project's open alerts, most severe first (HALT, WARN, INFO), then newest",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := cli.CheckLimit(opts.Limit); err != nil {
				return err
			}
			if runF != nil {
				return runF(opts)
			}
			return runAlertsList(cmd.Context(), opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.Project, "project", "", "project folder (default: the current one)")
	fl.BoolVar(&opts.All, "all", false, "resolved alerts too, after the open ones")
	fl.IntVar(&opts.Limit, "limit", 50, "how many")
	fl.BoolVar(&opts.JSON, "json", false, "print JSON")
	return cmd
}

type alertJSON struct {
	ID          int64   `json:"id"`
	Project     string  `json:"project"`
	Session     string  `json:"session,omitempty"`
	Level       string  `json:"level"`
	Check       string  `json:"check"`
	Message     string  `json:"message"`
	Fingerprint string  `json:"fingerprint"`
	CreatedAt   string  `json:"created_at"`
	Resolved    bool    `json:"resolved"`
	ResolvedAt  *string `json:"resolved_at"`
	Resolution  string  `json:"resolution,omitempty"`
}

func alertToJSON(a record.Alert) alertJSON {
	j := alertJSON{ID: a.ID, Project: a.ProjectPath, Session: a.SessionID, Level: a.Level, Check: a.Check,
		Message: a.Message, Fingerprint: a.Fingerprint, CreatedAt: a.CreatedAt.UTC().Format(time.RFC3339),
		Resolved: a.Resolved, Resolution: a.Resolution}
	if a.ResolvedAt != nil {
		s := a.ResolvedAt.UTC().Format(time.RFC3339)
		j.ResolvedAt = &s
	}
	return j
}

func runAlertsList(ctx context.Context, o *AlertsListOptions) error {
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
	as, err := st.Alerts(ctx, record.AlertFilter{Project: pr, IncludeResolved: o.All, Limit: o.Limit})
	if err != nil {
		return err
	}
	if o.JSON {
		out := make([]alertJSON, 0, len(as))
		for _, a := range as {
			out = append(out, alertToJSON(a))
		}
		return cli.WriteJSON(o.IO.Out, out)
	}
	if len(as) == 0 {
		if o.All {
			fmt.Fprintln(o.IO.ErrOut, "no alerts recorded for this project")
		} else {
			fmt.Fprintln(o.IO.ErrOut, "no open alerts for this project")
		}
		return nil
	}
	w := o.IO.Out
	for i, a := range as {
		if i > 0 {
			fmt.Fprintln(w)
		}
		fmt.Fprintf(w, "#%d  %s  %s  %s\n", a.ID, a.Level, a.Check, cli.TS(a.CreatedAt))
		fmt.Fprintf(w, "    %s\n", a.Message)
		switch {
		case a.Resolved && a.ResolvedAt != nil:
			fmt.Fprintf(w, "    resolved %s (%s)\n", cli.TS(*a.ResolvedAt), a.Resolution)
		case a.Level == record.AlertHalt:
			fmt.Fprintf(w, "    writes are denied until it is resolved: fix the cause, then `vibe alerts resolve %d`\n", a.ID)
		}
	}
	return nil
}

// AlertsResolveOptions are the arguments of `vibe alerts resolve`.
type AlertsResolveOptions struct {
	IO          cli.IO
	Store       func(context.Context) (*store.Store, error)
	ProjectRoot func(dir string, all bool) (string, error)
	Now         func() time.Time

	Project string
	ID      int64
	Note    string
	JSON    bool
}

// NewCmdAlertsResolve builds `vibe alerts resolve ID`.
func NewCmdAlertsResolve(f *cli.Factory, runF func(*AlertsResolveOptions) error) *cobra.Command {
	opts := &AlertsResolveOptions{IO: f.IO, Store: f.Store, ProjectRoot: f.ProjectRoot, Now: f.Now}
	cmd := &cobra.Command{
		Use:   "resolve ID",
		Short: "Mark an alert resolved (once its cause is fixed); a resolved situation is not raised again",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, err := strconv.ParseInt(strings.TrimPrefix(args[0], "#"), 10, 64)
			if err != nil || id <= 0 {
				return &cli.UsageError{Err: fmt.Errorf("alert id %q is not a number: give the id `vibe alerts list` shows, e.g. `vibe alerts resolve 12`", args[0])}
			}
			opts.ID = id
			if runF != nil {
				return runF(opts)
			}
			return runAlertsResolve(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&opts.Note, "note", "", "what was done about it")
	cmd.Flags().StringVar(&opts.Project, "project", "", "project folder (default: the current one)")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print the resolved alert as JSON")
	return cmd
}

func runAlertsResolve(ctx context.Context, o *AlertsResolveOptions) error {
	if ctx == nil {
		ctx = context.Background()
	}
	st, err := o.Store(ctx)
	if err != nil {
		return err
	}
	var a record.Alert
	err = st.Tx(ctx, func(tx *store.Tx) error {
		var err error
		a, err = tx.ResolveAlert(ctx, o.ID, record.ResolvedByUser, o.Note, o.Now())
		return err
	})
	if err != nil {
		if fault.KindOf(err) == fault.Invalid {
			// Already resolved: say so, but it is not a usage mistake.
			return fault.E(fault.Blocked, "", err)
		}
		return err
	}
	if o.JSON {
		return cli.WriteJSON(o.IO.Out, alertToJSON(a))
	}
	where := ""
	// Resolving by id works from anywhere; outside a project every alert
	// is "of project …".
	if root, _ := o.ProjectRoot(o.Project, false); a.ProjectPath != root {
		where = " of project " + a.ProjectPath
	}
	fmt.Fprintf(o.IO.Out, "resolved alert #%d (%s %s)%s: %s\n", a.ID, a.Level, a.Check, where, a.Resolution)
	return nil
}
