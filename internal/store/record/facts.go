package record

// ClaimState is a claim's latest event in a session.
type ClaimState struct {
	ClaimID    string
	EventType  string
	NewStatus  string
	Confidence *float64
	KillReason string
	Narrative  string
}

// GateOutcome is one recorded gate run.
type GateOutcome struct {
	GateID  string
	ClaimID string
	Status  string
	Details string
}

// SessionFacts is everything the narrative template needs about a session,
// read in one pass.
type SessionFacts struct {
	SessionID   string
	ProjectPath string
	Actions     map[string]int
	Total       int
	Claims      []ClaimState  // latest event per claim, by claim id
	Gates       []GateOutcome // in time order
	Corrections []SpineEntry  // BUG_FIX and DESIGN_CHANGE entries, in time order
	Literature  []string      // queries, in time order
}
