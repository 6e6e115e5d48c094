package store

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/vibe-science/vibe/internal/store/record"
)

// reviewSession records a session so rows that reference it can be added.
func reviewSession(t *testing.T, s *Store, id, project string, at time.Time) {
	t.Helper()
	if err := s.Tx(context.Background(), func(tx *Tx) error {
		return tx.UpsertSession(context.Background(), record.SessionSeen{ID: id, ProjectPath: project, At: at, Start: true})
	}); err != nil {
		t.Fatal(err)
	}
}

func upsertReview(t *testing.T, s *Store, r record.R2Review) string {
	t.Helper()
	var key string
	if err := s.Tx(context.Background(), func(tx *Tx) error {
		var err error
		key, err = tx.UpsertReview(context.Background(), r)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	return key
}

func TestUpsertReviewMergesTheFilesOfOneReview(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	reviewSession(t, s, "s1", "/p", t0)
	thirteen := 13

	// The judge report arrives first: mode unknown, its claims fill the list.
	upsertReview(t, s, record.R2Review{ReviewID: "R2-1", SessionID: "s1", ProjectPath: "/p", Claims: []string{"C-007"},
		ClaimsWeak: true, J0Score: &thirteen, J0Dimensions: map[string]int{"specificity": 3, "escalation": 1},
		Weaknesses: []string{"escalation"}, SourcePath: "RQ-001/05-reviewer2/judge-reports/J-1.json", At: t0})
	// Then the R2 report: its mode, claims and tally win; the judge's parts stay.
	upsertReview(t, s, record.R2Review{ReviewID: "R2-1", SessionID: "s1", ProjectPath: "/p", Mode: "FORCED",
		Claims: []string{"C-006", "C-007"}, SFIKnown: true, SFIInjected: 2, SFICaught: 1, SFIMissed: []string{"SFI-01a"},
		SourcePath: "RQ-001/05-reviewer2/R2-1.json", At: t0.Add(time.Minute)})
	// The judge file recorded again changes nothing: its weak claims do not
	// replace the report's, and without a tally the tally stays.
	upsertReview(t, s, record.R2Review{ReviewID: "R2-1", SessionID: "s1", ProjectPath: "/p", Claims: []string{"C-007"},
		ClaimsWeak: true, J0Score: &thirteen, J0Dimensions: map[string]int{"specificity": 3, "escalation": 1},
		Weaknesses: []string{"escalation"}, At: t0.Add(2 * time.Minute)})

	got, err := s.RecentReviews(ctx, "/p", 20)
	if err != nil {
		t.Fatal(err)
	}
	want := []record.R2Review{{ReviewID: "R2-1", SessionID: "s1", ProjectPath: "/p", Mode: "FORCED",
		Claims: []string{"C-006", "C-007"}, J0Score: &thirteen, J0Dimensions: map[string]int{"specificity": 3, "escalation": 1},
		SFIKnown: true, SFIInjected: 2, SFICaught: 1, SFIMissed: []string{"SFI-01a"}, Weaknesses: []string{"escalation"},
		SourcePath: "RQ-001/05-reviewer2/judge-reports/J-1.json", At: t0}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("reviews:\n got %+v\nwant %+v", got, want)
	}
}

func TestUpsertReviewModeStaysUnknownUntilTheReport(t *testing.T) {
	s := openTest(t)
	reviewSession(t, s, "s1", "/p", t0)
	upsertReview(t, s, record.R2Review{ReviewID: "R2-2", SessionID: "s1", ProjectPath: "/p", At: t0})
	got, err := s.RecentReviews(context.Background(), "/p", 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].Mode != record.ReviewModeUnknown || len(got[0].Claims) != 0 || got[0].SFIKnown || got[0].J0Score != nil {
		t.Errorf("got %+v", got)
	}
}

func TestUpsertReviewSameIDInTwoProjects(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	reviewSession(t, s, "s1", "/a", t0)
	reviewSession(t, s, "s2", "/b", t0)
	if k := upsertReview(t, s, record.R2Review{ReviewID: "R2-9", SessionID: "s1", ProjectPath: "/a", Mode: "BATCH", At: t0}); k != "R2-9" {
		t.Errorf("first key %q", k)
	}
	// sha256("/b")[:4] in hex.
	kb := upsertReview(t, s, record.R2Review{ReviewID: "R2-9", SessionID: "s2", ProjectPath: "/b", Mode: "FORCED", At: t0})
	if kb != "R2-9@9812b0b9" {
		t.Errorf("second key %q", kb)
	}
	if again := upsertReview(t, s, record.R2Review{ReviewID: "R2-9", SessionID: "s2", ProjectPath: "/b", Mode: "INLINE", At: t0}); again != kb {
		t.Errorf("second key again %q, want %q", again, kb)
	}
	a, _ := s.RecentReviews(ctx, "/a", 0)
	b, _ := s.RecentReviews(ctx, "/b", 0)
	if len(a) != 1 || a[0].Mode != "BATCH" || len(b) != 1 || b[0].Mode != "INLINE" || b[0].ReviewID != kb {
		t.Errorf("a %+v\nb %+v", a, b)
	}
}

func TestRecentReviewsNewestFirstAndLimited(t *testing.T) {
	s := openTest(t)
	reviewSession(t, s, "s1", "/p", t0)
	for i, id := range []string{"R2-a", "R2-b", "R2-c"} {
		upsertReview(t, s, record.R2Review{ReviewID: id, SessionID: "s1", ProjectPath: "/p", Mode: "BATCH", At: t0.Add(time.Duration(i) * time.Hour)})
	}
	got, err := s.RecentReviews(context.Background(), "/p", 2)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, r := range got {
		ids = append(ids, r.ReviewID)
	}
	if !reflect.DeepEqual(ids, []string{"R2-c", "R2-b"}) {
		t.Errorf("ids %v", ids)
	}
}
