package calibrate

import (
	"context"
	"errors"
	"math"
	"testing"

	"github.com/vibe-science/vibe/internal/claim"
	"github.com/vibe-science/vibe/internal/store/record"
)

// fakeLog is an in-memory review table and calibration log: its own
// transaction, newest review first, and an error to inject.
type fakeLog struct {
	reviews []record.R2Review
	entries []record.CalibrationEntry
	last    map[string]float64 // claim id → last confidence in its claim events
	err     error
}

func (f *fakeLog) Tx(ctx context.Context, fn func(*fakeLog) error) error { return fn(f) }

func (f *fakeLog) UpsertReview(ctx context.Context, r record.R2Review) (string, error) {
	if f.err != nil {
		return "", f.err
	}
	f.reviews = append([]record.R2Review{r}, f.reviews...)
	return r.ReviewID, nil
}

func (f *fakeLog) RecentReviews(ctx context.Context, project string, limit int) ([]record.R2Review, error) {
	var out []record.R2Review
	for _, r := range f.reviews {
		if r.ProjectPath == project && len(out) < limit {
			out = append(out, r)
		}
	}
	return out, f.err
}

func (f *fakeLog) LastClaimConfidence(ctx context.Context, project, claimID string) (float64, bool, error) {
	c, ok := f.last[claimID]
	return c, ok, f.err
}

func (f *fakeLog) AddCalibration(ctx context.Context, e record.CalibrationEntry) (bool, error) {
	f.entries = append(f.entries, e)
	return true, f.err
}

func (f *fakeLog) CalibrationEntries(ctx context.Context, project string) ([]record.CalibrationEntry, error) {
	return f.entries, f.err
}

// TestReviewsAndOutcomesOnAFake records V0 files and claim outcomes into the
// in-memory fake and reads the hint and the calibration score back: the
// parsing, the prediction rule and the scoring run without a database file.
func TestReviewsAndOutcomesOnAFake(t *testing.T) {
	ctx := context.Background()
	f := &fakeLog{last: map[string]float64{"C-002": 0.65}}
	if _, err := RecordReport(ctx, f, "/p", "s1", "05-reviewer2/V0-R2-1.json", []byte(vigilance("R2-1", "!SFI-01a", "SFI-03a")), t0); err != nil {
		t.Fatal(err)
	}
	if _, err := RecordReport(ctx, f, "/p", "s1", "05-reviewer2/V0-R2-3.json", []byte(vigilance("R2-3", "SFI-02a", "SFI-05b")), t0); err != nil {
		t.Fatal(err)
	}
	if r := f.reviews[1]; r.ReviewID != "R2-1" || r.SessionID != "s1" || r.ProjectPath != "/p" || r.SFIInjected != 2 || r.SFICaught != 1 ||
		len(r.SFIMissed) != 1 || r.SFIMissed[0] != "SFI-01a" || r.SourcePath != "05-reviewer2/V0-R2-1.json" {
		t.Errorf("V0-R2-1 recorded as %+v", r)
	}
	hint, err := Hint(ctx, f, "/p")
	want := "[R2 CALIBRATION] Missed planted faults: confounded claim SFI-01 (1×); caught 3/4; plant these first at FORCED reviews."
	if err != nil || hint != want {
		t.Errorf("hint\n got %q (%v)\nwant %q", hint, err, want)
	}
	if hint, _ := Hint(ctx, f, "/elsewhere"); hint != "" {
		t.Errorf("another project's hint: %q", hint)
	}

	killed := claim.Event{ClaimID: "C-002", Type: claim.EventKilled, KillReason: claim.KillConfounded, Confidence: 0.1, HasConfidence: true}
	verified := claim.Event{ClaimID: "C-003", Type: claim.EventVerified, Confidence: 0.8, HasConfidence: true}
	for _, r := range []Resolution{{Event: killed, Before: &claim.Claim{ID: "C-002"}}, {Event: verified, Harness: "ROBUST"}} {
		if added, err := RecordOutcome(ctx, f, "/p", "s1", r, t0); err != nil || !added {
			t.Fatalf("%s: added %v, %v", r.Event.ClaimID, added, err)
		}
	}
	if e := f.entries[0]; e.Predicted != 0.65 || e.Outcome != OutcomeConfounded || e.ClaimID != "C-002" {
		t.Errorf("C-002 predicted from its last claim event: %+v", e)
	}
	c, pts, err := ProjectCalibration(ctx, f, "/p", 10)
	// Brier: ((0.65 − 0)² + (0.8 − 1)²) / 2 = (0.4225 + 0.04) / 2.
	if err != nil || c.N != 2 || len(pts) != 2 || math.Abs(c.Brier-0.23125) > 1e-9 {
		t.Errorf("calibration %+v %v %v, want N 2, Brier 0.23125", c, pts, err)
	}

	f.err = errors.New("disk full")
	if _, err := RecordReport(ctx, f, "/p", "s1", "05-reviewer2/V0-R2-4.json", []byte(vigilance("R2-4", "SFI-02a")), t0); !errors.Is(err, f.err) {
		t.Errorf("a failing write: %v, want it wrapped", err)
	}
	if _, err := Hint(ctx, f, "/p"); !errors.Is(err, f.err) {
		t.Errorf("a failing read: %v, want it wrapped", err)
	}
}
