package seeds

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/vibe-science/vibe/internal/cli"
	"github.com/vibe-science/vibe/internal/seeds"
	"github.com/vibe-science/vibe/internal/store"
	"github.com/vibe-science/vibe/internal/store/record"
)

// seedStatuses are the statuses `vibe seeds --status` accepts.
var seedStatuses = []string{seeds.StatusPendingTriage, seeds.StatusQueued, seeds.StatusTesting, seeds.StatusKilled,
	seeds.StatusPromotedToClaim, record.SeedRemoved}

// SeedsOptions are the flags of `vibe seeds`.
type SeedsOptions struct {
	IO          cli.IO
	Store       func(context.Context) (*store.Store, error)
	ProjectRoot func(dir string, all bool) (string, error)

	Project string
	Status  string
	Limit   int
	JSON    bool
}

// NewCmdSeeds builds `vibe seeds`.
func NewCmdSeeds(f *cli.Factory, runF func(*SeedsOptions) error) *cobra.Command {
	opts := &SeedsOptions{IO: f.IO, Store: f.Store, ProjectRoot: f.ProjectRoot}
	cmd := &cobra.Command{
		Use:   "seeds",
		Short: "List the project's serendipity seeds as recorded from SERENDIPITY.md",
		Long: "Lists the seeds vibe recorded from .vibe-science/SERENDIPITY.md, with how many sessions each has been " +
			"pending triage and whether LAW 5 escalated it (pending for more than 5 sessions). Seeds removed from " +
			"the file are listed only with --status REMOVED.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := cli.CheckLimit(opts.Limit); err != nil {
				return err
			}
			if opts.Status != "" {
				s := strings.ToUpper(strings.ReplaceAll(opts.Status, "-", "_"))
				if !seedStatusKnown(s) {
					return &cli.UsageError{Err: fmt.Errorf("--status must be one of %s, not %q", strings.Join(seedStatuses, ", "), opts.Status)}
				}
				opts.Status = s
			}
			if runF != nil {
				return runF(opts)
			}
			return runSeeds(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&opts.Project, "project", "", "project folder (default: the current one)")
	cmd.Flags().StringVar(&opts.Status, "status", "", "only seeds with this status")
	cmd.Flags().IntVar(&opts.Limit, "limit", 100, "how many")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print JSON")
	return cmd
}

func seedStatusKnown(s string) bool {
	for _, x := range seedStatuses {
		if x == s {
			return true
		}
	}
	return false
}

type seedJSON struct {
	ID                 string   `json:"seed_id"`
	Title              string   `json:"title"`
	Status             string   `json:"status"`
	Source             string   `json:"source"`
	Score              *float64 `json:"score"`
	CausalQuestion     string   `json:"causal_question"`
	DiscriminatingTest string   `json:"discriminating_test"`
	SalvagedFrom       string   `json:"salvaged_from,omitempty"`
	SessionsPending    int      `json:"sessions_pending"`
	Escalated          bool     `json:"escalated"`
	CreatedSession     string   `json:"created_session"`
	UpdatedAt          string   `json:"updated_at"`
}

func runSeeds(ctx context.Context, o *SeedsOptions) error {
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
	root := pr
	rs, err := st.ListSeeds(ctx, root, o.Status, o.Limit)
	if err != nil {
		return err
	}
	if o.JSON {
		out := make([]seedJSON, 0, len(rs))
		for _, r := range rs {
			out = append(out, seedJSON{r.SeedID, r.Title, r.Status, r.Source, r.Score, r.CausalQuestion,
				r.DiscriminatingTest, r.SalvagedFrom, r.SessionsPending, r.Escalated, r.CreatedSession,
				r.UpdatedAt.Format("2006-01-02T15:04:05Z")})
		}
		return cli.WriteJSON(o.IO.Out, out)
	}
	if len(rs) == 0 {
		fmt.Fprintf(o.IO.ErrOut, "No seeds recorded for %s. Seeds are read from .vibe-science/SERENDIPITY.md each time it is written.\n", root)
		return nil
	}
	var rows [][]string
	for _, r := range rs {
		score := "-"
		if r.Score != nil {
			score = strconv.FormatFloat(*r.Score, 'f', -1, 64)
		}
		pending, esc := "-", ""
		if r.Status == seeds.StatusPendingTriage {
			pending = strconv.Itoa(r.SessionsPending)
		}
		if r.Escalated {
			esc = "LAW 5"
		}
		q := r.CausalQuestion
		if q == "" {
			q = r.Title
		}
		rows = append(rows, []string{r.SeedID, r.Status, score, pending, esc, q})
	}
	cli.Table(o.IO, "ID\tSTATUS\tSCORE\tSESSIONS PENDING\tESCALATED\tQUESTION", rows)
	return nil
}
