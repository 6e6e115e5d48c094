package gatecheck

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/vibe-science/vibe/internal/claim"
	"github.com/vibe-science/vibe/internal/gate"
	"github.com/vibe-science/vibe/internal/lineage"
	"github.com/vibe-science/vibe/internal/project"
	"github.com/vibe-science/vibe/internal/research"
)

// Origins turns lineage records into the sources' origins DQ4 reads: rows
// gives the records of a content hash (the hooks' database, or the
// project's mirror), and lineage.Decide says what they make of it. The
// hooks and CI decide with this one function, from their own records.
func Origins(rows func(sha string) []lineage.Row) gate.Origins {
	return func(_ string, raw []byte) (gate.SourceOrigin, bool) {
		o := lineage.Decide(rows(lineage.Sum(raw)))
		switch o.Writer {
		case lineage.Hand:
			return gate.SourceOrigin{Hand: true, By: o.Row.By, At: o.Row.At}, true
		case lineage.Computation:
			return gate.SourceOrigin{By: o.Row.By, At: o.Row.At}, true
		}
		return gate.SourceOrigin{}, false
	}
}

// MirrorOrigins are the origins the project's mirror of the lineage
// records (.vibe-science/lineage.jsonl) tells: what CI and a fresh clone
// know. Without a mirror nothing is known.
func MirrorOrigins(root string) gate.Origins {
	m, err := lineage.ReadMirror(root)
	if err != nil || len(m.Records) == 0 {
		return nil
	}
	return Origins(m.Rows)
}

// StoredOrigins are the origins a tool holding a database decides from
// (the hooks, `vibe gate run`): stored gives the rows it holds for a
// content hash; a content it holds none of is looked up in the project's
// mirror (a fresh clone's database does not know what the mirror does),
// read at most once.
func StoredOrigins(root string, stored func(sha string) []lineage.Row) gate.Origins {
	var mirror *lineage.Mirror
	return Origins(func(sha string) []lineage.Row {
		if rows := stored(sha); len(rows) > 0 {
			return rows
		}
		if mirror == nil {
			m, _ := lineage.ReadMirror(root) // an unreadable mirror knows nothing
			mirror = &m
		}
		return mirror.Rows(sha)
	})
}

// maxResultBytes bounds a result file read for its origin.
const maxResultBytes = 16 << 20

// Unbacked is a result a claim rests on whose current content was written
// by hand.
type Unbacked struct {
	Rel    string // project-relative
	Origin gate.SourceOrigin
}

// String says it as a promotion refusal does.
func (u Unbacked) String() string {
	s := fmt.Sprintf("%s was written by hand (%s)", u.Rel, u.Origin.By)
	if !u.Origin.At.IsZero() {
		s += " at " + u.Origin.At.UTC().Format("2006-01-02 15:04 UTC")
	}
	return s + " and no computation produced it"
}

// UnbackedEvidence lists the results claim c rests on that were written
// by hand, by origins: its evidence JSON files (other than the records the
// methodology has written by hand: schema-gate artifacts such as the D1
// record, reviews) and the source JSON of each findings file among its
// evidence. A promotion may rest only on results a computation wrote; the
// hooks (ledger.Judge) and `vibe gate check` apply the rule alike. nil
// origins know nothing: nothing is unbacked.
func UnbackedEvidence(root string, c claim.Claim, d gate.Domain, origins gate.Origins) []Unbacked {
	if origins == nil {
		return nil
	}
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	r := &repo{root: abs, vibe: filepath.Join(abs, project.Dir), d: d, cache: map[string]cached{}, kinds: map[string]research.Artifact{}}
	r.rqs = listRQs(abs, r.vibe)
	return r.unbacked(c, origins)
}

func (r *repo) unbacked(c claim.Claim, origins gate.Origins) []Unbacked {
	if origins == nil {
		return nil
	}
	var results []string
	seen := map[string]bool{}
	add := func(p string) {
		if !seen[p] {
			seen[p] = true
			results = append(results, p)
		}
	}
	for _, f := range r.evidenceOf(c).files {
		rel := r.rel(f)
		switch {
		case strings.Contains("/"+rel, "/"+reviewDir+"/") || handRecord(f):
		case strings.EqualFold(filepath.Ext(f), ".json"):
			add(f)
		case r.kind(f).Kind == gate.FileFindings:
			if content, ok := readSmall(f); ok {
				srcs, _ := gate.SourcesFor(f, content)
				for _, s := range srcs {
					add(s)
				}
			}
		}
	}
	var out []Unbacked
	for _, p := range results {
		raw, ok := readResult(p)
		if !ok {
			continue
		}
		if o, ok := origins(p, raw); ok && o.Hand {
			out = append(out, Unbacked{Rel: r.rel(p), Origin: o})
		}
	}
	return out
}

// handRecord reports whether a file is one the methodology has the agent
// write by hand: a schema gate's artifact (L0, D1's promotion record, a
// judge report …).
func handRecord(p string) bool {
	base := filepath.Base(p)
	for _, a := range Artifacts {
		if ok, _ := filepath.Match(filepath.Base(filepath.FromSlash(a.Pattern)), base); ok {
			return true
		}
	}
	return strings.HasSuffix(strings.ToLower(base), "-promotion.json")
}

func readResult(p string) ([]byte, bool) {
	f, err := os.Open(p)
	if err != nil {
		return nil, false
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil || !info.Mode().IsRegular() || info.Size() > maxResultBytes {
		return nil, false
	}
	b, err := io.ReadAll(f)
	return b, err == nil
}
