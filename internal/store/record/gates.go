package record

import "time"

// GateInput is one file a gate read: its path (project-relative when it is
// inside the project) and the SHA-256 of its content, empty when the file
// could not be read, so a later reader can tell whether the file changed
// since the gate judged it.
type GateInput struct {
	Path   string `json:"path"`
	SHA256 string `json:"sha256,omitempty"`
}

// GateStatus is a gate's outcome as recorded in gate_checks.
type GateStatus string

// The statuses, from harmless to failing.
const (
	GatePass GateStatus = "PASS"
	GateWarn GateStatus = "WARN"
	GateFail GateStatus = "FAIL"
)

// GateItem is one check inside a gate's result: its name, status, the fact
// it found (Detail) and, for a check that did not pass, what to do (Fix).
type GateItem struct {
	Name   string     `json:"name"`
	Status GateStatus `json:"status"`
	Detail string     `json:"detail"`
	Fix    string     `json:"fix,omitempty"`
}

// GateResult is a gate's computed outcome as it is recorded: the gate, the
// worst status of its checks, the checks and, for DQ4, the reported numbers
// that matched nothing. The gate package builds it (gate.Result.Record).
type GateResult struct {
	Gate    string
	Status  GateStatus
	Checks  []GateItem
	Numbers []string
}

// GateCheck is one computed gate result to record.
type GateCheck struct {
	// Session is Claude's session id; "" records NULL (a run from the CLI
	// outside a session). A session must already have its row.
	Session string
	Project string
	// ClaimID is the claim the gate was run for; "" records NULL.
	ClaimID string
	Result  GateResult
	Inputs  []GateInput
	At      time.Time
}

// GateRecord is one recorded gate check.
type GateRecord struct {
	ID      int64
	Session string
	Project string
	GateID  string
	ClaimID string
	Status  GateStatus
	// Passed, Warned and Failed count the result's checks by status.
	Passed, Warned, Failed int
	Checks                 []GateItem
	Numbers                []string
	Inputs                 []GateInput
	DecisionHash           string
	At                     time.Time
}
