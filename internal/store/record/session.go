package record

import "time"

// Session is one Claude Code session, keyed by Claude's session_id.
type Session struct {
	ID               string
	ProjectPath      string
	StartedAt        time.Time
	LastSeenAt       time.Time
	EndedAt          *time.Time
	EndReason        string
	StartCount       int
	LastSource       string
	NarrativeSummary string
	NarrativeTurn    string
	TotalActions     int
	ClaimsCreated    int
	ClaimsKilled     int
	GatesPassed      int
	GatesFailed      int
	StopBlocks       int
}

// SessionSeen is what every hook knows about its session.
type SessionSeen struct {
	ID          string
	ProjectPath string
	At          time.Time
	// Start marks a SessionStart (startup, resume, clear, compact, fork):
	// it counts the start and re-opens an ended session.
	Start          bool
	Source         string
	TranscriptPath string
	// Client is the agent client ("codex", "gemini"); empty for Claude Code
	// and leaves a recorded client as it is.
	Client string
}

// SessionSummary is a narrative written at Stop (checkpoint) or SessionEnd
// (final).
type SessionSummary struct {
	ID        string
	Narrative string
	Turn      string // prompt_id the checkpoint belongs to
	Counts    SessionCounts
	EndedAt   *time.Time
	EndReason string
}

// SessionCounts are the blueprint's per-session counters.
type SessionCounts struct {
	TotalActions, ClaimsCreated, ClaimsKilled, GatesPassed, GatesFailed int
}
