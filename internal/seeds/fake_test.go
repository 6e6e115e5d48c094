package seeds

import (
	"context"
	"errors"
	"reflect"
	"slices"
	"sort"
	"testing"
	"time"

	"github.com/vibe-science/vibe/internal/claim"
	"github.com/vibe-science/vibe/internal/store/record"
	"github.com/vibe-science/vibe/internal/verdict"
)

// fakeSeeds is an in-memory seed table: its own transaction, with the
// upsert and removal rules the store applies, and an error to inject.
type fakeSeeds struct {
	rows map[string]record.SeedRecord
	err  error
}

func newFakeSeeds() *fakeSeeds { return &fakeSeeds{rows: map[string]record.SeedRecord{}} }

func (f *fakeSeeds) Tx(ctx context.Context, fn func(*fakeSeeds) error) error { return fn(f) }

func (f *fakeSeeds) UpsertSeed(ctx context.Context, s record.SeedRecord, session string, now time.Time) (bool, error) {
	if f.err != nil {
		return false, f.err
	}
	_, had := f.rows[s.SeedID]
	f.rows[s.SeedID] = s
	return !had, nil
}

func (f *fakeSeeds) MarkSeedsRemoved(ctx context.Context, project string, present []string, session string, now time.Time) (int, error) {
	n := 0
	for id, r := range f.rows {
		if r.ProjectPath == project && r.Status != record.SeedRemoved && !slices.Contains(present, id) {
			r.Status = record.SeedRemoved
			f.rows[id] = r
			n++
		}
	}
	return n, nil
}

func (f *fakeSeeds) SeedsToTriage(ctx context.Context, project string, limit int) ([]record.SeedRecord, error) {
	var out []record.SeedRecord
	for _, r := range f.rows {
		if r.ProjectPath == project && (r.Status == StatusPendingTriage || r.Status == StatusQueued) {
			out = append(out, r)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].SeedID < out[j].SeedID })
	return out, f.err
}

func (f *fakeSeeds) SeedsSalvagedFrom(ctx context.Context, project, claimID string) ([]record.SeedRecord, error) {
	var out []record.SeedRecord
	for _, r := range f.rows {
		if r.ProjectPath == project && r.SalvagedFrom == claimID {
			out = append(out, r)
		}
	}
	return out, f.err
}

// TestSyncPendingSalvageOnAFake runs Sync, Pending and SalvageVerdict
// against the in-memory fake: what is synced, removed, listed and found
// salvaged follows from the file alone, without a database file.
func TestSyncPendingSalvageOnAFake(t *testing.T) {
	ctx := context.Background()
	f := newFakeSeeds()
	a := entry("SEED-20260112-001", StatusPendingTriage, SourceScanner, "", 9, "Question A?")
	b := entry("SEED-20260112-002", StatusQueued, SourceSalvaged, "C-003", 11, "Question B?")
	res, err := Sync(ctx, f, "/p", "s1", []byte(a+b), t0)
	if err != nil || res.Synced != 2 || res.Created != 2 || res.Removed != 0 {
		t.Fatalf("first sync: %+v %v", res, err)
	}
	if got := f.rows["SEED-20260112-002"]; got.ProjectPath != "/p" || got.SalvagedFrom != "C-003" || got.CausalQuestion != "Question B?" {
		t.Errorf("seed B stored as %+v", got)
	}
	lines, err := Pending(ctx, f, "/p", 5)
	want := []string{
		"SEED-20260112-001 (PENDING_TRIAGE, 0 sessions), score 9: Question A? Test: test for SEED-20260112-001",
		"SEED-20260112-002 (QUEUED), score 11: Question B? Test: test for SEED-20260112-002",
	}
	if err != nil || !reflect.DeepEqual(lines, want) {
		t.Errorf("pending:\n got %q\nwant %q (%v)", lines, want, err)
	}
	killed := claim.Claim{ID: "C-003", Status: claim.StatusKilled, KillReason: claim.KillConfounded}
	if v := SalvageVerdict(ctx, f, "/p", killed, nil); v.Result != verdict.Pass {
		t.Errorf("C-003 is salvaged in the store, got %s: %s", v.Result, v.Reason)
	}
	res, err = Sync(ctx, f, "/p", "s1", []byte(a), t0.Add(time.Minute))
	if err != nil || res.Synced != 1 || res.Created != 0 || res.Removed != 1 {
		t.Fatalf("B deleted: %+v %v", res, err)
	}
	if v := SalvageVerdict(ctx, f, "/q", killed, nil); v.Result != verdict.HardBlock {
		t.Errorf("another project's seed salvaged C-003: %s", v.Result)
	}
	f.err = errors.New("disk full")
	if _, err := Sync(ctx, f, "/p", "s1", []byte(a), t0); err == nil || !errors.Is(err, f.err) {
		t.Errorf("a failing write: %v, want it wrapped", err)
	}
	if v := SalvageVerdict(ctx, f, "/p", killed, nil); v.Result != verdict.HardBlock || len(v.Evidence.Notes) != 1 {
		t.Errorf("an unreadable store: %s %v, want HARD_BLOCK with a note", v.Result, v.Evidence.Notes)
	}
}
