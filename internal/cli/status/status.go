package status

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/vibe-science/vibe/internal/cli"
	"github.com/vibe-science/vibe/internal/cli/setup"
	"github.com/vibe-science/vibe/internal/config"
	"github.com/vibe-science/vibe/internal/embed"
	"github.com/vibe-science/vibe/internal/project"
	"github.com/vibe-science/vibe/internal/resume"
	"github.com/vibe-science/vibe/internal/store"
	"github.com/vibe-science/vibe/internal/store/record"
	"github.com/vibe-science/vibe/internal/worker/client"
)

// StatusOptions are the flags of `vibe status`.
type StatusOptions struct {
	IO          cli.IO
	Paths       func() config.Paths
	Store       func(context.Context) (*store.Store, error)
	ProjectRoot func(dir string, all bool) (string, error)
	// Getenv reads VIBE_EMBED_FALLBACK and VIBE_MODEL_PULL, which decide
	// what a worker started now does without its model.
	Getenv func(string) string
	Root   string

	// Project scopes the counts (default: the current folder's project);
	// All counts every project.
	Project string
	All     bool
	JSON    bool
}

// NewCmdStatus builds `vibe status`.
func NewCmdStatus(f *cli.Factory, runF func(*StatusOptions) error) *cobra.Command {
	opts := &StatusOptions{IO: f.IO, Paths: f.Paths, Store: f.Store, ProjectRoot: f.ProjectRoot, Getenv: f.Getenv, Root: f.Root}
	cmd := &cobra.Command{
		Use:   "status",
		Short: "Show paths, schema version, row counts, embedding queue, worker, model and plugin registration",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if runF != nil {
				return runF(opts)
			}
			return runStatus(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&opts.Project, "project", "", "count this project's records (default: the current one)")
	cmd.Flags().BoolVar(&opts.All, "all", false, "count the records of every project")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print JSON")
	return cmd
}

// Status is what `vibe status` reports.
type Status struct {
	Home     string `json:"home"`
	Database string `json:"database"`
	// Scope is the project the counts are of, or "all projects".
	Scope      string       `json:"scope"`
	Schema     int          `json:"schema_version"`
	Counts     record.Stats `json:"counts"`
	Worker     string       `json:"worker"`
	Model      string       `json:"model"`
	PluginRoot string       `json:"plugin_root"`
	Binaries   string       `json:"binaries"`
	// Gates are the research files of the project in scope whose gates
	// failed or warned at their last change (none for all projects).
	Gates []ArtifactGate `json:"gates"`
	// Gated counts the research files the hooks have gated in scope.
	Gated int `json:"gated"`
	// TreeState says where the project's .vibe-science/TREE-STATE.json
	// stands (none for all projects).
	TreeState string `json:"tree_state,omitempty"`
}

func runStatus(ctx context.Context, o *StatusOptions) error {
	if ctx == nil {
		ctx = context.Background()
	}
	p := o.Paths()
	s := Status{Home: p.Home, Database: p.DB, PluginRoot: o.Root}
	st, err := o.Store(ctx)
	if err != nil {
		if strings.Contains(err.Error(), "vibe doctor") {
			return err // it already names the fix
		}
		return fmt.Errorf("%w (run `vibe doctor`)", err)
	}
	if s.Schema, err = st.Version(ctx); err != nil {
		return err
	}
	// The paths, worker and model are the machine's; the counts are the
	// project's unless --all (or no project here, which is said).
	scope, noProject := "", false
	if !o.All {
		root, err := o.ProjectRoot(o.Project, false)
		switch {
		case err == nil:
			scope = root
		case o.Project != "":
			return err
		default:
			noProject = true
		}
	}
	if s.Counts, err = st.ProjectStats(ctx, scope); err != nil {
		return err
	}
	s.Scope = scope
	if scope == "" {
		s.Scope = "all projects"
	} else {
		if s.Gates, s.Gated, err = failingArtifacts(ctx, st, scope); err != nil {
			return err
		}
		s.TreeState = resume.TreeStateSays(project.Project{Root: scope})
	}
	s.Worker = workerState(ctx, p)
	model, err := cli.CurrentModel(ctx, st, p)
	if err != nil {
		return err
	}
	s.Model = ModelState(p, model, o.Getenv)
	if m := setup.MissingBinaries(o.Root); len(m) > 0 {
		s.Binaries = fmt.Sprintf("%d missing (run `make build`)", len(m))
	} else {
		s.Binaries = "all built"
	}
	if o.JSON {
		return cli.WriteJSON(o.IO.Out, s)
	}
	w := o.IO.Out
	fmt.Fprintf(w, "home       %s\n", s.Home)
	fmt.Fprintf(w, "database   %s (schema %d)\n", s.Database, s.Schema)
	fmt.Fprintf(w, "plugin     %s (binaries: %s)\n", s.PluginRoot, s.Binaries)
	fmt.Fprintf(w, "worker     %s\n", s.Worker)
	fmt.Fprintf(w, "model      %s\n", s.Model)
	switch {
	case noProject:
		fmt.Fprintf(w, "project    none here: the counts cover every project (--project DIR for one)\n")
	case scope == "":
		fmt.Fprintf(w, "project    all projects (--all)\n")
	default:
		fmt.Fprintf(w, "project    %s (--all counts every project)\n", scope)
	}
	c := s.Counts
	fmt.Fprintf(w, "sessions %d · spine %d · claim events %d · gate checks %d · literature %d · open alerts %d · decisions %d (`vibe decisions`)\n",
		c.Sessions, c.Spine, c.ClaimEvents, c.GateChecks, c.Literature, c.OpenAlerts, c.Decisions)
	fmt.Fprintf(w, "memories %d · vectors %d · embed queue: %d pending, %d failed, %d done\n",
		c.Memories, c.Vectors, c.QueuePending, c.QueueFailed, c.QueueDone)
	if c.QueueFailed > 0 {
		fmt.Fprintf(w, "note: %d memories failed to embed repeatedly; see `vibe worker logs`\n", c.QueueFailed)
	}
	if scope != "" {
		writeFailingArtifacts(w, scope, s.Gates, s.Gated)
		fmt.Fprintf(w, "tree state %s/%s %s\n", project.Dir, resume.TreeStateFile, s.TreeState)
	}
	return nil
}

// workerState asks the worker itself (its socket), so a stale pid file can
// never make a dead worker look alive.
func workerState(ctx context.Context, p config.Paths) string {
	h, up := cli.AskWorker(ctx, p)
	if !up {
		if held, _ := client.LockHeld(p); held {
			return "running but not answering on " + p.Socket + " (see `vibe worker logs`)"
		}
		return "not running (start it with `vibe worker start`)"
	}
	if bin, err := client.Binary(); err == nil {
		if why := client.Stale(p, bin, h); why != "" {
			return why + ": hooks do not use it and run slower until it is replaced (`vibe setup` does it, as does the next session start, or `vibe worker stop` then `vibe worker start`)"
		}
	}
	return workerLine(h)
}

// workerLine is a running worker's state. The state a worker reports is
// its model's, so it is said as the model's ("model potion-base-8M: not
// installed: ..."), not as the worker's.
func workerLine(h client.Health) string {
	return fmt.Sprintf("running (pid %d; model %s: %s; backlog %d, failed %d)", h.PID, h.Model, h.State, h.Backlog, h.Failed)
}

// ModelState says whether model, the current embedding model, is
// installed, and if not what a worker started with this environment
// (getenv) does without it (cli.MissingModel).
func ModelState(p config.Paths, model string, getenv func(string) string) string {
	dir := embed.Dir(p.Models, model)
	if embed.Ready(dir) == nil {
		return model + ": installed in " + dir
	}
	state, _ := cli.MissingModel(p, model, getenv)
	return model + ": " + state
}
