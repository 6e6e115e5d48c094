package record

import "time"

// MemoryRecord is one stored memory as recall and `vibe memory show` read it.
type MemoryRecord struct {
	ID          int64
	ProjectPath string
	SessionID   string
	Kind        string
	Text        string
	Ref         string
	Source      string
	Trust       float64
	Forgotten   bool
	// Conflicts are the memories this one contradicts (links in either
	// direction), smallest id first.
	Conflicts []int64
	// SupersededBy is the newest memory that contradicts this one and is
	// newer than it, when there is one that is not forgotten: recall ranks
	// this one down and points there.
	SupersededBy *int64
	CreatedAt    time.Time
}

// MemoryHead is what SessionStart ranks a memory by (kind, age, trust,
// whether it is superseded), without its text and links: it reads the
// full record only for the few it keeps.
type MemoryHead struct {
	ID           int64
	Kind         string
	Trust        float64
	SupersededBy *int64
	CreatedAt    time.Time
}

// TextHit is a memory matched by FTS5, with its BM25 relevance (FTS5's
// bm25() negated, so larger is better) and its position in that order (1
// is the best match).
type TextHit struct {
	MemoryRecord
	BM25 float64
	Rank int
}

// TextQuery is one FTS5 search of a project's memories.
type TextQuery struct {
	Project string
	// Match must already be a safe FTS5 expression: recall builds it from
	// free text.
	Match string
	// Kinds keeps only these kinds (all when empty).
	Kinds []string
	Limit int
	// MinID, when not 0, searches only memories with this id or a larger
	// one (the newest part of the index).
	MinID int64
	// Since, when not zero, keeps memories created at or after it;
	// Session, when set, those of one session. Project "" searches every
	// project.
	Since   time.Time
	Session string
}

// Memory states: where a memory stands, as the viewer and the research
// record show it.
const (
	MemoryCurrent    = "current"
	MemoryDisputed   = "disputed"
	MemorySuperseded = "superseded"
	MemoryForgotten  = "forgotten"
)

// MemoryStates are the states, in the order they are listed.
var MemoryStates = []string{MemoryCurrent, MemoryDisputed, MemorySuperseded, MemoryForgotten}

// State is where m stands: forgotten; superseded (a newer memory
// contradicts it: recall ranks it down); disputed (it contradicts another
// memory and no newer one supersedes it); else current.
func (m MemoryRecord) State() string {
	switch {
	case m.Forgotten:
		return MemoryForgotten
	case m.SupersededBy != nil:
		return MemorySuperseded
	case len(m.Conflicts) > 0:
		return MemoryDisputed
	}
	return MemoryCurrent
}
