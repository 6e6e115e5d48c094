package record

import "time"

// AdvisoryContext places a verdict: which session, project, event and call.
type AdvisoryContext struct {
	SessionID   string
	ProjectPath string
	Event       string
	ToolUseID   string
	// Tool is the call's tool ("" for events that are not about a call).
	Tool string `json:",omitempty"`
	At   time.Time
}

// The decisions a hook makes of a verdict, as its reply told the client.
const (
	// DecisionDeny: PreToolUse refused the call.
	DecisionDeny = "deny"
	// DecisionBlock: PostToolUse or Stop blocked the turn.
	DecisionBlock = "block"
	// DecisionAsk: PreToolUse asked the user before the call.
	DecisionAsk = "ask"
	// DecisionWarn: Claude or the user was told; nothing was stopped.
	DecisionWarn = "warn"
	// DecisionRecorded: recorded only (a PASS, or an ask a deny overrode).
	DecisionRecorded = "recorded"
)

// DecisionKinds are the decisions, hardest first.
var DecisionKinds = []string{DecisionDeny, DecisionBlock, DecisionAsk, DecisionWarn, DecisionRecorded}

// Decided is what a hook did with one verdict, and the file the verdict
// was about (project-relative when inside the project).
type Decided struct {
	Kind string `json:"kind"`
	File string `json:"file,omitempty"`
}

// Decision is one recorded verdict with what its hook did with it: what
// `vibe decisions`, the viewer and RECORD.md list.
type Decision struct {
	ID          int64
	SessionID   string
	ProjectPath string
	// Event is the hook's event (PreToolUse, PostToolUse, Stop...).
	Event     string
	ToolUseID string
	Tool      string
	File      string
	Check     string
	// Result is the verdict's (PASS, WARN, BLOCK, HARD_BLOCK); Severity too.
	Result   string
	Severity string
	// Kind is one of DecisionKinds ("" for a verdict recorded by a vibe
	// older than the hook_decisions table after it was created).
	Kind           string
	Reason         string
	Recommendation string
	// Paths and Claims are the verdict's evidence.
	Paths        []string
	Claims       []string
	DecisionHash string
	At           time.Time
}

// DecisionFilter selects recorded decisions, newest first.
type DecisionFilter struct {
	Project string // "" = every project
	Session string // "" = every session
	// Kinds keeps these decisions; empty keeps every one but
	// DecisionRecorded.
	Kinds []string
	// Checks keeps the verdicts of these checks (all when empty).
	Checks []string
	// Claim keeps the verdicts whose evidence names this claim.
	Claim string
	// Since, when not zero, keeps decisions made at or after it.
	Since time.Time
	Limit int // <= 0 means 50
}
