package gatecheck

import (
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/vibe-science/vibe/internal/citation"
	"github.com/vibe-science/vibe/internal/gate"
	"github.com/vibe-science/vibe/internal/literature"
	"github.com/vibe-science/vibe/internal/research"
)

// RuleCitation is the rule of citations that cannot exist.
const RuleCitation = citation.CheckCitation

// The kinds of file that cite papers as research (citation.File.Kind).
const (
	CitingFindings  = "findings"
	CitingLedger    = "ledger"
	CitingReview    = "review"
	CitingDirection = "direction"
)

// textExts are the note formats findings are written in.
var textExts = map[string]bool{".md": true, ".markdown": true, ".txt": true}

// CitingFiles returns the research files of the project at root that cite
// papers, walked as `vibe gate check` walks (research.Walk): the claim
// ledgers, the reviews under 05-reviewer2/, the findings files (recognised
// by content, or named *findings*) and the files that set a research
// direction, with their content (each at most 1 MB), in walk order. The
// citation audit (`vibe citations`, the viewer, RECORD.md) reads these.
func CitingFiles(root string, d gate.Domain) ([]citation.File, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, err
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	r, err := scan(abs, d)
	if err != nil {
		return nil, err
	}
	return r.citingFiles(), nil
}

func (r *repo) citingFiles() []citation.File {
	ledgers := map[string]bool{}
	for _, p := range FindLedgers(r.root) {
		ledgers[p] = true
	}
	var out []citation.File
	for _, f := range r.files {
		rel := r.rel(f)
		base := strings.ToLower(filepath.Base(f))
		ext := strings.ToLower(filepath.Ext(f))
		var kind string
		switch {
		case ledgers[f]:
			kind = CitingLedger
		case strings.Contains("/"+rel, "/"+reviewDir+"/"):
			kind = CitingReview
		case textExts[ext] && (strings.Contains(base, "findings") || r.kind(f).Kind == research.KindFindings):
			// Only notes are read: recognising every table of the
			// project would read the head of each.
			kind = CitingFindings
		case directionExts[ext]:
			kind = CitingDirection
		default:
			continue
		}
		content, ok := readSmall(f)
		if !ok {
			continue
		}
		if kind == CitingDirection && !literature.IsDirection(rel, content) {
			continue
		}
		out = append(out, citation.File{Rel: rel, Kind: kind, Content: content})
	}
	return out
}

// citationItems applies the citation rule: a research file that cites a
// paper id which cannot exist (citation.Check as of now: a check digit, a
// test DOI prefix, a PubMed id above those assigned) is a warning on its
// line. CI cannot see which papers the sessions retrieved, so an id that
// may exist is not judged here; the hooks judge it.
func (r *repo) citationItems(now time.Time) []Item {
	var items []Item
	for _, f := range r.citingFiles() {
		cites := citation.Cites(f.Content)
		if len(cites) == 0 {
			continue
		}
		it := Item{Gate: RuleCitation, File: f.Rel}
		seen := map[string]bool{}
		for _, c := range cites {
			p := citation.Check(c.ID, now)
			if p.OK() || seen[c.ID] {
				continue
			}
			seen[c.ID] = true
			it.Findings = append(it.Findings, Finding{Gate: RuleCitation, Level: Warning, File: f.Rel, Line: c.Line,
				Message: fmt.Sprintf("%s cannot exist: %s", citation.Display(c.ID), p.Reason),
				Fix:     "correct the id from the paper itself, or remove the citation"})
		}
		items = append(items, it)
	}
	return items
}
