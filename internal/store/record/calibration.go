package record

import "time"

// CalibrationEntry is one row of the calibration log: the confidence a
// claim had before its outcome, and the outcome.
type CalibrationEntry struct {
	ID          int64
	ClaimID     string
	ProjectPath string
	SessionID   string
	Predicted   float64
	Outcome     string // VERIFIED, ROBUST, REJECTED, ARTIFACT, CONFOUNDED
	R2Verdict   string
	Stage       *int
	At          time.Time
}

// PatternCount is how often one thing happened: a bug-fix summary, a gate
// that failed.
type PatternCount struct {
	Key   string
	Count int
}
