package record

import "time"

// ClaimSummary is one claim as its events leave it.
type ClaimSummary struct {
	ClaimID string
	// Status is the latest event's new status ("" when no event set one).
	Status string
	// Confidence is the latest confidence an event recorded (nil: none).
	Confidence *float64
	Events     int
	FirstAt    time.Time
	LastAt     time.Time
}

// SpineQuery selects a page of spine entries for the viewer.
type SpineQuery struct {
	Project    string
	Session    string // "" = every session
	Tool       string // "" = every tool
	ActionType string // "" = every action
	// Search keeps entries whose input or output summary contains it
	// (case-insensitive for ASCII).
	Search string
	// BeforeID pages back: only entries with a smaller id (0 = from the newest).
	BeforeID int64
	// AfterID bounds the scan: only entries with a larger id (0 = none). A
	// filter or a search that matches little would otherwise read the whole
	// spine for one page.
	AfterID int64
	Limit   int // <= 0 means 100
}

// NameCount is a name and how often it occurs.
type NameCount struct {
	Name  string
	Count int
}

// SpineCount is how many spine entries have one tool and action type.
type SpineCount struct {
	Tool, Action string
	Count        int
}

// GateSummary counts one gate's recorded results.
type GateSummary struct {
	GateID           string
	Pass, Warn, Fail int
	LastStatus       string
	LastAt           time.Time
}

// MemoryQuery selects a page of a project's memories for the viewer,
// newest recorded first (by id).
type MemoryQuery struct {
	Project string
	Kind    string // "" = every kind
	// State is one of MemoryStates; "" = every one but forgotten.
	State string
	// BeforeID pages back: only memories with a smaller id (0 = from the
	// newest).
	BeforeID int64
	Limit    int // <= 0 means 100
}

// MemoryCounts are a project's memories counted by kind (forgotten ones
// left out) and by state.
type MemoryCounts struct {
	Kinds  []NameCount
	States []NameCount
}
