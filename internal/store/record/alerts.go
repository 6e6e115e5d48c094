package record

import "time"

// Alert levels, from the mildest. HALT denies writes at PreToolUse until the
// alert is resolved.
const (
	AlertInfo = "INFO"
	AlertWarn = "WARN"
	AlertHalt = "HALT"
)

// Who resolved an alert: the prefix of its resolution text. A person (or
// Claude) runs `vibe alerts resolve`; the observer resolves an alert itself
// when its condition has cleared.
const (
	ResolvedByUser     = "user"
	ResolvedByObserver = "observer"
)

// Alert is one observer alert.
type Alert struct {
	ID          int64
	ProjectPath string
	SessionID   string
	Check       string
	Level       string
	Message     string
	Fingerprint string
	Resolved    bool
	ResolvedAt  *time.Time
	// Resolution is "user: <note>" or "observer: <why>".
	Resolution string
	CreatedAt  time.Time
}

// NewAlert is an alert to raise.
type NewAlert struct {
	ProjectPath string
	SessionID   string
	Check       string
	Level       string
	Message     string
	Fingerprint string
	At          time.Time
}

// AlertFilter selects alerts.
type AlertFilter struct {
	Project string // "" = every project
	// IncludeResolved lists resolved alerts too (after the open ones).
	IncludeResolved bool
	Level           string // "" = every level
	Limit           int    // <= 0 means 100
}

// AlertCounts are a project's open alerts per level.
type AlertCounts struct {
	Halt, Warn, Info int
}

// Total is the number of open alerts.
func (c AlertCounts) Total() int { return c.Halt + c.Warn + c.Info }

// ActionStamp is a spine entry's action type and time.
type ActionStamp struct {
	ActionType string
	At         time.Time
}
