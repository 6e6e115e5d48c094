package viewer

import (
	"net/http"
	"slices"
	"strings"

	"github.com/vibe-science/vibe/internal/store/record"
)

// decisionsPageSize is how many decisions the decisions page shows, the
// newest; the filters narrow it.
const decisionsPageSize = 200

// decisionCounts are a project's decisions counted by kind, for the
// overview and the decisions page's filter.
type decisionCounts struct {
	Kinds []record.NameCount
	// Stops counts what was denied or blocked.
	Stops, Asks, Warns, All int
}

func (p *pages) decisionCounts(r *http.Request) (decisionCounts, error) {
	cs, err := p.s.cfg.Store.DecisionCounts(r.Context(), p.s.cfg.Project)
	if err != nil {
		return decisionCounts{}, err
	}
	var d decisionCounts
	for _, k := range record.DecisionKinds {
		for _, c := range cs {
			if c.Name != k {
				continue
			}
			d.Kinds = append(d.Kinds, c)
			d.All += c.Count
			switch k {
			case record.DecisionDeny, record.DecisionBlock:
				d.Stops += c.Count
			case record.DecisionAsk:
				d.Asks += c.Count
			case record.DecisionWarn:
				d.Warns += c.Count
			}
		}
	}
	return d, nil
}

type decisionsData struct {
	Counts    decisionCounts
	Kind      string
	Check     string
	Session   string
	Decisions []record.Decision
	Filtered  bool
	// Full says the page shows decisionsPageSize and there may be more.
	Full bool
}

// decisions is what vibe denied, blocked, asked and warned, newest first,
// filtered by kind, check and session (the session page links here).
func (p *pages) decisions(r *http.Request, pg *page) error {
	pg.Title, pg.Active, pg.Live = "Decisions", "decisions", true
	q := r.URL.Query()
	d := decisionsData{Kind: q.Get("kind"), Check: strings.TrimSpace(q.Get("check")), Session: q.Get("session")}
	f := record.DecisionFilter{Project: p.s.cfg.Project, Session: d.Session, Limit: decisionsPageSize}
	if slices.Contains(record.DecisionKinds, d.Kind) {
		f.Kinds = []string{d.Kind}
	} else {
		d.Kind = ""
	}
	if d.Check != "" {
		f.Checks = []string{d.Check}
	}
	d.Filtered = d.Kind != "" || d.Check != "" || d.Session != ""
	var err error
	if d.Counts, err = p.decisionCounts(r); err != nil {
		return err
	}
	if d.Decisions, err = p.s.cfg.Store.Decisions(r.Context(), f); err != nil {
		return err
	}
	d.Full = len(d.Decisions) == decisionsPageSize
	pg.D = d
	return nil
}
