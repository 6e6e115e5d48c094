package record

import "time"

// LiteratureUncounted is the gate_context of a recorded search that does not
// count for gate L-1 (a web search with nothing scholarly about it): it stays
// in the log, but HasLiteratureSearch and ActionsSinceLiterature ignore it.
const LiteratureUncounted = "UNCOUNTED"

// LiteratureSearch is one detected literature search.
type LiteratureSearch struct {
	ID           int64
	SessionID    string
	ProjectPath  string
	Query        string
	Sources      []string // registry ids or publisher hosts
	KeyPapers    []string // DOIs, PMIDs, arXiv ids
	ResultsCount *int
	Layer        string // WEBSEARCH, WEBFETCH, MCP, SKILL, RAG, MANUAL
	GateContext  string
	ToolUseID    string
	At           time.Time
}
