package record

import "time"

// AdvisoryContext places a verdict: which session, project, event and call.
type AdvisoryContext struct {
	SessionID   string
	ProjectPath string
	Event       string
	ToolUseID   string
	At          time.Time
}
