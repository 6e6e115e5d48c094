package record

import "time"

// LiteratureUncounted is the gate_context of a recorded search that does not
// count for gate L-1 (a web search with nothing scholarly about it): it stays
// in the log, but HasLiteratureSearch and ActionsSinceLiterature ignore it.
const LiteratureUncounted = "UNCOUNTED"

// LiteratureSearch is one detected literature search.
type LiteratureSearch struct {
	ID          int64
	SessionID   string
	ProjectPath string
	Query       string
	Sources     []string // registry ids or publisher hosts
	KeyPapers   []string // DOIs, PMIDs, arXiv ids
	// Retrieved are every paper id the call retrieved (its results, a
	// fetched page, a literature tool's output; never its query), for the
	// citation audit: stored one row each, not in KeyPapers' capped list.
	Retrieved    []string `json:",omitempty"`
	ResultsCount *int
	Layer        string // WEBSEARCH, WEBFETCH, MCP, SKILL, RAG, MANUAL
	GateContext  string
	ToolUseID    string
	At           time.Time
}

// PaperAdded is the source layer of a paper the researcher added by hand
// (vibe citations add), not retrieved by a recorded search.
const PaperAdded = "ADDED"

// PaperSource is one record that retrieved a paper id: a literature search
// whose results, fetched page or tool output carried it (SearchID, with
// its session, layer and query), or the researcher, who added it (Layer
// PaperAdded, with the title and note they gave).
type PaperSource struct {
	PaperID   string
	SearchID  int64
	SessionID string
	Layer     string
	Query     string
	Title     string
	Note      string
	At        time.Time
}

// AddedPaper is a paper the researcher holds and adds to the project's
// record by hand.
type AddedPaper struct {
	ProjectPath string
	PaperID     string
	Title       string
	Note        string
	At          time.Time
}

// CitationCheck is the cached answer of an online check of a paper id:
// whether the registry (Crossref, PubMed, arXiv) knows it, and the title it
// gives.
type CitationCheck struct {
	PaperID string
	Found   bool
	Title   string
	Source  string // crossref, pubmed, pmc, arxiv
	At      time.Time
}
