package citations

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"

	"github.com/vibe-science/vibe/internal/cli"
	"github.com/vibe-science/vibe/internal/cli/clitest"
	"github.com/vibe-science/vibe/internal/store"
	"github.com/vibe-science/vibe/internal/store/record"
)

var t0 = time.Date(2026, 11, 28, 9, 0, 0, 0, time.UTC)

func TestNewCmdCitationsFlags(t *testing.T) {
	f, _, _ := clitest.New(t, clitest.Options{})
	clitest.Flags(t, func(runF func(*CitationsOptions) error) *cobra.Command { return NewCmdCitations(f, runF) },
		func(o *CitationsOptions) {
			o.IO, o.Store, o.FindProject, o.Now, o.Getenv = cli.IO{}, nil, nil, nil, nil
		},
		[]clitest.FlagCase[CitationsOptions]{
			{Argv: nil, Want: CitationsOptions{Timeout: 10 * time.Second}},
			{Argv: []string{"--json", "--online", "--timeout", "3s", "--refresh", "--project", "/p"},
				Want: CitationsOptions{JSON: true, Online: true, Timeout: 3 * time.Second, Refresh: true, Project: "/p"}},
			{Argv: []string{"--timeout", "0s"}, Err: "--timeout must be positive, not 0s"},
			{Argv: []string{"extra"}, Err: `unknown command "extra"`},
		})
	clitest.Flags(t, func(runF func(*CitationsAddOptions) error) *cobra.Command { return NewCmdCitationsAdd(f, runF) },
		func(o *CitationsAddOptions) { o.IO, o.Store, o.FindProject, o.Now = cli.IO{}, nil, nil, nil },
		[]clitest.FlagCase[CitationsAddOptions]{
			{Argv: []string{"doi:10.1038/nbt.3117", "--title", "GUIDE-seq", "--note", "papers/tsai.pdf", "--project", "/p"},
				Want: CitationsAddOptions{ID: "doi:10.1038/nbt.3117", Title: "GUIDE-seq", Note: "papers/tsai.pdf", Project: "/p"}},
			{Argv: nil, Err: "accepts 1 arg(s), received 0"},
		})
	clitest.Wired(t, clitest.Built(t, func(runF func(*CitationsOptions) error) *cobra.Command { return NewCmdCitations(f, runF) }))
	clitest.Wired(t, clitest.Built(t, func(runF func(*CitationsAddOptions) error) *cobra.Command { return NewCmdCitationsAdd(f, runF) }, "PMC4320685"))
	clitest.JSONTimeFields(t, CitationJSON{}, SourceJSON{}, OnlineJSON{})
}

const findingsMD = `# Findings: RQ-001

## F1: GUIDE-seq profiles off-target cleavage

Sites were profiled as in GUIDE-seq enables genome-wide profiling of off-target cleavage (doi:10.1038/nbt.3117).
Guides follow Attention Is All You Need, arXiv:1706.03762, and the invented doi:10.9999/fabricated.2021.001.
Also PMID 25513782 and ISBN 978-0-262-03384-9.
`

// citingProject makes a project whose findings cite five ids, and a store in
// which one search retrieved the GUIDE-seq DOI.
func citingProject(t *testing.T, f *cli.Factory) string {
	t.Helper()
	root := clitest.Project(t)
	p := filepath.Join(root, ".vibe-science", "RQ-001", "04-results", "FINDINGS.md")
	os.MkdirAll(filepath.Dir(p), 0o755)
	if err := os.WriteFile(p, []byte(findingsMD), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	st, err := f.Store(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Tx(ctx, func(tx *store.Tx) error {
		if err := tx.UpsertSession(ctx, record.SessionSeen{ID: "5c1e7a00-0000-4000-8000-00000000beef", ProjectPath: root, At: t0}); err != nil {
			return err
		}
		_, _, err := tx.AddLiteratureSearch(ctx, record.LiteratureSearch{SessionID: "5c1e7a00-0000-4000-8000-00000000beef", ProjectPath: root,
			Query: "GUIDE-seq off-target", Layer: "WEBSEARCH", At: t0, Retrieved: []string{"10.1038/nbt.3117"}})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	return root
}

func TestRunCitations(t *testing.T) {
	f, out, errOut := clitest.New(t, clitest.Options{Now: t0})
	root := citingProject(t, f)
	o := clitest.Built(t, func(runF func(*CitationsOptions) error) *cobra.Command { return NewCmdCitations(f, runF) }, "--project", root)
	if err := runCitations(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	rq := ".vibe-science/RQ-001/04-results/FINDINGS.md"
	want := "STATUS\tID\tCITED IN\tRETRIEVED BY\n" +
		"invalid\tdoi:10.9999/fabricated.2021.001\t" + rq + ":6\tcannot exist: its prefix 10.9999 is a prefix no registration agency has assigned, the usual placeholder of invented references\n" +
		"invalid\tISBN 9780262033849\t" + rq + ":7\tcannot exist: its ISBN-13 check digit is wrong\n" +
		"unretrieved\tPMID 25513782\t" + rq + ":7\t-\n" +
		"unretrieved\tarXiv:1706.03762\t" + rq + ":6\t-\n" +
		"retrieved\tdoi:10.1038/nbt.3117\t" + rq + ":5\tsearch 1 (WEBSEARCH \"GUIDE-seq off-target\", session 5c1e7a00)\n"
	if out.String() != want {
		t.Errorf("stdout:\n%s\nwant\n%s", out, want)
	}
	if got := errOut.String(); got != "5 cited: 1 retrieved, 2 unretrieved, 2 invalid\n" {
		t.Errorf("stderr %q", got)
	}

	// The researcher holds the PubMed paper.
	out.Reset()
	a := clitest.Built(t, func(runF func(*CitationsAddOptions) error) *cobra.Command { return NewCmdCitationsAdd(f, runF) },
		"pmid:25513782", "--title", "GUIDE-seq", "--project", root)
	if err := runCitationsAdd(context.Background(), a); err != nil {
		t.Fatal(err)
	}
	if got := out.String(); got != "added PMID 25513782: its citations in "+root+" now count as retrieved\n" {
		t.Errorf("add: %q", got)
	}
	out.Reset()
	o.JSON = true
	if err := runCitations(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{`"id": "PMID:25513782"`, `"status": "retrieved"`, `"layer": "ADDED"`, `"title": "GUIDE-seq"`,
		`"file": ".vibe-science/RQ-001/04-results/FINDINGS.md"`, `"line": 7`, `"kind": "findings"`, `"search_id": 1`} {
		if !strings.Contains(out.String(), s) {
			t.Errorf("--json lacks %s:\n%s", s, out)
		}
	}
	if strings.Contains(out.String(), `"online"`) {
		t.Errorf("--json without --online has online answers:\n%s", out)
	}
}

// TestRunCitationsAddNotesWhatVibeTookForInvented: an id only vibe's
// knowledge of the registries rules out is added, and the researcher is
// told what they overruled.
func TestRunCitationsAddNotesWhatVibeTookForInvented(t *testing.T) {
	f, out, errOut := clitest.New(t, clitest.Options{Now: t0})
	root := clitest.Project(t)
	if err := runCitationsAdd(context.Background(), &CitationsAddOptions{IO: f.IO, Store: f.Store, FindProject: f.FindProject, Now: f.Now,
		Project: root, ID: "doi:10.9999/fabricated.2021.001"}); err != nil {
		t.Fatal(err)
	}
	if got, want := out.String(), "added doi:10.9999/fabricated.2021.001: its citations in "+root+" now count as retrieved\n"; got != want {
		t.Errorf("stdout %q, want %q", got, want)
	}
	want := "note: vibe took doi:10.9999/fabricated.2021.001 for one that cannot exist (its prefix 10.9999 is a prefix no registration agency has assigned, " +
		"the usual placeholder of invented references); you vouch for it now, so check the id against the paper you hold (`vibe gate check` in CI still warns on it)\n"
	if got := errOut.String(); got != want {
		t.Errorf("stderr %q\nwant %q", got, want)
	}
}

func TestRunCitationsAddRefusesWhatCannotExist(t *testing.T) {
	f, _, _ := clitest.New(t, clitest.Options{Now: t0})
	root := clitest.Project(t)
	for _, tt := range []struct{ id, err string }{
		{"ISBN 978-0-262-03384-9", "ISBN 9780262033849 cannot exist: its ISBN-13 check digit is wrong; correct it from the paper itself"},
		{"25513782", `"25513782" is not a DOI, PMID, PMCID, arXiv id or ISBN`},
	} {
		err := runCitationsAdd(context.Background(), &CitationsAddOptions{IO: f.IO, Store: f.Store, FindProject: f.FindProject, Now: f.Now,
			Project: root, ID: tt.id})
		if err == nil || !strings.HasPrefix(err.Error(), tt.err) || cli.ExitCode(err) != 2 {
			t.Errorf("add %s: %v (exit %d), want %q", tt.id, err, cli.ExitCode(err), tt.err)
		}
	}
}

// TestRunCitationsOnline asks a loopback registry, then the cache.
func TestRunCitationsOnline(t *testing.T) {
	var asked []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked = append(asked, r.URL.RequestURI())
		switch {
		case r.URL.Path == "/works/10.1038/nbt.3117":
			fmt.Fprint(w, `{"message":{"title":["GUIDE-seq enables genome-wide profiling of off-target cleavage by CRISPR-Cas nucleases"]}}`)
		case r.URL.Path == "/query":
			fmt.Fprint(w, `<feed xmlns="http://www.w3.org/2005/Atom"><entry><id>http://arxiv.org/abs/1706.03762v7</id><title>Deep Residual Learning for Image Recognition</title></entry></feed>`)
		case r.URL.Path == "/esummary.fcgi":
			http.Error(w, "busy", http.StatusServiceUnavailable)
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	env := map[string]string{"VIBE_CROSSREF_URL": srv.URL, "VIBE_PUBMED_URL": srv.URL, "VIBE_ARXIV_URL": srv.URL, "VIBE_OPENLIBRARY_URL": srv.URL}
	f, out, _ := clitest.New(t, clitest.Options{Now: t0, Env: env})
	root := citingProject(t, f)
	o := clitest.Built(t, func(runF func(*CitationsOptions) error) *cobra.Command { return NewCmdCitations(f, runF) },
		"--project", root, "--online", "--timeout", "2s")
	// PubMed does not answer: the table is printed, and the run exits 1
	// saying what was not checked.
	host := strings.TrimPrefix(srv.URL, "http://")
	wantErr := "1 of 4 ids could not be checked online (" + host + " answered 503 Service Unavailable); their offline status stands; " +
		"try again when the registries answer (a longer --timeout helps a slow one)"
	if err := runCitations(context.Background(), o); err == nil || err.Error() != wantErr || cli.ExitCode(err) != 1 {
		t.Fatalf("runCitations: %v (exit %d), want %q", err, cli.ExitCode(err), wantErr)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	var online []string
	for _, l := range lines {
		cells := strings.Split(l, "\t")
		online = append(online, cells[1]+" | "+cells[len(cells)-1])
	}
	want := []string{
		"ID | ONLINE",
		"doi:10.9999/fabricated.2021.001 | not found (crossref)",
		"ISBN 9780262033849 | -",
		"PMID 25513782 | not checked: " + strings.TrimPrefix(srv.URL, "http://") + " answered 503 Service Unavailable",
		"arXiv:1706.03762 | found, another title: Deep Residual Learning for Image Recognition",
		"doi:10.1038/nbt.3117 | found: GUIDE-seq enables genome-wide profiling of off-target cleavage by CRISPR-Cas nucleases",
	}
	if strings.Join(online, "\n") != strings.Join(want, "\n") {
		t.Errorf("online column:\n%s\nwant\n%s", strings.Join(online, "\n"), strings.Join(want, "\n"))
	}
	if len(asked) != 4 {
		t.Errorf("asked %d times, want 4 (the ISBN that cannot exist is not asked): %q", len(asked), asked)
	}
	// Again: the found and the not-found answers come from the cache; the
	// registry that failed is asked again.
	asked = nil
	out.Reset()
	o.JSON = true
	if err := runCitations(context.Background(), o); err == nil || err.Error() != wantErr {
		t.Fatalf("runCitations --json: %v, want %q", err, wantErr)
	}
	if len(asked) != 1 || !strings.HasPrefix(asked[0], "/esummary.fcgi") {
		t.Errorf("second run asked %q, want only PubMed again", asked)
	}
	for _, s := range []string{`"found": true`, `"cached": true`, `"title_match": true`, `"title_match": false`, `"title_match": null`} {
		if !strings.Contains(out.String(), s) {
			t.Errorf("--json --online lacks %s:\n%s", s, out)
		}
	}
}
