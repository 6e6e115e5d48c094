package store

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/vibe-science/vibe/internal/store/record"
)

func upsertSeed(t *testing.T, s *Store, r record.SeedRecord, session string, at time.Time) bool {
	t.Helper()
	var created bool
	if err := s.Tx(context.Background(), func(tx *Tx) error {
		var err error
		created, err = tx.UpsertSeed(context.Background(), r, session, at)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	return created
}

func seedIDs(rs []record.SeedRecord) []string {
	var out []string
	for _, r := range rs {
		out = append(out, r.SeedID)
	}
	return out
}

func TestUpsertSeedKeepsCreationAndRecordsStatusChanges(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	reviewSession(t, s, "s1", "/p", t0)
	reviewSession(t, s, "s2", "/p", t0.Add(time.Hour))
	score := 13.0
	seed := record.SeedRecord{SeedID: "SEED-20260112-001", ProjectPath: "/p", Status: "PENDING_TRIAGE", Source: "SALVAGED_FROM_R2",
		Score: &score, Title: "Bulges", CausalQuestion: "Do bulges raise cleavage?", DiscriminatingTest: "Match on mismatches",
		SalvagedFrom: "C-006"}
	if !upsertSeed(t, s, seed, "s1", t0.Add(time.Minute)) {
		t.Error("first upsert should create")
	}
	// Same content again in session 2: nothing changes, not even updated_at.
	if upsertSeed(t, s, seed, "s2", t0.Add(2*time.Hour)) {
		t.Error("second upsert should not create")
	}
	got, _ := s.ListSeeds(ctx, "/p", "", 0)
	if len(got) != 1 || !got[0].UpdatedAt.Equal(t0.Add(time.Minute)) || got[0].CreatedSession != "s1" ||
		got[0].LastReviewedSession != "" || got[0].SessionsPending != 1 {
		t.Fatalf("after identical upsert: %+v", got)
	}
	// A status change in session 2 is a review of the seed.
	seed.Status = "QUEUED"
	upsertSeed(t, s, seed, "s2", t0.Add(3*time.Hour))
	got, _ = s.ListSeeds(ctx, "/p", "QUEUED", 0)
	want := record.SeedRecord{SeedID: "SEED-20260112-001", ProjectPath: "/p", CreatedSession: "s1", Status: "QUEUED",
		Source: "SALVAGED_FROM_R2", Score: &score, Title: "Bulges", CausalQuestion: "Do bulges raise cleavage?",
		DiscriminatingTest: "Match on mismatches", SalvagedFrom: "C-006", LastReviewedSession: "s2", SessionsPending: 1,
		CreatedAt: t0.Add(time.Minute), UpdatedAt: t0.Add(3 * time.Hour)}
	if len(got) != 1 || !reflect.DeepEqual(got[0], want) {
		t.Errorf("after status change:\n got %+v\nwant %+v", got, want)
	}
}

func TestMarkSeedsRemovedAndBack(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	reviewSession(t, s, "s1", "/p", t0)
	for _, id := range []string{"SEED-20260101-001", "SEED-20260101-002"} {
		upsertSeed(t, s, record.SeedRecord{SeedID: id, ProjectPath: "/p", Status: "PENDING_TRIAGE", Source: "SCANNER"}, "s1", t0)
	}
	var n int
	s.Tx(ctx, func(tx *Tx) error {
		var err error
		n, err = tx.MarkSeedsRemoved(ctx, "/p", []string{"SEED-20260101-002"}, "s1", t0.Add(time.Minute))
		return err
	})
	if n != 1 {
		t.Errorf("removed %d, want 1", n)
	}
	if got := seedIDs(mustSeeds(t)(s.ListSeeds(ctx, "/p", "", 0))); !reflect.DeepEqual(got, []string{"SEED-20260101-002"}) {
		t.Errorf("listed %v", got)
	}
	if got := seedIDs(mustSeeds(t)(s.ListSeeds(ctx, "/p", record.SeedRemoved, 0))); !reflect.DeepEqual(got, []string{"SEED-20260101-001"}) {
		t.Errorf("removed list %v", got)
	}
	// An empty file removes everything.
	s.Tx(ctx, func(tx *Tx) error {
		n, _ = tx.MarkSeedsRemoved(ctx, "/p", nil, "s1", t0.Add(time.Minute))
		return nil
	})
	if n != 1 {
		t.Errorf("second removal %d, want 1", n)
	}
	// The entry comes back: it takes its file status again.
	upsertSeed(t, s, record.SeedRecord{SeedID: "SEED-20260101-001", ProjectPath: "/p", Status: "PENDING_TRIAGE", Source: "SCANNER"}, "s1", t0)
	if got := seedIDs(mustSeeds(t)(s.ListSeeds(ctx, "/p", "", 0))); !reflect.DeepEqual(got, []string{"SEED-20260101-001"}) {
		t.Errorf("after return %v", got)
	}
}

// mustSeeds returns a function that passes a seed listing through, failing
// the test on its error: mustSeeds(t)(s.ListSeeds(...)).
func mustSeeds(t *testing.T) func([]record.SeedRecord, error) []record.SeedRecord {
	return func(rs []record.SeedRecord, err error) []record.SeedRecord {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return rs
	}
}

func TestTickSeedsCountsSessionsAndEscalatesAfterFive(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	reviewSession(t, s, "s1", "/p", t0)
	upsertSeed(t, s, record.SeedRecord{SeedID: "SEED-20260101-001", ProjectPath: "/p", Status: "PENDING_TRIAGE", Source: "SCANNER"}, "s1", t0.Add(time.Minute))
	upsertSeed(t, s, record.SeedRecord{SeedID: "SEED-20260101-002", ProjectPath: "/p", Status: "QUEUED", Source: "SCANNER"}, "s1", t0.Add(time.Minute))
	// Another project's sessions never count.
	reviewSession(t, s, "other", "/q", t0.Add(2*time.Minute))

	wantPending := []int{2, 3, 4, 5, 6, 7}
	wantNew := [][]string{nil, nil, nil, nil, {"SEED-20260101-001"}, nil}
	for i := range wantPending {
		sess := "s" + string(rune('2'+i))
		reviewSession(t, s, sess, "/p", t0.Add(time.Duration(i+1)*time.Hour))
		for round := 0; round < 2; round++ { // a resume in the same session must not count twice
			newly, err := s.TickSeeds(ctx, "/p", sess, 5)
			if err != nil {
				t.Fatal(err)
			}
			if round == 1 {
				newly = nil
			}
			if round == 0 && !reflect.DeepEqual(newly, wantNew[i]) {
				t.Errorf("%s: newly escalated %v, want %v", sess, newly, wantNew[i])
			}
		}
		got := mustSeeds(t)(s.ListSeeds(ctx, "/p", "PENDING_TRIAGE", 0))
		if len(got) != 1 || got[0].SessionsPending != wantPending[i] || got[0].Escalated != (wantPending[i] > 5) {
			t.Errorf("%s: %+v, want pending %d", sess, got, wantPending[i])
		}
	}
	q := mustSeeds(t)(s.ListSeeds(ctx, "/p", "QUEUED", 0))
	if len(q) != 1 || q[0].SessionsPending != 1 || q[0].Escalated {
		t.Errorf("a queued seed is not pending triage: %+v", q)
	}
	if _, err := s.TickSeeds(ctx, "/p", "never-started", 5); err == nil {
		t.Error("ticking for an unknown session should fail")
	}
	if _, err := s.TickSeeds(ctx, "/p", "other", 5); err == nil {
		t.Error("ticking with another project's session should fail")
	}
}

// TestTickSeedsWithoutPendingSeeds: the read-only path TickSeeds takes when
// no seed waits still checks the session, and leaves queued seeds alone.
func TestTickSeedsWithoutPendingSeeds(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	reviewSession(t, s, "s1", "/p", t0)
	upsertSeed(t, s, record.SeedRecord{SeedID: "SEED-20260101-002", ProjectPath: "/p", Status: "QUEUED", Source: "SCANNER"}, "s1", t0)
	reviewSession(t, s, "s2", "/p", t0.Add(time.Hour))
	if newly, err := s.TickSeeds(ctx, "/p", "s2", 0); err != nil || newly != nil {
		t.Errorf("TickSeeds = %v, %v; want nothing escalated", newly, err)
	}
	if q := mustSeeds(t)(s.ListSeeds(ctx, "/p", "QUEUED", 0)); len(q) != 1 || q[0].SessionsPending != 1 || q[0].Escalated {
		t.Errorf("a queued seed is not pending triage: %+v", q)
	}
	if _, err := s.TickSeeds(ctx, "/p", "never-started", 5); err == nil {
		t.Error("ticking for an unknown session should fail")
	}
	if _, err := s.TickSeeds(ctx, "/q", "s1", 5); err == nil {
		t.Error("ticking with another project's session should fail")
	}
}

func TestSeedsToTriageOrderAndSalvaged(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	reviewSession(t, s, "s1", "/p", t0)
	f := func(v float64) *float64 { return &v }
	for _, r := range []record.SeedRecord{
		{SeedID: "SEED-20260101-001", Status: "PENDING_TRIAGE", Source: "SCANNER", Score: f(9)},
		{SeedID: "SEED-20260101-002", Status: "QUEUED", Source: "SCANNER", Score: f(15)},
		{SeedID: "SEED-20260101-003", Status: "KILLED", Source: "SALVAGED_FROM_R2", Score: f(20), SalvagedFrom: "C-006"},
		{SeedID: "SEED-20260101-004", Status: "PENDING_TRIAGE", Source: "SALVAGED_FROM_R2", SalvagedFrom: "C-006"},
		{SeedID: "SEED-20260101-005", Status: "TESTING", Source: "USER", Score: f(19)},
	} {
		r.ProjectPath = "/p"
		upsertSeed(t, s, r, "s1", t0)
	}
	if _, err := s.DB().Exec("UPDATE serendipity_seeds SET escalated = 1 WHERE seed_id = 'SEED-20260101-001'"); err != nil {
		t.Fatal(err)
	}
	got := seedIDs(mustSeeds(t)(s.SeedsToTriage(ctx, "/p", 0)))
	if want := []string{"SEED-20260101-001", "SEED-20260101-002", "SEED-20260101-004"}; !reflect.DeepEqual(got, want) {
		t.Errorf("to triage %v, want %v", got, want)
	}
	if got := seedIDs(mustSeeds(t)(s.SeedsToTriage(ctx, "/p", 1))); !reflect.DeepEqual(got, []string{"SEED-20260101-001"}) {
		t.Errorf("limit 1: %v", got)
	}
	sv := seedIDs(mustSeeds(t)(s.SeedsSalvagedFrom(ctx, "/p", "C-006")))
	if want := []string{"SEED-20260101-003", "SEED-20260101-004"}; !reflect.DeepEqual(sv, want) {
		t.Errorf("salvaged %v, want %v", sv, want)
	}
	s.Tx(ctx, func(tx *Tx) error {
		_, err := tx.MarkSeedsRemoved(ctx, "/p", []string{"SEED-20260101-003"}, "s1", t0)
		return err
	})
	sv = seedIDs(mustSeeds(t)(s.SeedsSalvagedFrom(ctx, "/p", "C-006")))
	if want := []string{"SEED-20260101-003"}; !reflect.DeepEqual(sv, want) {
		t.Errorf("salvaged after removal %v, want %v", sv, want)
	}
}
