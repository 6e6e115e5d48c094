package record

import "time"

// ClaimEvent is one change in a claim's life.
type ClaimEvent struct {
	ClaimID    string
	Type       string
	OldStatus  string
	NewStatus  string
	Confidence *float64
	R2Verdict  string
	KillReason string
	GateID     string
	Narrative  string
	SourceRef  string
}

// ClaimEventRecord is a recorded claim event with where and when.
type ClaimEventRecord struct {
	ClaimEvent
	ID        int64
	SessionID string
	At        time.Time
}
