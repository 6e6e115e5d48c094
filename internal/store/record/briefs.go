package record

import (
	"encoding/json"
	"time"
)

// BriefVersion is one ingested version of a project's research brief.
// Content is the parsed brief as JSON (anchors pinned at ingest); the counts
// let a history be listed without decoding it.
type BriefVersion struct {
	ID          int64
	ProjectPath string
	SourcePath  string
	Hash        string
	Title       string
	Content     json.RawMessage
	Constraints int
	Decisions   int
	Anchors     int
	IngestedAt  time.Time
}
