package literature

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/vibe-science/vibe/internal/cli"
	"github.com/vibe-science/vibe/internal/cli/clitest"
	"github.com/vibe-science/vibe/internal/gate"
	"github.com/vibe-science/vibe/internal/literature"
	"github.com/vibe-science/vibe/internal/store"
)

func TestNewCmdLiteratureFlags(t *testing.T) {
	sources := []struct {
		argv []string
		want LiteratureSourcesOptions
	}{
		{[]string{}, LiteratureSourcesOptions{}},
		{[]string{"--domain", "particle-physics", "--json", "--project", "/p"},
			LiteratureSourcesOptions{Domain: "particle-physics", JSON: true, Project: "/p"}},
	}
	for _, tt := range sources {
		f, _, _, _ := calTestFactory(t)
		var got *LiteratureSourcesOptions
		cmd := NewCmdLiteratureSources(f, func(o *LiteratureSourcesOptions) error { got = o; return nil })
		cmd.SetArgs(tt.argv)
		cmd.SetOut(&bytes.Buffer{})
		cmd.SetErr(&bytes.Buffer{})
		if err := cmd.Execute(); err != nil {
			t.Fatalf("%q: %v", tt.argv, err)
		}
		got.IO, got.ProjectRoot = cli.IO{}, nil
		if !reflect.DeepEqual(*got, tt.want) {
			t.Errorf("sources %q: got %+v, want %+v", tt.argv, *got, tt.want)
		}
	}
	searches := []struct {
		argv []string
		want LiteratureSearchesOptions
	}{
		{[]string{}, LiteratureSearchesOptions{Limit: 30}},
		{[]string{"--all", "--session", "abc", "--limit", "5", "--json"},
			LiteratureSearchesOptions{All: true, Session: "abc", Limit: 5, JSON: true}},
	}
	for _, tt := range searches {
		f, _, _, _ := calTestFactory(t)
		var got *LiteratureSearchesOptions
		cmd := NewCmdLiteratureSearches(f, func(o *LiteratureSearchesOptions) error { got = o; return nil })
		cmd.SetArgs(tt.argv)
		cmd.SetOut(&bytes.Buffer{})
		cmd.SetErr(&bytes.Buffer{})
		if err := cmd.Execute(); err != nil {
			t.Fatalf("%q: %v", tt.argv, err)
		}
		got.IO, got.Store, got.ProjectRoot = cli.IO{}, nil, nil
		if !reflect.DeepEqual(*got, tt.want) {
			t.Errorf("searches %q: got %+v, want %+v", tt.argv, *got, tt.want)
		}
	}
	f, _, _, _ := calTestFactory(t)
	parent := NewCmdLiterature(f)
	var names []string
	for _, c := range parent.Commands() {
		names = append(names, c.Name())
	}
	if !reflect.DeepEqual(names, []string{"searches", "sources"}) {
		t.Errorf("subcommands %v", names)
	}
}

func TestRunLiteratureSourcesProjectConfig(t *testing.T) {
	ctx := context.Background()
	f, out, _, root := calTestFactory(t)
	cfg := `{"domain": "generic", "literature": {"primary": ["pubmed", "inspire_hep"], "secondary": ["arxiv"],
"datasets": [], "preprints": [], "grey": [], "curated_rag": "zotero"}}`
	if err := os.MkdirAll(filepath.Join(root, ".vibe-science"), 0o755); err != nil {
		t.Fatal(err)
	}
	cfgPath := filepath.Join(root, ".vibe-science", "domain-config.json")
	if err := os.WriteFile(cfgPath, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := runLiteratureSources(ctx, &LiteratureSourcesOptions{IO: f.IO, ProjectRoot: f.ProjectRoot, Project: root}); err != nil {
		t.Fatal(err)
	}
	generic, err := gate.ShippedDomain("generic")
	if err != nil {
		t.Fatal(err)
	}
	want := "Domain generic (" + generic.DisplayName + "); config: " + cfgPath + `

GROUP      ID           NAME            ACCESS  API   MCP SERVER                  URL
primary    pubmed       PubMed/MEDLINE  free    REST  openags/paper-search-mcp    https://pubmed.ncbi.nlm.nih.gov
primary    inspire_hep  INSPIRE-HEP     free    REST  -                           https://inspirehep.net
secondary  arxiv        arXiv           free    REST  blazickjp/arxiv-mcp-server  https://arxiv.org

Curated library (layer 3): zotero
`
	if out.String() != want {
		t.Errorf("got:\n%s\nwant:\n%s", out.String(), want)
	}
}

func TestRunLiteratureSourcesShippedDomain(t *testing.T) {
	ctx := context.Background()
	f, out, _, _ := calTestFactory(t)
	if err := runLiteratureSources(ctx, &LiteratureSourcesOptions{IO: f.IO, ProjectRoot: f.ProjectRoot, Domain: "particle-physics", JSON: true}); err != nil {
		t.Fatal(err)
	}
	var j literatureSourcesJSON
	if err := json.Unmarshal(out.Bytes(), &j); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, g := range j.Groups {
		for _, s := range g.Sources {
			got = append(got, g.Group+":"+s.ID+":"+s.Access)
			if !s.Known {
				t.Errorf("%s is not in the registry", s.ID)
			}
		}
	}
	want := []string{"primary:inspire_hep:free", "primary:arxiv:free", "primary:cern_cds:free", "secondary:nasa_ads:free",
		"secondary:openalex:free", "datasets:pdg:free", "preprints:arxiv:free"}
	if !reflect.DeepEqual(got, want) || j.Config != "shipped" || j.Line != literature.RecommendedLine("particle-physics") {
		t.Errorf("got %v config %q line %q", got, j.Config, j.Line)
	}
	err := runLiteratureSources(ctx, &LiteratureSourcesOptions{IO: f.IO, ProjectRoot: f.ProjectRoot, Domain: "astro"})
	if err == nil || cli.ExitCode(err) != 2 || !strings.Contains(err.Error(), `unknown domain "astro"`) {
		t.Errorf("unknown domain: %v (exit %d)", err, cli.ExitCode(err))
	}
}

func TestRunLiteratureSearches(t *testing.T) {
	ctx := context.Background()
	f, out, _, root := calTestFactory(t)
	st := calSession(t, f, "session-one", root)
	three := 3
	searches := []literature.Search{
		{Query: "pandas dtype", Layer: literature.LayerWebSearch},
		{Query: "conformal off-target review", Sources: []string{"pubmed", "nature.com"}, KeyPapers: []string{"10.1038/nbt.3117"},
			Layer: literature.LayerWebSearch, Results: &three, Scholarly: true},
	}
	if err := st.Tx(ctx, func(tx *store.Tx) error {
		for i, s := range searches {
			if _, _, err := tx.AddLiteratureSearch(ctx, s.Record("session-one", root, "", calT0.Add(time.Duration(i)*time.Minute))); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if err := runLiteratureSearches(ctx, &LiteratureSearchesOptions{IO: f.IO, Store: f.Store, ProjectRoot: f.ProjectRoot, Project: root, Limit: 30}); err != nil {
		t.Fatal(err)
	}
	want := `TIME              SESSION   LAYER      COUNTS  QUERY                        SOURCES             PAPERS
2026-01-14 09:01  session-  WEBSEARCH  yes     conformal off-target review  PubMed, nature.com  10.1038/nbt.3117
2026-01-14 09:00  session-  WEBSEARCH  no      pandas dtype
`
	if out.String() != want {
		t.Errorf("got:\n%q\nwant:\n%q", out.String(), want)
	}
	out.Reset()
	if err := runLiteratureSearches(ctx, &LiteratureSearchesOptions{IO: f.IO, Store: f.Store, ProjectRoot: f.ProjectRoot, Session: "session-o", Limit: 1, JSON: true}); err != nil {
		t.Fatal(err)
	}
	var j []literatureSearchJSON
	if err := json.Unmarshal(out.Bytes(), &j); err != nil {
		t.Fatal(err)
	}
	if len(j) != 1 || !j[0].Counts || j[0].Results == nil || *j[0].Results != 3 || j[0].Session != "session-one" {
		t.Errorf("json %s", out.String())
	}
}

// TestRunLiteratureSearchesEmpty: no search prints no bare header but
// says so on stderr.
func TestRunLiteratureSearchesEmpty(t *testing.T) {
	f, out, errOut, root := calTestFactory(t)
	if err := runLiteratureSearches(context.Background(), &LiteratureSearchesOptions{IO: f.IO, Store: f.Store, ProjectRoot: f.ProjectRoot, Project: root, Limit: 30}); err != nil {
		t.Fatal(err)
	}
	want := "no literature search recorded for " + root + " yet: the hooks record a session's web searches, fetches and literature tools (/vibe:search)\n"
	if out.String() != "" || errOut.String() != want {
		t.Errorf("stdout %q stderr %q, want only %q", out, errOut, want)
	}
}

var calT0 = time.Date(2026, 1, 14, 9, 0, 0, 0, time.UTC)

// calTestFactory shows tables as a 200-column terminal does, and makes a
// project.
func calTestFactory(t *testing.T) (*cli.Factory, *bytes.Buffer, *bytes.Buffer, string) {
	f, out, errOut := clitest.New(t, clitest.Options{Now: calT0, TTY: true, Width: 200})
	return f, out, errOut, clitest.Project(t)
}

func calSession(t *testing.T, f *cli.Factory, id, root string) *store.Store {
	return clitest.Session(t, f, id, root, calT0)
}

// TestLiteratureJSONTimeFields: every time in --json output is an RFC 3339
// string in a field named <something>_at.
func TestLiteratureJSONTimeFields(t *testing.T) {
	clitest.JSONTimeFields(t, literatureSearchJSON{})
}

// TestLiteratureSearchesLimitAtLeastOne: --limit below 1 is a usage error
// (exit 2) before anything runs.
func TestLiteratureSearchesLimitAtLeastOne(t *testing.T) {
	f, _, _, _ := calTestFactory(t)
	ran := false
	err := clitest.Parse(NewCmdLiteratureSearches(f, func(*LiteratureSearchesOptions) error { ran = true; return nil }), "--limit", "-2")
	var ue *cli.UsageError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), "--limit must be at least 1, not -2") || ran {
		t.Errorf("err %v (usage error: %v), ran %v", err, errors.As(err, &ue), ran)
	}
}
