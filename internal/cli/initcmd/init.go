package initcmd

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/vibe-science/vibe/internal/cli"
	"github.com/vibe-science/vibe/internal/project"
	"github.com/vibe-science/vibe/internal/scaffold"
)

// InitOptions are the flags of `vibe init`.
type InitOptions struct {
	IO  cli.IO
	Now func() time.Time

	Project string
	Team    bool
	RQ      string
	Domain  string
	JSON    bool
}

// NewCmdInit builds `vibe init`.
func NewCmdInit(f *cli.Factory, runF func(*InitOptions) error) *cobra.Command {
	opts := &InitOptions{IO: f.IO, Now: f.Now}
	cmd := &cobra.Command{
		Use:   "init",
		Short: "Create the project's .vibe-science/ tree from vibe's templates (never overwrites a file)",
		Long: "Create the project's .vibe-science/ tree: STATE.md, PROGRESS.md, CLAIM-LEDGER.md, SERENDIPITY.md,\n" +
			"ASSUMPTION-REGISTER.md, domain-config.json and a research-question folder with its numbered folders\n" +
			"and stubs. Only what is missing is created; running it again changes nothing.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if runF != nil {
				return runF(opts)
			}
			return runInit(opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.Project, "project", "", "project folder (default: the current one)")
	fl.BoolVar(&opts.Team, "team", false, "TEAM mode: write permissions.json with \"mode\": \"team\"")
	fl.StringVar(&opts.RQ, "rq", "", "research question: a short name (becomes RQ-NNN-<name>) or a folder name such as RQ-002-bandgap")
	fl.StringVar(&opts.Domain, "domain", "", "domain config to use (default generic)")
	fl.BoolVar(&opts.JSON, "json", false, "print JSON")
	return cmd
}

type initJSON struct {
	Root     string   `json:"root"`
	RQ       string   `json:"rq"`
	Domain   string   `json:"domain"`
	Mode     string   `json:"mode"`
	Changed  bool     `json:"changed"`
	Created  []string `json:"created"`
	Existing []string `json:"existing"`
	Notes    []string `json:"notes"`
}

func runInit(o *InitOptions) error {
	proj := project.Resolve(o.Project)
	res, err := scaffold.Init(proj, scaffold.Options{Team: o.Team, RQ: o.RQ, Domain: o.Domain, Now: o.Now()})
	if err != nil {
		return err
	}
	mode := "solo"
	if o.Team {
		mode = "team"
	}
	for _, n := range res.Notes {
		fmt.Fprintln(o.IO.ErrOut, "note:", n)
	}
	if o.JSON {
		j := initJSON{Root: res.Root, RQ: res.RQ, Domain: res.Domain, Mode: mode, Changed: res.Changed(),
			Created: res.Created, Existing: res.Existing, Notes: res.Notes}
		for _, p := range []*[]string{&j.Created, &j.Existing, &j.Notes} {
			if *p == nil {
				*p = []string{}
			}
		}
		return cli.WriteJSON(o.IO.Out, j)
	}
	w := o.IO.Out
	switch {
	case !res.Changed():
		fmt.Fprintf(w, "already initialised: nothing changed (%s)\n", res.Root)
	case len(res.Existing) == 0:
		fmt.Fprintf(w, "initialised %s for research (%s, domain %s, %s mode):\n", res.Root, res.RQ, res.Domain, mode)
	default:
		fmt.Fprintf(w, "completed %s: created %d, kept %d that existed (vibe init never overwrites):\n",
			res.Root, len(res.Created), len(res.Existing))
	}
	var rows [][]string
	for _, p := range res.Created {
		rows = append(rows, []string{"created", p})
	}
	for _, p := range res.Existing {
		rows = append(rows, []string{"exists", p})
	}
	for _, r := range rows {
		fmt.Fprintf(w, "  %-7s  %s\n", r[0], r[1])
	}
	if res.Changed() {
		fmt.Fprintf(w, "next: write the research question in %s/%s/RQ.md, then search the literature (/vibe:search).\n",
			project.Dir, res.RQ)
	}
	return nil
}
