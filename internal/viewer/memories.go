package viewer

import (
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/vibe-science/vibe/internal/recall"
	"github.com/vibe-science/vibe/internal/store/record"
)

// memoriesPageSize is how many memories one page shows.
const memoriesPageSize = 100

type memoriesData struct {
	Counts   record.MemoryCounts
	Total    int
	Search   string
	Kind     string
	State    string
	Memories []record.MemoryRecord
	// Ranked says the list is a search's, best match first.
	Ranked   bool
	Filtered bool
	Older    int64
	// Nothing says the search text has no word recall can search for.
	Nothing bool
	// TrustScale is each source type's trust (record.TrustScale).
	TrustScale string
}

// memories lists the project's memories, newest recorded first, or those a
// search finds (recall's lexical ranking: BM25 over the same index), with
// their kind, trust, source and state (superseded, disputed, forgotten).
func (p *pages) memories(r *http.Request, pg *page) error {
	pg.Title, pg.Active = "Memories", "memories"
	q := r.URL.Query()
	d := memoriesData{Search: strings.TrimSpace(q.Get("q")), Kind: q.Get("kind"), State: q.Get("state"), TrustScale: record.TrustScale()}
	if !slices.Contains(record.MemoryStates, d.State) {
		d.State = ""
	}
	before, _ := strconv.ParseInt(q.Get("before"), 10, 64)
	pg.Live = before == 0
	d.Filtered = d.Search != "" || d.Kind != "" || d.State != ""
	var err error
	if d.Counts, err = p.s.cfg.Store.ProjectMemoryCounts(r.Context(), p.s.cfg.Project); err != nil {
		return err
	}
	for _, c := range d.Counts.Kinds {
		d.Total += c.Count
	}
	if d.Search == "" {
		d.Memories, err = p.s.cfg.Store.MemoryPage(r.Context(), record.MemoryQuery{Project: p.s.cfg.Project, Kind: d.Kind,
			State: d.State, BeforeID: before, Limit: memoriesPageSize})
		if err != nil {
			return err
		}
		if len(d.Memories) == memoriesPageSize {
			d.Older = d.Memories[len(d.Memories)-1].ID
		}
		pg.D = d
		return nil
	}
	d.Ranked = true
	match := recall.MatchQuery(d.Search)
	if match == "" {
		d.Nothing = true
		pg.D = d
		return nil
	}
	tq := record.TextQuery{Project: p.s.cfg.Project, Match: match, Limit: memoriesPageSize}
	if d.Kind != "" {
		tq.Kinds = []string{d.Kind}
	}
	hits, err := p.s.cfg.Store.SearchMemories(r.Context(), tq)
	if err != nil {
		return err
	}
	for _, h := range hits {
		if d.State == "" || h.MemoryRecord.State() == d.State {
			d.Memories = append(d.Memories, h.MemoryRecord)
		}
	}
	pg.D = d
	return nil
}
