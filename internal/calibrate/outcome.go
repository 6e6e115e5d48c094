package calibrate

import (
	"context"
	"fmt"
	"time"

	"github.com/vibe-science/vibe/internal/claim"
	"github.com/vibe-science/vibe/internal/store/record"
)

// The outcomes of the calibration log (calibration_log.actual_outcome).
// VERIFIED and ROBUST count as a claim that held (1), the others as one
// that fell (0).
const (
	OutcomeVerified   = "VERIFIED"
	OutcomeRobust     = "ROBUST"
	OutcomeRejected   = "REJECTED"
	OutcomeArtifact   = "ARTIFACT"
	OutcomeConfounded = "CONFOUNDED"
)

// Held reports whether an outcome means the claim held.
func Held(outcome string) bool { return outcome == OutcomeVerified || outcome == OutcomeRobust }

// OutcomeFor maps a claim event to a final outcome, and reports false for
// an event that is not one:
//
//	VERIFIED                                  → VERIFIED, or ROBUST when the
//	                                            confounder harness said ROBUST
//	PROMOTED from DISPUTED (dispute resolved
//	in the claim's favour)                    → ROBUST
//	KILLED, ARTIFACT                          → ARTIFACT
//	KILLED, CONFOUNDED                        → CONFOUNDED
//	KILLED, INSUFFICIENT_EVIDENCE,
//	LOGICALLY_FALSE, PREMATURE or no reason   → REJECTED
//
// CREATED, PROMOTED (other than from DISPUTED), DISPUTED, REOPENED and
// confidence updates are not outcomes. A dispute resolved against the claim
// arrives as its KILLED or VERIFIED event.
func OutcomeFor(ev claim.Event, harness string) (string, bool) {
	switch ev.Type {
	case claim.EventVerified:
		if harness == OutcomeRobust {
			return OutcomeRobust, true
		}
		return OutcomeVerified, true
	case claim.EventPromoted:
		if ev.OldStatus == claim.StatusDisputed {
			return OutcomeRobust, true
		}
	case claim.EventKilled:
		switch ev.KillReason {
		case claim.KillArtifact:
			return OutcomeArtifact, true
		case claim.KillConfounded:
			return OutcomeConfounded, true
		}
		return OutcomeRejected, true
	}
	return "", false
}

// Resolution is a claim event that may be an outcome, with what the caller
// knows around it.
type Resolution struct {
	Event claim.Event
	// Before is the claim as the ledger held it before the edit (nil for a
	// claim created by the edit); its confidence is the prediction.
	Before *claim.Claim
	// Harness is the confounder-harness result (ROBUST, CONFOUNDED, …) when
	// an R2 report gave one.
	Harness   string
	R2Verdict string
	// Stage is the OTAE stage at resolution; 0 when unknown.
	Stage int
}

// RecordOutcome appends an outcome to the calibration log when r's event
// is one, inside the caller's transaction (the one that records the claim
// events). The predicted confidence is the one the claim had before the
// outcome: the old ledger's, else the latest recorded in its claim events,
// else the confidence written with the outcome. Without any confidence
// nothing is recorded, since there is no prediction to score. It reports
// whether a row was added (the same outcome twice in a row is recorded
// once).
func RecordOutcome(ctx context.Context, tx OutcomeWriter, project, session string, r Resolution, now time.Time) (bool, error) {
	outcome, ok := OutcomeFor(r.Event, r.Harness)
	if !ok {
		return false, nil
	}
	var p float64
	var have bool
	if r.Before != nil && r.Before.HasConfidence {
		p, have = r.Before.Confidence, true
	}
	if !have {
		c, found, err := tx.LastClaimConfidence(ctx, project, r.Event.ClaimID)
		if err != nil {
			return false, fmt.Errorf("record outcome of %s: %w", r.Event.ClaimID, err)
		}
		p, have = c, found
	}
	if !have && r.Event.HasConfidence {
		p, have = r.Event.Confidence, true
	}
	if !have {
		return false, nil
	}
	e := record.CalibrationEntry{ClaimID: r.Event.ClaimID, ProjectPath: project, SessionID: session,
		Predicted: clamp01(p), Outcome: outcome, R2Verdict: r.R2Verdict, At: now}
	if r.Stage > 0 {
		s := r.Stage
		e.Stage = &s
	}
	added, err := tx.AddCalibration(ctx, e)
	if err != nil {
		return false, fmt.Errorf("record outcome of %s: %w", r.Event.ClaimID, err)
	}
	return added, nil
}

func clamp01(p float64) float64 {
	if p < 0 {
		return 0
	}
	if p > 1 {
		return 1
	}
	return p
}
