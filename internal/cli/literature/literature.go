package literature

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/vibe-science/vibe/internal/cli"
	"github.com/vibe-science/vibe/internal/gate"
	"github.com/vibe-science/vibe/internal/literature"
	"github.com/vibe-science/vibe/internal/store"
	"github.com/vibe-science/vibe/internal/store/record"
)

// NewCmdLiterature builds `vibe literature sources|searches`.
func NewCmdLiterature(f *cli.Factory) *cobra.Command {
	cmd := &cobra.Command{Use: "literature", Short: "Recommended literature sources and the searches vibe recorded"}
	cmd.AddCommand(NewCmdLiteratureSources(f, nil), NewCmdLiteratureSearches(f, nil))
	return cmd
}

// LiteratureSourcesOptions are the flags of `vibe literature sources`.
type LiteratureSourcesOptions struct {
	IO          cli.IO
	ProjectRoot func(dir string, all bool) (string, error)

	Project string
	Domain  string
	JSON    bool
}

// NewCmdLiteratureSources builds `vibe literature sources`.
func NewCmdLiteratureSources(f *cli.Factory, runF func(*LiteratureSourcesOptions) error) *cobra.Command {
	opts := &LiteratureSourcesOptions{IO: f.IO, ProjectRoot: f.ProjectRoot}
	cmd := &cobra.Command{
		Use:   "sources",
		Short: "List the literature sources a domain recommends, with access and API",
		Long: "Lists the primary, secondary, dataset, preprint and grey-literature sources of the project's domain " +
			"(.vibe-science/domain-config.json, else generic) or of a shipped domain given with --domain, with each " +
			"source's access, API and MCP server from blueprints/literature-registry.json.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if runF != nil {
				return runF(opts)
			}
			return runLiteratureSources(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&opts.Project, "project", "", "project folder (default: the current one)")
	cmd.Flags().StringVar(&opts.Domain, "domain", "", "a shipped domain instead of the project's")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print JSON")
	return cmd
}

type literatureSourceJSON struct {
	ID          string   `json:"id"`
	Known       bool     `json:"known"`
	Name        string   `json:"name"`
	Categories  []string `json:"categories"`
	Access      string   `json:"access"`
	API         bool     `json:"api"`
	APIType     *string  `json:"api_type"`
	Coverage    string   `json:"coverage"`
	URL         string   `json:"url"`
	MCPServer   *string  `json:"mcp_server"`
	KDenseSkill *string  `json:"kdense_skill"`
}

type literatureGroupJSON struct {
	Group   string                 `json:"group"`
	Sources []literatureSourceJSON `json:"sources"`
}

type literatureSourcesJSON struct {
	Domain      string                `json:"domain"`
	DisplayName string                `json:"display_name"`
	Config      string                `json:"config"`
	Groups      []literatureGroupJSON `json:"groups"`
	CuratedRAG  *string               `json:"curated_rag"`
	Line        string                `json:"line"`
}

func runLiteratureSources(_ context.Context, o *LiteratureSourcesOptions) error {
	var d gate.Domain
	var err error
	config, configured := "shipped", true
	if o.Domain != "" {
		if d, err = gate.ShippedDomain(o.Domain); err != nil {
			return &cli.UsageError{Err: err}
		}
	} else {
		pr, err := o.ProjectRoot(o.Project, false)
		if err != nil {
			return err
		}
		root := pr
		if d, err = gate.LoadDomain(root); err != nil {
			return err
		}
		p := filepath.Join(root, filepath.FromSlash(gate.DomainConfigPath))
		if _, statErr := os.Stat(p); statErr == nil {
			config = p
		} else {
			config, configured = "none (generic applies; pick a domain in "+gate.DomainConfigPath+")", false
		}
	}
	reg, err := literature.Load()
	if err != nil {
		return err
	}
	groups := []struct {
		name string
		ids  []string
	}{{"primary", d.Literature.Primary}, {"secondary", d.Literature.Secondary}, {"datasets", d.Literature.Datasets},
		{"preprints", d.Literature.Preprints}, {"grey", d.Literature.Grey}}
	out := literatureSourcesJSON{Domain: d.Name, DisplayName: d.DisplayName, Config: config,
		CuratedRAG: d.Literature.CuratedRAG, Line: literature.Line(d.Name, d.Literature.Primary, configured)}
	for _, g := range groups {
		gj := literatureGroupJSON{Group: g.name, Sources: []literatureSourceJSON{}}
		for _, id := range g.ids {
			db, ok := reg.Database(id)
			s := literatureSourceJSON{ID: id, Known: ok, Name: id, Categories: []string{}}
			if ok {
				s = literatureSourceJSON{ID: id, Known: true, Name: db.Name, Categories: db.Categories, Access: db.Access,
					API: db.API, APIType: db.APIType, Coverage: db.Coverage, URL: db.URL, MCPServer: db.MCPServer,
					KDenseSkill: db.KDenseSkill}
			}
			gj.Sources = append(gj.Sources, s)
		}
		out.Groups = append(out.Groups, gj)
	}
	if o.JSON {
		return cli.WriteJSON(o.IO.Out, out)
	}
	fmt.Fprintf(o.IO.Out, "Domain %s (%s); config: %s\n\n", out.Domain, out.DisplayName, out.Config)
	var rows [][]string
	for _, g := range out.Groups {
		for _, s := range g.Sources {
			api, mcp := "-", "-"
			if s.API && s.APIType != nil {
				api = *s.APIType
			}
			if s.MCPServer != nil {
				mcp = *s.MCPServer
			}
			access, url := s.Access, s.URL
			if !s.Known {
				access, url = "?", "(not in the registry)"
			}
			rows = append(rows, []string{g.Group, s.ID, s.Name, access, api, mcp, url})
		}
	}
	cli.Table(o.IO, "GROUP\tID\tNAME\tACCESS\tAPI\tMCP SERVER\tURL", rows)
	if out.CuratedRAG != nil {
		fmt.Fprintf(o.IO.Out, "\nCurated library (layer 3): %s\n", *out.CuratedRAG)
	}
	return nil
}

// LiteratureSearchesOptions are the flags of `vibe literature searches`.
type LiteratureSearchesOptions struct {
	IO          cli.IO
	Store       func(context.Context) (*store.Store, error)
	ProjectRoot func(dir string, all bool) (string, error)

	Project string
	All     bool
	Session string
	Limit   int
	JSON    bool
}

// NewCmdLiteratureSearches builds `vibe literature searches`.
func NewCmdLiteratureSearches(f *cli.Factory, runF func(*LiteratureSearchesOptions) error) *cobra.Command {
	opts := &LiteratureSearchesOptions{IO: f.IO, Store: f.Store, ProjectRoot: f.ProjectRoot}
	cmd := &cobra.Command{
		Use:   "searches",
		Short: "List the literature searches vibe detected, newest first",
		Long: "Lists the literature searches vibe recorded from tool calls (web searches and fetches, literature MCP " +
			"tools and skills, paper ids in files read). COUNTS says whether a search satisfies gate L-1: a web " +
			"search with nothing scholarly about it is recorded but does not count.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := cli.CheckLimit(opts.Limit); err != nil {
				return err
			}
			if runF != nil {
				return runF(opts)
			}
			return runLiteratureSearches(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&opts.Project, "project", "", "project folder (default: the current one)")
	cmd.Flags().BoolVar(&opts.All, "all", false, "every project")
	cmd.Flags().StringVar(&opts.Session, "session", "", "only this session (id or prefix)")
	cmd.Flags().IntVar(&opts.Limit, "limit", 30, "how many")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print JSON")
	return cmd
}

type literatureSearchJSON struct {
	ID         int64    `json:"id"`
	Session    string   `json:"session"`
	SearchedAt string   `json:"searched_at"`
	Layer      string   `json:"layer"`
	Counts     bool     `json:"counts_for_l1"`
	Query      string   `json:"query"`
	Sources    []string `json:"sources"`
	KeyPapers  []string `json:"key_papers"`
	Results    *int     `json:"results"`
}

func runLiteratureSearches(ctx context.Context, o *LiteratureSearchesOptions) error {
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
	proj := pr
	var session string
	if o.Session != "" {
		if session, err = st.ResolveSessionID(ctx, o.Session); err != nil {
			return err
		}
	}
	ls, err := st.LiteratureSearches(ctx, proj, session, o.Limit)
	if err != nil {
		return err
	}
	if o.JSON {
		out := make([]literatureSearchJSON, 0, len(ls))
		for _, l := range ls {
			out = append(out, literatureSearchJSON{l.ID, l.SessionID, l.At.Format("2006-01-02T15:04:05Z"), l.Layer,
				l.GateContext != record.LiteratureUncounted, l.Query, l.Sources, l.KeyPapers, l.ResultsCount})
		}
		return cli.WriteJSON(o.IO.Out, out)
	}
	if len(ls) == 0 {
		where := "this project"
		if proj != "" {
			where = proj
		} else if o.All {
			where = "any project"
		}
		if o.Session != "" {
			fmt.Fprintf(o.IO.ErrOut, "no literature search recorded in session %s\n", o.Session)
		} else {
			fmt.Fprintf(o.IO.ErrOut, "no literature search recorded for %s yet: the hooks record a session's web searches, fetches and literature tools (/vibe:search)\n", where)
		}
		return nil
	}
	var rows [][]string
	for _, l := range ls {
		counts := "yes"
		if l.GateContext == record.LiteratureUncounted {
			counts = "no"
		}
		rows = append(rows, []string{cli.TS(l.At), cli.ShortID(l.SessionID), l.Layer, counts, l.Query,
			strings.Join(literature.Labels(l.Sources), ", "), strings.Join(l.KeyPapers, " ")})
	}
	cli.Table(o.IO, "TIME\tSESSION\tLAYER\tCOUNTS\tQUERY\tSOURCES\tPAPERS", rows)
	return nil
}
