package literature

import (
	"bytes"
	"encoding/json"
	"path"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/vibe-science/vibe/internal/citation"
	"github.com/vibe-science/vibe/internal/store/record"
)

// MaxKeyPapers caps the paper ids kept as a search's key papers (shown in
// listings).
const MaxKeyPapers = 20

// MaxRetrieved caps the paper ids recorded as retrieved by one call, for
// the citation audit: far above a page of results, so a real paper is not
// dropped for being the twenty-first.
const MaxRetrieved = 500

// The layers a search is recorded under (literature_searches.search_layer):
// the blueprint's four-layer engine (MCP servers, K-Dense skills, curated
// RAG libraries) plus the web tools and MANUAL, a paper id that turned up in
// a file read or a command's output.
const (
	LayerWebSearch = "WEBSEARCH"
	LayerWebFetch  = "WEBFETCH"
	LayerMCP       = "MCP"
	LayerSkill     = "SKILL"
	LayerRAG       = "RAG"
	LayerManual    = "MANUAL"
)

// maxQuery caps the stored query (a Bash command, an MCP input).
const maxQuery = 200

// Search is one detected literature search.
type Search struct {
	Query string `json:"query"`
	// Sources are registry ids (pubmed) or, for a scholarly site outside the
	// catalogue, its host (nature.com).
	Sources   []string `json:"sources"`
	KeyPapers []string `json:"key_papers"`
	// Retrieved are the paper ids in what the tool returned (its results,
	// the fetched page and its URL, a literature tool's output), never in
	// the query or command the agent wrote: what the citation audit counts
	// as read. A Bash command's output counts only when it fetched a
	// scholarly host, a Read's only for a PDF.
	Retrieved []string `json:"retrieved,omitempty"`
	Layer     string   `json:"layer"`
	// Results is the number of hits when the tool says (nil otherwise).
	Results *int `json:"results"`
	// Scholarly is false only for a web search that names no scholarly term
	// or source and returned nothing scholarly: it is recorded, but does not
	// count for L-1.
	Scholarly bool `json:"scholarly"`
}

// Record turns the search into the row the store keeps. A search that is not
// scholarly is stored with gate context record.LiteratureUncounted.
func (s Search) Record(session, project, toolUseID string, at time.Time) record.LiteratureSearch {
	l := record.LiteratureSearch{SessionID: session, ProjectPath: project, Query: s.Query, Sources: s.Sources,
		KeyPapers: s.KeyPapers, Retrieved: s.Retrieved, ResultsCount: s.Results, Layer: s.Layer, ToolUseID: toolUseID, At: at}
	if !s.Scholarly {
		l.GateContext = record.LiteratureUncounted
	}
	return l
}

// Detect says whether a finished tool call was a literature search, and
// which. It recognises:
//   - WebSearch: always recorded; scholarly when the query names a
//     scholarly term or source, a result or allowed domain is a scholarly
//     host, or the results carry paper ids;
//   - WebFetch of a page on a registry or publisher host, or whose URL or
//     result carries a paper id;
//   - MCP tools whose name names literature (pubmed, arxiv, paper, scholar,
//     literature, openalex, semantic, zotero, paperqa, …) or a registry
//     source; zotero, paperqa and notebooklm tools are layer RAG;
//   - the Skill tool running a K-Dense database skill of the registry or a
//     literature meta-skill (literature-review, research-lookup, …);
//   - Read, Grep and Bash whose output (or Bash command) carries a DOI,
//     PMID, PMCID or arXiv id, or a Bash command that fetches a registry
//     host. Reading the project's own research files (CLAIM-LEDGER.md,
//     FINDINGS, STATE.md, SERENDIPITY.md, reviews under 05-reviewer2/, …)
//     is not a search: memory is not literature.
//
// Writes (Write, Edit, MultiEdit, NotebookEdit) and everything else are
// not searches.
func Detect(toolName string, toolInput, toolResponse []byte) (Search, bool) {
	switch toolName {
	case "WebSearch":
		return detectWebSearch(toolInput, toolResponse)
	case "WebFetch":
		return detectWebFetch(toolInput, toolResponse)
	case "Skill":
		return detectSkill(toolInput)
	case "Read", "Grep", "Bash":
		return detectOutput(toolName, toolInput, toolResponse)
	}
	if strings.HasPrefix(toolName, "mcp__") {
		return detectMCP(toolName, toolInput, toolResponse)
	}
	return Search{}, false
}

// sourceSet collects source ids once each, in the order found.
type sourceSet []string

func (s *sourceSet) add(id string) {
	for _, x := range *s {
		if x == id {
			return
		}
	}
	*s = append(*s, id)
}

func detectWebSearch(input, response []byte) (Search, bool) {
	var in struct {
		Query   string   `json:"query"`
		Allowed []string `json:"allowed_domains"`
	}
	_ = json.Unmarshal(input, &in)
	var out struct {
		Query   string            `json:"query"`
		Results []json.RawMessage `json:"results"`
	}
	_ = json.Unmarshal(response, &out)
	query := strings.TrimSpace(in.Query)
	if query == "" {
		query = strings.TrimSpace(out.Query)
	}
	if query == "" {
		return Search{}, false
	}
	reg, _ := Load()
	var sources sourceSet
	var results *int
	var retrieved []string
	if out.Results != nil {
		hits := 0
		for _, raw := range out.Results {
			retrieved = merge(retrieved, citation.IDs(raw, MaxRetrieved), MaxRetrieved)
			raw = bytes.TrimSpace(raw)
			if len(raw) == 0 || raw[0] != '{' {
				continue // commentary text, not hits
			}
			var block struct {
				Content []struct {
					URL string `json:"url"`
				} `json:"content"`
			}
			if json.Unmarshal(raw, &block) != nil {
				continue
			}
			hits += len(block.Content)
			if reg != nil {
				for _, c := range block.Content {
					if id, ok := reg.MatchURL(c.URL); ok {
						sources.add(id)
					}
				}
			}
		}
		results = &hits
	}
	if reg != nil {
		for _, d := range in.Allowed {
			if id, ok := reg.MatchURL("https://" + d); ok {
				sources.add(id)
			}
		}
	}
	papers := citation.IDs(response, MaxKeyPapers)
	s := Search{Query: query, Sources: sources, KeyPapers: papers, Retrieved: retrieved, Layer: LayerWebSearch, Results: results}
	s.Scholarly = len(sources) > 0 || len(papers) > 0 || ScholarlyQuery(query)
	return s, true
}

func detectWebFetch(input, response []byte) (Search, bool) {
	var in struct {
		URL string `json:"url"`
	}
	_ = json.Unmarshal(input, &in)
	if in.URL == "" {
		return Search{}, false
	}
	var sources sourceSet
	if reg, _ := Load(); reg != nil {
		if id, ok := reg.MatchURL(in.URL); ok {
			sources.add(id)
		}
	}
	retrieved := merge(citation.IDs([]byte(in.URL), MaxRetrieved), citation.IDs(response, MaxRetrieved), MaxRetrieved)
	if len(sources) == 0 && len(retrieved) == 0 {
		return Search{}, false
	}
	return Search{Query: in.URL, Sources: sources, KeyPapers: retrieved[:min(len(retrieved), MaxKeyPapers)], Retrieved: retrieved,
		Layer: LayerWebFetch, Scholarly: true}, true
}

func detectSkill(input []byte) (Search, bool) {
	var in struct {
		Skill string `json:"skill"`
		Args  string `json:"args"`
	}
	_ = json.Unmarshal(input, &in)
	name := in.Skill
	if i := strings.LastIndexByte(name, ':'); i >= 0 {
		name = name[i+1:] // plugin-qualified: "scientific:pubmed-database"
	}
	reg, _ := Load()
	if reg == nil || name == "" {
		return Search{}, false
	}
	ids, ok := reg.SkillSources(name)
	if !ok {
		return Search{}, false
	}
	q := strings.TrimSpace(in.Args)
	if q == "" {
		q = name
	}
	return Search{Query: clip(q), Sources: append([]string(nil), ids...), Layer: LayerSkill, Scholarly: true}, true
}

// researchFiles are the project's own research files: reading them is
// remembering, not searching.
var researchFiles = []string{"claim-ledger.md", "serendipity.md", "state.md", "progress.md", "spine.md",
	"assumption-register.md", "project_pickup.md"}

// IsResearchFile reports whether p is one of the project's own research
// records (the ledger, STATE, findings, reviews, …), whose citations are the
// researcher's, not new literature.
func IsResearchFile(p string) bool {
	p = strings.ToLower(strings.ReplaceAll(p, "\\", "/"))
	base := path.Base(p)
	if slices.Contains(researchFiles, base) || strings.Contains(base, "findings") {
		return true
	}
	return strings.HasPrefix(p, "05-reviewer2/") || strings.Contains(p, "/05-reviewer2/")
}

func detectOutput(tool string, input, response []byte) (Search, bool) {
	var in struct {
		FilePath string `json:"file_path"`
		Pattern  string `json:"pattern"`
		Command  string `json:"command"`
	}
	_ = json.Unmarshal(input, &in)
	var query string
	var sources sourceSet
	var papers []string
	switch tool {
	case "Read":
		if in.FilePath == "" || IsResearchFile(in.FilePath) {
			return Search{}, false
		}
		query = "read " + lastElems(in.FilePath, 2)
	case "Grep":
		query = "grep " + in.Pattern
	case "Bash":
		query = in.Command
		if strings.Contains(in.Command, "://") {
			if reg, _ := Load(); reg != nil {
				for _, u := range urlsIn(in.Command) {
					if id, ok := reg.MatchURL(u); ok {
						sources.add(id)
					}
				}
			}
		}
		papers = citation.IDs([]byte(in.Command), MaxKeyPapers)
	}
	papers = merge(papers, citation.IDs(response, MaxKeyPapers), MaxKeyPapers)
	if len(sources) == 0 && len(papers) == 0 {
		return Search{}, false
	}
	s := Search{Query: clip(query), Sources: sources, KeyPapers: papers, Layer: LayerManual, Scholarly: true}
	// What a command or a file shows was retrieved only when it came from a
	// scholarly source: a command that fetched one, a paper's PDF. A cat
	// or echo of the agent's own text is not a retrieval.
	if tool == "Bash" && len(sources) > 0 || tool == "Read" && strings.EqualFold(path.Ext(in.FilePath), ".pdf") {
		s.Retrieved = citation.IDs(response, MaxRetrieved)
	}
	return s, true
}

// mcpKeywords mark an MCP tool as a literature tool wherever they appear in
// its name.
var mcpKeywords = []string{"pubmed", "arxiv", "paper", "scholar", "literature", "openalex", "semantic", "zotero",
	"paperqa", "biorxiv", "medrxiv", "europepmc", "crossref", "citation", "inspirehep", "adsabs", "notebooklm",
	"bibliograph", "preprint"}

// ragKeywords mark a curated-library tool (the blueprint's layer 3).
var ragKeywords = []string{"zotero", "paperqa", "notebooklm"}

// ambiguousIDs are registry ids that are also everyday words in tool names
// (a "string" or "core" tool is not a database query); they name a source
// only when the tool is already a literature tool.
var ambiguousIDs = map[string]bool{"core": true, "base": true, "string": true, "lens": true, "eric": true,
	"hal": true, "zinc": true, "cosmic": true, "dimensions": true}

func detectMCP(toolName string, input, response []byte) (Search, bool) {
	lower := strings.ToLower(strings.TrimPrefix(toolName, "mcp__"))
	lit := containsAny(lower, mcpKeywords)
	var sources sourceSet
	if reg, _ := Load(); reg != nil {
		words := strings.FieldsFunc(lower, func(r rune) bool { return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9') })
		for _, id := range reg.ids {
			if !matchWords(words, id) {
				continue
			}
			if ambiguousIDs[id] && !lit {
				continue
			}
			sources.add(id)
		}
	}
	if !lit && len(sources) == 0 {
		return Search{}, false
	}
	layer := LayerMCP
	if containsAny(lower, ragKeywords) {
		layer = LayerRAG
	}
	retrieved := citation.IDs(response, MaxRetrieved)
	return Search{Query: mcpQuery(input), Sources: sources, KeyPapers: retrieved[:min(len(retrieved), MaxKeyPapers)],
		Retrieved: retrieved, Layer: layer, Results: mcpResults(response), Scholarly: true}, true
}

// matchWords reports whether the id's parts (semantic_scholar) appear as
// consecutive words of a tool name, or joined as one word (semanticscholar).
func matchWords(words []string, id string) bool {
	parts := strings.Split(id, "_")
	joined := strings.Join(parts, "")
	for i := range words {
		if words[i] == joined {
			return true
		}
		if len(parts) > 1 && i+len(parts) <= len(words) {
			ok := true
			for k, p := range parts {
				if words[i+k] != p {
					ok = false
					break
				}
			}
			if ok {
				return true
			}
		}
	}
	return false
}

// mcpQueryKeys are the input fields an MCP literature tool names its query
// by, in the order they are tried.
var mcpQueryKeys = []string{"query", "q", "search", "search_query", "term", "terms", "keywords", "topic", "title",
	"doi", "paper_id", "arxiv_id", "pmid", "id", "url"}

func mcpQuery(input []byte) string {
	var m map[string]json.RawMessage
	if json.Unmarshal(input, &m) == nil {
		for _, k := range mcpQueryKeys {
			var s string
			if raw, ok := m[k]; ok && json.Unmarshal(raw, &s) == nil && strings.TrimSpace(s) != "" {
				return clip(strings.TrimSpace(s))
			}
		}
	}
	var buf bytes.Buffer
	if json.Compact(&buf, input) == nil && buf.Len() > 0 {
		return clip(buf.String())
	}
	return clip(string(input))
}

// mcpResults counts hits in an MCP response when its shape says: a list of
// records, or an object with a results/papers/items/data/entries list or a
// total/count number. Content blocks ({"type": "text", …}) say nothing.
func mcpResults(response []byte) *int {
	response = bytes.TrimSpace(response)
	if len(response) == 0 {
		return nil
	}
	switch response[0] {
	case '[':
		var items []map[string]json.RawMessage
		if json.Unmarshal(response, &items) != nil {
			return nil
		}
		for _, it := range items {
			if _, block := it["type"]; block {
				return nil
			}
		}
		n := len(items)
		return &n
	case '{':
		var m map[string]json.RawMessage
		if json.Unmarshal(response, &m) != nil {
			return nil
		}
		for _, k := range []string{"results", "papers", "items", "data", "entries"} {
			var list []json.RawMessage
			if raw, ok := m[k]; ok && json.Unmarshal(raw, &list) == nil {
				n := len(list)
				return &n
			}
		}
		for _, k := range []string{"total", "count", "total_results"} {
			var n int
			if raw, ok := m[k]; ok && json.Unmarshal(raw, &n) == nil {
				return &n
			}
		}
	}
	return nil
}

// scholarlyTerms mark a web query as scholarly when a word of the query
// starts with one of them ("papers" matches "paper").
var scholarlyTerms = []string{"paper", "study", "studies", "review", "literature", "journal", "preprint",
	"meta analy", "metaanaly", "systematic", "doi", "pmid", "pmc", "arxiv", "pubmed", "biorxiv", "medrxiv",
	"et al", "citation", "cited", "publication", "published", "proceedings", "conference", "thesis", "theses",
	"scholar", "prior art", "prior work", "state of the art", "benchmark", "dataset", "survey", "peer review",
	"cohort", "clinical trial", "randomi", "hypothes", "evidence"}

// ScholarlyQuery reports whether a web search query looks scholarly: a
// word starts with a scholarly term (paper, study, review, preprint, et al,
// …) or the query names a registry source as whole words (PubMed, Semantic
// Scholar, INSPIRE-HEP). Sources whose names are everyday words (STRING,
// CORE, BASE, Lens) do not count.
func ScholarlyQuery(q string) bool {
	norm := normaliseWords(q)
	for _, t := range scholarlyTerms {
		if strings.Contains(norm, " "+t) {
			return true
		}
	}
	reg, _ := Load()
	if reg == nil {
		return false
	}
	for _, id := range reg.ids {
		if ambiguousIDs[id] {
			continue
		}
		d := reg.Databases[id]
		for _, name := range []string{d.Name, d.ShortName, strings.ReplaceAll(id, "_", " ")} {
			n := strings.TrimSpace(normaliseWords(name))
			if len(n) >= 4 && strings.Contains(norm, " "+n+" ") {
				return true
			}
		}
	}
	return false
}

// normaliseWords lower-cases s and turns every run of non-alphanumerics
// into one space, padded with a space on each side, so word tests are
// substring tests.
func normaliseWords(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte(' ')
	space := true
	for _, r := range strings.ToLower(s) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r > utf8.RuneSelf {
			b.WriteRune(r)
			space = false
		} else if !space {
			b.WriteByte(' ')
			space = true
		}
	}
	if !space {
		b.WriteByte(' ')
	}
	return b.String()
}

// merge appends the ids of more that a does not hold, up to max in all.
func merge(a, more []string, max int) []string {
	for _, p := range more {
		if len(a) >= max {
			break
		}
		if !slices.Contains(a, p) {
			a = append(a, p)
		}
	}
	return a
}

// urlsIn returns the http(s) URLs in a command line.
func urlsIn(s string) []string {
	var out []string
	for {
		i := strings.Index(s, "://")
		if i < 0 {
			return out
		}
		start := i
		for start > 0 && (s[start-1] >= 'a' && s[start-1] <= 'z' || s[start-1] >= 'A' && s[start-1] <= 'Z') {
			start--
		}
		end := i + 3
		for end < len(s) && s[end] > ' ' && s[end] != '"' && s[end] != '\'' && s[end] != '`' {
			end++
		}
		if scheme := strings.ToLower(s[start:i]); scheme == "http" || scheme == "https" {
			out = append(out, s[start:end])
		}
		s = s[end:]
	}
}

func lastElems(p string, n int) string {
	p = strings.ReplaceAll(p, "\\", "/")
	parts := strings.Split(strings.TrimRight(p, "/"), "/")
	if len(parts) > n {
		parts = parts[len(parts)-n:]
	}
	return strings.Join(parts, "/")
}

// clip shortens s to maxQuery runes, marking the cut.
func clip(s string) string {
	if utf8.RuneCountInString(s) <= maxQuery {
		return s
	}
	r := []rune(s)
	return string(r[:maxQuery-1]) + "…"
}

func containsAny(s string, subs []string) bool {
	for _, x := range subs {
		if strings.Contains(s, x) {
			return true
		}
	}
	return false
}
