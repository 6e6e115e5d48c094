package calibrate

import (
	"context"
	"testing"

	"github.com/vibe-science/vibe/internal/claim"
	"github.com/vibe-science/vibe/internal/store"
)

func TestOutcomeFor(t *testing.T) {
	ev := func(typ, old, reason string) claim.Event {
		return claim.Event{ClaimID: "C-001", Type: typ, OldStatus: old, KillReason: reason}
	}
	tests := []struct {
		name    string
		ev      claim.Event
		harness string
		want    string
		ok      bool
	}{
		{"verified", ev(claim.EventVerified, claim.StatusPromoted, ""), "", OutcomeVerified, true},
		{"verified, robust harness", ev(claim.EventVerified, claim.StatusPromoted, ""), "ROBUST", OutcomeRobust, true},
		{"verified out of a dispute", ev(claim.EventVerified, claim.StatusDisputed, ""), "", OutcomeVerified, true},
		{"dispute resolved for the claim", ev(claim.EventPromoted, claim.StatusDisputed, ""), "", OutcomeRobust, true},
		{"plain promotion", ev(claim.EventPromoted, claim.StatusProvisional, ""), "", "", false},
		{"killed artifact", ev(claim.EventKilled, claim.StatusPromoted, claim.KillArtifact), "", OutcomeArtifact, true},
		{"killed confounded", ev(claim.EventKilled, claim.StatusDisputed, claim.KillConfounded), "", OutcomeConfounded, true},
		{"killed insufficient", ev(claim.EventKilled, claim.StatusPromoted, claim.KillInsufficientEvidence), "", OutcomeRejected, true},
		{"killed logically false", ev(claim.EventKilled, "", claim.KillLogicallyFalse), "", OutcomeRejected, true},
		{"killed premature", ev(claim.EventKilled, "", claim.KillPremature), "", OutcomeRejected, true},
		{"killed, no reason", ev(claim.EventKilled, "", ""), "", OutcomeRejected, true},
		{"disputed", ev(claim.EventDisputed, claim.StatusPromoted, ""), "", "", false},
		{"created", ev(claim.EventCreated, "", ""), "", "", false},
		{"reopened", ev(claim.EventReopened, claim.StatusKilled, ""), "", "", false},
		{"confidence", ev(claim.EventConfidenceUpdated, "", ""), "", "", false},
	}
	for _, tt := range tests {
		got, ok := OutcomeFor(tt.ev, tt.harness)
		if got != tt.want || ok != tt.ok {
			t.Errorf("%s: %q %v, want %q %v", tt.name, got, ok, tt.want, tt.ok)
		}
	}
	if !Held(OutcomeVerified) || !Held(OutcomeRobust) || Held(OutcomeRejected) || Held(OutcomeArtifact) || Held(OutcomeConfounded) {
		t.Error("Held")
	}
}

func TestRecordOutcomePrediction(t *testing.T) {
	ctx := context.Background()
	st := openStore(t)
	startSession(t, st, "s1", "/p", t0)
	if _, err := st.DB().Exec(`INSERT INTO claim_events (claim_id, session_id, project_path, event_type, confidence, ts)
VALUES ('C-002', 's1', '/p', 'CONFIDENCE_UPDATED', 0.65, 1)`); err != nil {
		t.Fatal(err)
	}
	killed := func(id string, conf float64, has bool) claim.Event {
		return claim.Event{ClaimID: id, Type: claim.EventKilled, KillReason: claim.KillConfounded, Confidence: conf, HasConfidence: has}
	}
	tests := []struct {
		name    string
		r       Resolution
		added   bool
		predict float64
	}{
		{"old ledger confidence", Resolution{Event: killed("C-001", 0.1, true),
			Before: &claim.Claim{ID: "C-001", Confidence: 0.7, HasConfidence: true}, Stage: 3, R2Verdict: "REJECT"}, true, 0.7},
		{"old ledger without confidence: the last event's", Resolution{Event: killed("C-002", 0.1, true),
			Before: &claim.Claim{ID: "C-002"}}, true, 0.65},
		{"new claim: the outcome's own confidence", Resolution{Event: claim.Event{ClaimID: "C-003", Type: claim.EventVerified,
			Confidence: 0.8, HasConfidence: true}, Harness: "ROBUST"}, true, 0.8},
		{"no confidence anywhere: nothing to score", Resolution{Event: killed("C-004", 0, false)}, false, 0},
		{"not an outcome", Resolution{Event: claim.Event{ClaimID: "C-005", Type: claim.EventCreated, Confidence: 0.5, HasConfidence: true}}, false, 0},
	}
	for _, tt := range tests {
		var added bool
		err := st.Tx(ctx, func(tx *store.Tx) error {
			var err error
			added, err = RecordOutcome(ctx, tx, "/p", "s1", tt.r, t0)
			return err
		})
		if err != nil || added != tt.added {
			t.Errorf("%s: added %v err %v, want %v", tt.name, added, err, tt.added)
		}
	}
	es, _ := st.CalibrationEntries(ctx, "/p")
	if len(es) != 3 {
		t.Fatalf("%d entries", len(es))
	}
	if e := es[0]; e.Predicted != 0.7 || e.Outcome != OutcomeConfounded || e.Stage == nil || *e.Stage != 3 || e.R2Verdict != "REJECT" {
		t.Errorf("first %+v", e)
	}
	if es[1].Predicted != 0.65 || es[2].Predicted != 0.8 || es[2].Outcome != OutcomeRobust || es[2].Stage != nil {
		t.Errorf("others %+v %+v", es[1], es[2])
	}
}
