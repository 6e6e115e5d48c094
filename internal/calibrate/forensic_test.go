package calibrate

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vibe-science/vibe/internal/claim"
	"github.com/vibe-science/vibe/internal/store"
	"github.com/vibe-science/vibe/internal/store/record"
)

var t0 = time.Date(2026, 1, 14, 9, 0, 0, 0, time.UTC)

func openStore(t *testing.T) *store.Store {
	t.Helper()
	st, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "vibe.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

func startSession(t *testing.T, st *store.Store, id, project string, at time.Time) {
	t.Helper()
	if err := st.Tx(context.Background(), func(tx *store.Tx) error {
		return tx.UpsertSession(context.Background(), record.SessionSeen{ID: id, ProjectPath: project, At: at, Start: true})
	}); err != nil {
		t.Fatal(err)
	}
}

// judgeReport writes a judge report with the given dimension scores, in
// Dimensions order.
func judgeReport(id, review string, scores [6]int, at time.Time) string {
	var dims []string
	total := 0
	for i, d := range Dimensions {
		dims = append(dims, fmt.Sprintf(`%q: {"score": %d, "evidence": "e"}`, d, scores[i]))
		total += scores[i]
	}
	return fmt.Sprintf(`{"judge_report_id": %q, "review_id": %q, "mode": "TEAM", "claims": ["C-001"],
"dimensions": {%s}, "total": %d, "verdict": "FAIL", "feedback_to_r2": "f", "judged_at": %q}`,
		id, review, strings.Join(dims, ", "), total, at.Format(time.RFC3339))
}

// vigilance writes a V0 record; each fault id is caught unless prefixed "!".
func vigilance(review string, faults ...string) string {
	var fs []string
	for i, f := range faults {
		caught := !strings.HasPrefix(f, "!")
		fs = append(fs, fmt.Sprintf(`{"fault_id": %q, "claim_id": "C-9%02d", "caught": %v}`, strings.TrimPrefix(f, "!"), i, caught))
	}
	return fmt.Sprintf(`{"review_id": %q, "seeded_faults": [%s], "real_claims_count": 3, "false_accusations": [],
"metrics": {"injected": 1, "caught": 0, "equivalent": 0, "rms": 0, "far": 0}, "gate_result": "FAIL",
"v0_attempt_number": 1, "checked_at": "2026-01-14T10:00:00Z"}`, review, strings.Join(fs, ", "))
}

func recordReport(t *testing.T, st *store.Store, project, session, rel, content string, at time.Time) Review {
	t.Helper()
	r, err := RecordReport(context.Background(), st, project, session, rel, []byte(content), at)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestForensicD1 is checklist item D1: R2 calibration data recorded in one
// session is loaded at the next SessionStart, for that project only.
func TestForensicD1(t *testing.T) {
	ctx := context.Background()
	st := openStore(t)
	startSession(t, st, "s1", "/p", t0)
	startSession(t, st, "other", "/q", t0)
	for i := 0; i < 3; i++ {
		review := fmt.Sprintf("R2-2026011%d-001", i)
		recordReport(t, st, "/p", "s1", "RQ-001-x/05-reviewer2/"+review+".md", "# R2 review (FORCED)\n## C-001: x\n", t0)
		recordReport(t, st, "/p", "s1", fmt.Sprintf("RQ-001-x/05-reviewer2/judge-reports/J-2026011%d-001.json", i),
			judgeReport(fmt.Sprintf("J-2026011%d-001", i), review, [6]int{2, 2, 2, 2, 2, 2}, t0.Add(time.Duration(i)*time.Hour)), t0)
	}
	// Another project's weak reviews must not leak into /p's hint.
	for i := 0; i < 3; i++ {
		recordReport(t, st, "/q", "other", fmt.Sprintf("05-reviewer2/judge-reports/J-2026020%d-001.json", i),
			judgeReport(fmt.Sprintf("J-2026020%d-001", i), fmt.Sprintf("R2-Q-%d", i), [6]int{0, 0, 0, 0, 0, 0}, t0), t0)
	}
	startSession(t, st, "s2", "/p", t0.Add(24*time.Hour))
	rs, err := st.RecentReviews(ctx, "/p", HintReviews)
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != 3 || rs[0].Mode != "FORCED" || rs[0].J0Score == nil || *rs[0].J0Score != 12 {
		t.Fatalf("reviews loaded for /p: %+v", rs)
	}
	hint, err := Hint(ctx, st, "/p")
	if err != nil {
		t.Fatal(err)
	}
	if want := "[R2 CALIBRATION] J0: early data (3 scored)."; hint != want {
		t.Errorf("hint %q, want %q", hint, want)
	}
}

// TestForensicD2 is checklist item D2: R2's recurring weaknesses (rubric
// dimensions scored 0 or 1) are in the SessionStart hint.
func TestForensicD2(t *testing.T) {
	ctx := context.Background()
	st := openStore(t)
	startSession(t, st, "s1", "/p", t0)
	scores := [][6]int{{2, 0, 1, 2, 2, 2}, {3, 1, 2, 2, 2, 1}, {2, 2, 2, 2, 2, 2}}
	for i, s := range scores {
		recordReport(t, st, "/p", "s1", fmt.Sprintf("05-reviewer2/judge-reports/J-2026011%d-001.json", i),
			judgeReport(fmt.Sprintf("J-2026011%d-001", i), fmt.Sprintf("R2-%d", i), s, t0.Add(time.Duration(i)*time.Hour)), t0)
	}
	hint, err := Hint(ctx, st, "/p")
	if err != nil {
		t.Fatal(err)
	}
	want := "[R2 CALIBRATION] R2 weakest on counter-evidence search (2/3 judged). J0: early data (3 scored)."
	if hint != want {
		t.Errorf("hint\n got %q\nwant %q", hint, want)
	}
}

// TestForensicD3 is checklist item D3: seeded-fault targeting from
// historical catch rates, i.e. the hint names the categories R2 missed most.
func TestForensicD3(t *testing.T) {
	ctx := context.Background()
	st := openStore(t)
	startSession(t, st, "s1", "/p", t0)
	recordReport(t, st, "/p", "s1", "05-reviewer2/V0-R2-1.json", vigilance("R2-1", "!SFI-01a", "SFI-03a"), t0)
	recordReport(t, st, "/p", "s1", "05-reviewer2/V0-R2-2.json", vigilance("R2-2", "!SFI-01b", "!SFI-08a"), t0.Add(time.Hour))
	// The same review's R2 report, recorded after its V0 record, keeps the tally.
	recordReport(t, st, "/p", "s1", "05-reviewer2/R2-2.json",
		`{"review_id": "R2-2", "mode": "FORCED", "claims": [{"claim_id": "C-001"}], "sfi": {"injected": 2, "caught": 0, "missed": ["SFI-01b", "SFI-08a"]}}`, t0)
	recordReport(t, st, "/p", "s1", "05-reviewer2/V0-R2-3.json", vigilance("R2-3", "SFI-02a", "SFI-05b"), t0.Add(2*time.Hour))
	hint, err := Hint(ctx, st, "/p")
	if err != nil {
		t.Fatal(err)
	}
	want := "[R2 CALIBRATION] Missed planted faults: confounded claim SFI-01 (2×), missing control SFI-08 (1×); caught 3/6; plant these first at FORCED reviews."
	if hint != want {
		t.Errorf("hint\n got %q\nwant %q", hint, want)
	}
}

// TestForensicD4 is checklist item D4: researcher error patterns (repeated
// bug fixes, gates that keep failing) are tracked and shown.
func TestForensicD4(t *testing.T) {
	ctx := context.Background()
	st := openStore(t)
	startSession(t, st, "s1", "/p", t0)
	startSession(t, st, "s2", "/p", t0.Add(time.Hour))
	err := st.Tx(ctx, func(tx *store.Tx) error {
		for i, e := range []struct{ session, action, summary string }{
			{"s1", "BUG_FIX", "fix fold split leakage"}, {"s1", "MODEL_TRAIN", "train"},
			{"s2", "BUG_FIX", "fix fold split leakage"}, {"s2", "BUG_FIX", "typo in plot label"},
		} {
			if _, err := tx.AddSpine(ctx, record.SpineEntry{SessionID: e.session, ProjectPath: "/p", At: t0.Add(time.Duration(i) * time.Minute),
				ActionType: e.action, ToolName: "Edit", ToolUseID: fmt.Sprintf("t%d", i), InputSummary: e.summary}, nil); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range []string{"DQ4", "DQ4", "DQ4", "DQ1", "DQ1", "DD0"} {
		if _, err := st.DB().Exec(`INSERT INTO gate_checks (session_id, project_path, gate_id, status, ts) VALUES ('s2', '/p', ?, 'FAIL', 0)`, g); err != nil {
			t.Fatal(err)
		}
	}
	got, err := Patterns(ctx, st, "/p")
	if err != nil {
		t.Fatal(err)
	}
	want := `[RESEARCHER] Same fix made repeatedly: "fix fold split leakage" (2×); its cause may still be there. Gates failing most: DQ4 (3×), DQ1 (2×); change the step upstream, not the threshold.`
	if got != want {
		t.Errorf("patterns\n got %q\nwant %q", got, want)
	}
	if got, _ := Patterns(ctx, st, "/elsewhere"); got != "" {
		t.Errorf("another project: %q", got)
	}
}

// ledger writes a CLAIM-LEDGER.md with one claim per line of "id status
// confidence [kill-reason]".
func ledger(claims ...string) []byte {
	var b strings.Builder
	b.WriteString("# Claim ledger\n")
	for _, c := range claims {
		f := strings.Fields(c)
		fmt.Fprintf(&b, "\n## %s: claim %s\n- status: %s\n- type: descriptive\n- confidence: %s\n", f[0], f[0], f[1], f[2])
		if len(f) > 3 {
			fmt.Fprintf(&b, "- kill-reason: %s\n- salvaged-seed: SEED-20260114-001\n", f[3])
		}
	}
	return []byte(b.String())
}

// TestForensicD6 is checklist item D6: the calibration log is active. A
// ledger edit that verifies and kills claims records each outcome with the
// confidence the claim had before it; with 10 outcomes the Brier score and
// ECE are the hand-computed ones of handPoints.
func TestForensicD6(t *testing.T) {
	ctx := context.Background()
	st := openStore(t)
	startSession(t, st, "s1", "/p", t0)
	before := ledger("C-001 PROMOTED 0.9", "C-002 PROMOTED 0.8", "C-003 PROMOTED 0.8", "C-004 PROMOTED 0.7",
		"C-005 PROMOTED 0.6", "C-006 PROVISIONAL 0.3", "C-007 PROVISIONAL 0.2", "C-008 PROVISIONAL 0.2",
		"C-009 PROVISIONAL 0.1", "C-010 PROMOTED 0.95", "C-011 PROVISIONAL 0.5")
	// Outcomes come with new confidences; the prediction is the old one.
	after := ledger("C-001 VERIFIED 0.97", "C-002 VERIFIED 0.9", "C-003 KILLED 0.05 CONFOUNDED", "C-004 VERIFIED 0.8",
		"C-005 KILLED 0.1 ARTIFACT", "C-006 KILLED 0.1 INSUFFICIENT_EVIDENCE", "C-007 KILLED 0 LOGICALLY_FALSE",
		"C-008 VERIFIED 0.6", "C-009 KILLED 0 PREMATURE", "C-010 VERIFIED 0.99", "C-011 DISPUTED 0.4")
	old, errs := claim.ParseLedger(before)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	cur, errs := claim.ParseLedger(after)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	recordAll := func(at time.Time) int {
		n := 0
		if err := st.Tx(ctx, func(tx *store.Tx) error {
			for _, ev := range claim.Diff(old, cur) {
				var prev *claim.Claim
				if c, ok := old.Find(ev.ClaimID); ok {
					prev = &c
				}
				added, err := RecordOutcome(ctx, tx, "/p", "s1", Resolution{Event: ev, Before: prev}, at)
				if err != nil {
					return err
				}
				if added {
					n++
				}
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n := recordAll(t0); n != 10 {
		t.Fatalf("recorded %d outcomes, want 10 (C-011's dispute is not an outcome)", n)
	}
	if n := recordAll(t0.Add(time.Minute)); n != 0 {
		t.Errorf("the same edit again recorded %d more", n)
	}
	es, err := st.CalibrationEntries(ctx, "/p")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range es {
		got = append(got, fmt.Sprintf("%s %g %s", e.ClaimID, e.Predicted, e.Outcome))
	}
	want := []string{"C-001 0.9 VERIFIED", "C-002 0.8 VERIFIED", "C-003 0.8 CONFOUNDED", "C-004 0.7 VERIFIED",
		"C-005 0.6 ARTIFACT", "C-006 0.3 REJECTED", "C-007 0.2 REJECTED", "C-008 0.2 VERIFIED", "C-009 0.1 REJECTED",
		"C-010 0.95 VERIFIED"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("log:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	c, pts, err := ProjectCalibration(ctx, st, "/p", 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(pts) != MinOutcomes || !near(c.Brier, 0.19225) || !near(c.ECE, 0.265) {
		t.Errorf("n %d brier %.17g ece %.17g", len(pts), c.Brier, c.ECE)
	}
}
