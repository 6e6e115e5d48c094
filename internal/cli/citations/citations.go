package citations

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/vibe-science/vibe/internal/buildinfo"
	"github.com/vibe-science/vibe/internal/citation"
	"github.com/vibe-science/vibe/internal/citation/online"
	"github.com/vibe-science/vibe/internal/cli"
	"github.com/vibe-science/vibe/internal/gate"
	"github.com/vibe-science/vibe/internal/gatecheck"
	"github.com/vibe-science/vibe/internal/project"
	"github.com/vibe-science/vibe/internal/store"
	"github.com/vibe-science/vibe/internal/store/record"
)

// notFoundTTL is how long an online "not found" is believed: a paper
// registered since is found on the next check after it.
const notFoundTTL = 7 * 24 * time.Hour

// CitationsOptions are the flags of `vibe citations`.
type CitationsOptions struct {
	IO          cli.IO
	Store       func(context.Context) (*store.Store, error)
	FindProject func(dir string) (project.Project, error)
	Now         func() time.Time
	Getenv      func(string) string

	Project string
	JSON    bool
	// Online asks the registries whether each id exists and its title.
	Online bool
	// Timeout bounds each online request.
	Timeout time.Duration
	// Refresh asks again even when the answer is cached.
	Refresh bool
}

// NewCmdCitations builds `vibe citations` and `vibe citations add`.
func NewCmdCitations(f *cli.Factory, runF func(*CitationsOptions) error) *cobra.Command {
	opts := &CitationsOptions{IO: f.IO, Store: f.Store, FindProject: f.FindProject, Now: f.Now, Getenv: f.Getenv}
	cmd := &cobra.Command{
		Use:   "citations",
		Short: "List every paper the project cites, where, and the search that retrieved it",
		Long: `Lists every DOI, PMID, PMCID, arXiv id and ISBN that the project's findings, claim ledger,
reviews and research directions cite, with each place it is cited (file:line), its status and
what retrieved it:

  retrieved    a recorded literature search, fetch or literature tool returned it, or the
               researcher added it (vibe citations add)
  unretrieved  nothing vibe recorded retrieved it: it may exist, but vibe cannot tell it
               from an invented one
  invalid      it cannot exist (a check digit, a test DOI prefix such as 10.9999, a PubMed
               id above those assigned, an impossible arXiv month)

The hooks warn when a file is written citing an id that is not retrieved, and refuse to
promote a claim whose ledger entry cites one. --online asks Crossref, PubMed, arXiv and Open
Library whether each id exists and whether its title matches the citing text (answers are
cached in the database; VIBE_CROSSREF_URL, VIBE_PUBMED_URL, VIBE_ARXIV_URL and
VIBE_OPENLIBRARY_URL replace the registries' addresses). A registry that does not answer
within --timeout is not asked again in the run; when any id could not be checked the
command exits 1.

  vibe citations
  vibe citations --json
  vibe citations --online --timeout 5s
  vibe citations add 10.1038/nbt.3117 --title "GUIDE-seq enables genome-wide profiling"`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if opts.Timeout <= 0 {
				return &cli.UsageError{Err: fmt.Errorf("--timeout must be positive, not %s", opts.Timeout)}
			}
			if runF != nil {
				return runF(opts)
			}
			return runCitations(cmd.Context(), opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.Project, "project", "", "project folder (default: the current one)")
	fl.BoolVar(&opts.JSON, "json", false, "print JSON")
	fl.BoolVar(&opts.Online, "online", false, "confirm each id and its title with Crossref, PubMed, arXiv and Open Library")
	fl.Var(cli.NewDurationValue(&opts.Timeout, online.DefaultTimeout), "timeout", "how long each online request may take")
	fl.BoolVar(&opts.Refresh, "refresh", false, "with --online, ask again even when the answer is cached")
	cmd.AddCommand(NewCmdCitationsAdd(f, nil))
	return cmd
}

// CitationJSON is one cited id in --json output.
type CitationJSON struct {
	ID      string           `json:"id"`
	Display string           `json:"display"`
	Kind    string           `json:"kind"`
	Status  string           `json:"status"`
	Problem string           `json:"problem,omitempty"`
	Cited   []citation.Where `json:"cited"`
	From    []SourceJSON     `json:"from"`
	Online  *OnlineJSON      `json:"online,omitempty"`
}

// SourceJSON is one record that retrieved an id.
type SourceJSON struct {
	SearchID int64  `json:"search_id,omitempty"`
	Session  string `json:"session,omitempty"`
	Layer    string `json:"layer"`
	Query    string `json:"query,omitempty"`
	Title    string `json:"title,omitempty"`
	Note     string `json:"note,omitempty"`
	At       string `json:"retrieved_at"`
}

// OnlineJSON is what the registry answered.
type OnlineJSON struct {
	Found  bool   `json:"found"`
	Title  string `json:"title,omitempty"`
	Source string `json:"source,omitempty"`
	// TitleMatch is null when the citing text names too little to
	// compare (a bare id).
	TitleMatch *bool  `json:"title_match"`
	Cached     bool   `json:"cached"`
	CheckedAt  string `json:"checked_at,omitempty"`
	Error      string `json:"error,omitempty"`
}

func runCitations(ctx context.Context, o *CitationsOptions) error {
	if ctx == nil {
		ctx = context.Background()
	}
	proj, err := o.FindProject(o.Project)
	if err != nil {
		return err
	}
	st, err := o.Store(ctx)
	if err != nil {
		return err
	}
	now := o.Now()
	files, entries, err := Audit(ctx, st, proj.Root, now)
	if err != nil {
		return err
	}
	out := make([]CitationJSON, 0, len(entries))
	for _, e := range entries {
		c := CitationJSON{ID: e.ID, Display: citation.Display(e.ID), Kind: e.Kind, Status: e.Status, Problem: e.Problem.Reason,
			Cited: e.Cited, From: []SourceJSON{}}
		for _, s := range e.From {
			c.From = append(c.From, SourceJSON{SearchID: s.SearchID, Session: s.SessionID, Layer: s.Layer, Query: s.Query,
				Title: s.Title, Note: s.Note, At: s.At.UTC().Format(time.RFC3339)})
		}
		out = append(out, c)
	}
	if o.Online {
		checker := online.New(o.Getenv, o.Timeout, "vibe/"+buildinfo.Version+" (citation audit)")
		for i, e := range entries {
			if e.Status == citation.StatusInvalid && e.Problem.Form {
				continue // it cannot exist: nothing to ask
			}
			out[i].Online = o.check(ctx, st, checker, e, citingText(files, e), now)
		}
	}
	if o.JSON {
		if err := cli.WriteJSON(o.IO.Out, out); err != nil {
			return err
		}
		return notChecked(out)
	}
	if len(out) == 0 {
		fmt.Fprintf(o.IO.ErrOut, "no findings, claim ledger, review or direction of %s cites a DOI, PMID, PMCID, arXiv id or ISBN\n", proj.Root)
		return nil
	}
	header := "STATUS\tID\tCITED IN\tRETRIEVED BY"
	if o.Online {
		header += "\tONLINE"
	}
	counts := map[string]int{}
	rows := make([][]string, 0, len(out))
	for i, c := range out {
		counts[c.Status]++
		row := []string{c.Status, c.Display, citation.Places(c.Cited), entries[i].Source()}
		if o.Online {
			row = append(row, onlineText(c.Online))
		}
		rows = append(rows, row)
	}
	cli.Table(o.IO, header, rows)
	fmt.Fprintf(o.IO.ErrOut, "%d cited: %d retrieved, %d unretrieved, %d invalid\n", len(out),
		counts[citation.StatusRetrieved], counts[citation.StatusUnretrieved], counts[citation.StatusInvalid])
	return notChecked(out)
}

// notChecked is the error of an --online run in which some ids could not
// be checked (a registry that timed out or cannot be reached): the run
// did not do what was asked, so it exits 1 (the statuses above stand).
func notChecked(out []CitationJSON) error {
	asked, failed := 0, 0
	var first string
	for _, c := range out {
		if c.Online == nil {
			continue
		}
		asked++
		if c.Online.Error != "" {
			if failed == 0 {
				first = c.Online.Error
			}
			failed++
		}
	}
	if failed == 0 {
		return nil
	}
	return fmt.Errorf("%d of %d ids could not be checked online (%s); their offline status stands; try again when the registries answer (a longer --timeout helps a slow one)", failed, asked, first)
}

// Audit is the citation audit of the project at root: its citing files
// (gatecheck.CitingFiles, with the project's domain config) and every id
// they cite with its status and sources. `vibe export` writes the same.
func Audit(ctx context.Context, st *store.Store, root string, now time.Time) ([]citation.File, []citation.Entry, error) {
	d, err := gate.LoadDomain(root)
	if err != nil {
		d, _ = gate.ShippedDomain(gate.GenericDomain)
	}
	files, err := gatecheck.CitingFiles(root, d)
	if err != nil {
		return nil, nil, err
	}
	entries, err := citation.AuditWith(files, func(ids []string) (map[string][]record.PaperSource, error) {
		return st.PaperSources(ctx, root, ids)
	}, now)
	return files, entries, err
}

// check asks the registry about e, or reads the cached answer: a found id
// is kept, a "not found" for notFoundTTL.
func (o *CitationsOptions) check(ctx context.Context, st *store.Store, c *online.Checker, e citation.Entry, texts []string, now time.Time) *OnlineJSON {
	res, ok, err := st.CitationCheck(ctx, e.ID)
	cached := ok && err == nil && !o.Refresh && (res.Found || now.Sub(res.At) < notFoundTTL)
	if !cached {
		res, err = c.Check(ctx, e.ID, now)
		if err != nil {
			return &OnlineJSON{Error: err.Error()}
		}
		if err := st.Tx(ctx, func(tx *store.Tx) error { return tx.PutCitationCheck(ctx, res) }); err != nil {
			fmt.Fprintf(o.IO.ErrOut, "vibe: the answer for %s was not cached: %v\n", citation.Display(e.ID), err)
		}
	}
	j := &OnlineJSON{Found: res.Found, Title: res.Title, Source: res.Source, Cached: cached, CheckedAt: res.At.UTC().Format(time.RFC3339)}
	if res.Found {
		for _, s := range e.From {
			if s.Title != "" {
				texts = append(texts, s.Title)
			}
		}
		if match, ok := online.TitleMatch(res.Title, texts...); ok {
			j.TitleMatch = &match
		}
	}
	return j
}

// citingText are the lines that cite e.
func citingText(files []citation.File, e citation.Entry) []string {
	lines := map[string][]string{}
	for _, f := range files {
		lines[f.Rel] = strings.Split(string(f.Content), "\n")
	}
	var out []string
	for _, w := range e.Cited {
		if ls := lines[w.File]; w.Line >= 1 && w.Line <= len(ls) {
			out = append(out, ls[w.Line-1])
		}
	}
	return out
}

func onlineText(j *OnlineJSON) string {
	switch {
	case j == nil:
		return "-"
	case j.Error != "":
		return "not checked: " + j.Error
	case !j.Found:
		return "not found (" + j.Source + ")"
	case j.TitleMatch != nil && !*j.TitleMatch:
		return "found, another title: " + j.Title
	}
	return "found: " + j.Title
}

// CitationsAddOptions are the flags of `vibe citations add`.
type CitationsAddOptions struct {
	IO          cli.IO
	Store       func(context.Context) (*store.Store, error)
	FindProject func(dir string) (project.Project, error)
	Now         func() time.Time

	Project string
	// ID is the paper id as given (citation.Parse reads it).
	ID    string
	Title string
	Note  string
}

// NewCmdCitationsAdd builds `vibe citations add`.
func NewCmdCitationsAdd(f *cli.Factory, runF func(*CitationsAddOptions) error) *cobra.Command {
	opts := &CitationsAddOptions{IO: f.IO, Store: f.Store, FindProject: f.FindProject, Now: f.Now}
	cmd := &cobra.Command{
		Use:   "add ID",
		Short: "Record a paper the researcher holds, so its citations count as retrieved",
		Long: `Records a paper you hold (a PDF, a printed copy, a book) that no recorded search retrieved,
so citing it is no longer flagged and a claim citing it may be promoted. The id is a DOI,
PMID, PMCID, arXiv id or ISBN in any usual form (doi:10.1038/nbt.3117, PMID:25513782,
PMC4320685, arXiv:1706.03762, ISBN 978-0-262-03384-8). An id that cannot exist by its form
(a check digit, an impossible month) is refused; one vibe takes for unassigned (a test DOI
prefix such as 10.9999, a PubMed id above those assigned) is added with a note, since you
hold the paper.
Adding it again replaces its title and note. The permission policy asks you before an agent
runs this command: vouching for a paper is the researcher's call.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.ID = args[0]
			if runF != nil {
				return runF(opts)
			}
			return runCitationsAdd(cmd.Context(), opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.Project, "project", "", "project folder (default: the current one)")
	fl.StringVar(&opts.Title, "title", "", "the paper's title")
	fl.StringVar(&opts.Note, "note", "", "where the paper is (a file, a shelf)")
	return cmd
}

func runCitationsAdd(ctx context.Context, o *CitationsAddOptions) error {
	if ctx == nil {
		ctx = context.Background()
	}
	id, err := citation.Parse(o.ID)
	if err != nil {
		return &cli.UsageError{Err: err}
	}
	now := o.Now()
	p := citation.Check(id, now)
	if p.Form {
		return &cli.UsageError{Err: fmt.Errorf("%s cannot exist: %s; correct it from the paper itself", citation.Display(id), p.Reason)}
	}
	proj, err := o.FindProject(o.Project)
	if err != nil {
		return err
	}
	st, err := o.Store(ctx)
	if err != nil {
		return err
	}
	var added bool
	if err := st.Tx(ctx, func(tx *store.Tx) error {
		var err error
		added, err = tx.AddPaper(ctx, record.AddedPaper{ProjectPath: proj.Root, PaperID: id, Title: o.Title, Note: o.Note, At: now})
		return err
	}); err != nil {
		return err
	}
	verb := "added"
	if !added {
		verb = "updated"
	}
	fmt.Fprintf(o.IO.Out, "%s %s: its citations in %s now count as retrieved\n", verb, citation.Display(id), proj.Root)
	if p.Reason != "" {
		// What vibe knows of the registries says otherwise; the researcher
		// who holds the paper overrules it, but should know they did.
		fmt.Fprintf(o.IO.ErrOut, "note: vibe took %s for one that cannot exist (%s); you vouch for it now, so check the id against the paper you hold (`vibe gate check` in CI still warns on it)\n",
			citation.Display(id), p.Reason)
	}
	return nil
}
