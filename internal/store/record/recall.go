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
	// Of the Conflicts not forgotten, where each stands against this one
	// (Outranks: trust, then recency). SupersededBy is the newest that is
	// newer and at least as trusted: recall ranks this one down and points
	// there. Disputes is the newest that is older and more trusted: it
	// stays current, and this one is ranked down as disputing it.
	// DisputedBy are those newer and less trusted, newest first: this one
	// stays current, and recall says who disputes it.
	SupersededBy *int64
	Disputes     *int64
	DisputedBy   []int64
	CreatedAt    time.Time
}

// OutrankedBy is the memory recall ranks m below: the one that supersedes
// it, else the better-sourced one it disputes; nil when m stands.
func (m MemoryRecord) OutrankedBy() *int64 {
	if m.SupersededBy != nil {
		return m.SupersededBy
	}
	return m.Disputes
}

// MemoryHead is what SessionStart ranks a memory by (kind, age, trust,
// whether it is outranked), without its text and links: it reads the full
// record only for the few it keeps.
type MemoryHead struct {
	ID    int64
	Kind  string
	Trust float64
	// OutrankedBy is MemoryRecord.OutrankedBy, as the store keeps it on
	// the row (superseded_by).
	OutrankedBy *int64
	CreatedAt   time.Time
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
	MemoryDisputing  = "disputing"
	MemorySuperseded = "superseded"
	MemoryForgotten  = "forgotten"
)

// MemoryStates are the states, in the order they are listed.
var MemoryStates = []string{MemoryCurrent, MemoryDisputed, MemoryDisputing, MemorySuperseded, MemoryForgotten}

// State is where m stands: forgotten; superseded (a newer memory, at least
// as trusted, contradicts it: recall ranks it down); disputing (it
// contradicts an older, better-sourced memory, which stays current: recall
// ranks it down); disputed (it contradicts another memory and stands);
// else current.
func (m MemoryRecord) State() string {
	switch {
	case m.Forgotten:
		return MemoryForgotten
	case m.SupersededBy != nil:
		return MemorySuperseded
	case m.Disputes != nil:
		return MemoryDisputing
	case len(m.Conflicts) > 0:
		return MemoryDisputed
	}
	return MemoryCurrent
}
