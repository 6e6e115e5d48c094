package citation

import (
	"bytes"
	"sort"
	"time"

	"github.com/vibe-science/vibe/internal/store/record"
)

// The statuses of a cited id.
const (
	// StatusRetrieved: a recorded literature search or fetch retrieved it,
	// or the researcher added it (vibe citations add).
	StatusRetrieved = "retrieved"
	// StatusUnretrieved: nothing vibe recorded retrieved it. The paper may
	// exist; vibe cannot tell it from an invented one.
	StatusUnretrieved = "unretrieved"
	// StatusInvalid: the id cannot exist (Check).
	StatusInvalid = "invalid"
)

// MaxCites caps the citations read from one file.
const MaxCites = 2000

// Cite is one place a text cites a paper id: the canonical id and the
// 1-based line it is on.
type Cite struct {
	ID   string
	Line int
}

// Cites returns the paper ids content cites, in order, once per line, with
// their lines; at most MaxCites.
func Cites(content []byte) []Cite {
	var out []Cite
	line, pos := 1, 0
	Scan(content, func(id string, from, _ int) bool {
		line += bytes.Count(content[pos:from], []byte{'\n'})
		pos = from
		for k := len(out) - 1; k >= 0 && out[k].Line == line; k-- {
			if out[k].ID == id {
				return true
			}
		}
		out = append(out, Cite{ID: id, Line: line})
		return len(out) < MaxCites
	})
	return out
}

// IDsOf are the distinct ids of cites, in order.
func IDsOf(cites []Cite) []string {
	seen := map[string]bool{}
	var out []string
	for _, c := range cites {
		if !seen[c.ID] {
			seen[c.ID] = true
			out = append(out, c.ID)
		}
	}
	return out
}

// StatusOf is the status of an id with the problem Check found and whether
// it was retrieved: an id wrong by its form is invalid whatever was
// retrieved; a retrieval overrules what vibe knows of the registries.
func StatusOf(p Problem, retrieved bool) string {
	switch {
	case p.Form:
		return StatusInvalid
	case retrieved:
		return StatusRetrieved
	case !p.OK():
		return StatusInvalid
	}
	return StatusUnretrieved
}

// Finding is a cited id the record does not vouch for, where it is cited.
type Finding struct {
	Cite
	Status  string
	Problem Problem
}

// Unvouched returns the cites whose id is not retrieved (retrieved holds
// the ids that are), or invalid: the ones a write is warned about and a
// promotion is blocked on.
func Unvouched(cites []Cite, retrieved map[string]bool, now time.Time) []Finding {
	var out []Finding
	for _, c := range cites {
		p := Check(c.ID, now)
		if s := StatusOf(p, retrieved[c.ID]); s != StatusRetrieved {
			out = append(out, Finding{Cite: c, Status: s, Problem: p})
		}
	}
	return out
}

// File is a research file that may cite papers: project-relative path,
// kind (findings, ledger, review, direction) and content.
type File struct {
	Rel, Kind string
	Content   []byte
}

// Where is one place an id is cited.
type Where struct {
	File string `json:"file"`
	Line int    `json:"line"`
	Kind string `json:"kind"`
}

// Entry is one cited id of a project, with every place it is cited and
// every record that retrieved it.
type Entry struct {
	ID      string
	Kind    string
	Status  string
	Problem Problem
	Cited   []Where
	From    []record.PaperSource
}

// Audit lists every id the files cite, sorted by status (invalid, then
// unretrieved, then retrieved) and id; from holds, by id, what retrieved
// each (store.PaperSources).
func Audit(files []File, from map[string][]record.PaperSource, now time.Time) []Entry {
	byID := map[string]*Entry{}
	var order []string
	for _, f := range files {
		for _, c := range Cites(f.Content) {
			e, ok := byID[c.ID]
			if !ok {
				e = &Entry{ID: c.ID, Kind: Kind(c.ID)}
				byID[c.ID] = e
				order = append(order, c.ID)
			}
			e.Cited = append(e.Cited, Where{File: f.Rel, Line: c.Line, Kind: f.Kind})
		}
	}
	out := make([]Entry, 0, len(order))
	for _, id := range order {
		e := byID[id]
		e.From = from[id]
		e.Problem = Check(id, now)
		e.Status = StatusOf(e.Problem, len(e.From) > 0)
		out = append(out, *e)
	}
	rank := map[string]int{StatusInvalid: 0, StatusUnretrieved: 1, StatusRetrieved: 2}
	sort.SliceStable(out, func(i, j int) bool {
		if rank[out[i].Status] != rank[out[j].Status] {
			return rank[out[i].Status] < rank[out[j].Status]
		}
		return out[i].ID < out[j].ID
	})
	return out
}

// CitedIDs are the distinct ids the files cite, in order.
func CitedIDs(files []File) []string {
	var all []Cite
	for _, f := range files {
		all = append(all, Cites(f.Content)...)
	}
	return IDsOf(all)
}

// AuditWith audits files with sources, which looks up what retrieved the
// ids they cite (store.PaperSources for one project).
func AuditWith(files []File, sources func(ids []string) (map[string][]record.PaperSource, error), now time.Time) ([]Entry, error) {
	from, err := sources(CitedIDs(files))
	if err != nil {
		return nil, err
	}
	return Audit(files, from, now), nil
}
