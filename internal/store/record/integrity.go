package record

import "time"

// ThresholdChange is one recorded change of a domain threshold: Key moved
// from Old to New at At, Bps basis points relative to Old. Direction is
// lower_looser, higher_looser or unknown; SourceRef names the file and tool
// call that made it.
type ThresholdChange struct {
	ID           int64
	ProjectPath  string
	Domain       string
	Key          string
	Old          float64
	New          float64
	Bps          int
	Loosens      bool
	AfterFailure bool
	Direction    string
	At           time.Time
	SourceRef    string
}

// GateFailure is one FAIL row of gate_checks.
type GateFailure struct {
	GateID  string
	ClaimID string
	At      time.Time
}
