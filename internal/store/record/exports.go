package record

import "time"

// PendingSeed is a serendipity seed still waiting for a decision.
type PendingSeed struct {
	SeedID          string
	Status          string
	CausalQuestion  string
	SessionsPending int
	Escalated       bool
}

// SpineMark is how far a project's SPINE.md export has got: the last spine
// id written and the session and day of that entry (so the next export knows
// whether to open a new heading).
type SpineMark struct {
	LastID  int64  `json:"last_id"`
	Session string `json:"session"`
	Day     string `json:"day"`
}

// GateState is the latest recorded result of one gate, for one claim or for
// none.
type GateState struct {
	GateID  string
	ClaimID string
	Status  string
	At      time.Time
}
