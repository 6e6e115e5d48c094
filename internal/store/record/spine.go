package record

import "time"

// SpineEntry is one significant action of the research spine.
type SpineEntry struct {
	ID            int64
	SessionID     string
	ProjectPath   string
	At            time.Time
	ActionType    string
	ToolName      string
	ToolUseID     string
	InputSummary  string
	OutputSummary string
	InputSHA256   string
	OutputSHA256  string
	DurationMS    *int64
	AgentRole     string
	AgentType     string
	GateResult    string
}

// Touched is one file a tool call read, wrote or deleted.
type Touched struct {
	Path   string
	Op     string
	SHA256 string
	Size   int64
}

// SpineFilter selects spine entries.
type SpineFilter struct {
	Project    string
	Session    string
	ActionType string
	Tool       string
	Since      time.Time
	Limit      int
}
