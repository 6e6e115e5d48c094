package observer

import (
	"context"
	"os"
	"slices"
	"sort"
	"testing"
	"time"

	"github.com/vibe-science/vibe/internal/project"
	"github.com/vibe-science/vibe/internal/store/record"
)

// fakeStore is an in-memory alert table, seed list and observer cache,
// its own transaction; the other reads answer "nothing recorded".
type fakeStore struct {
	alerts []record.Alert
	seeds  []record.PendingSeed
	cache  map[string]string
}

func (f *fakeStore) Tx(ctx context.Context, fn func(*fakeStore) error) error { return fn(f) }

func (f *fakeStore) RecentActions(ctx context.Context, project string, n int) ([]record.ActionStamp, error) {
	return nil, nil
}
func (f *fakeStore) ActionTextsSince(ctx context.Context, project string, t time.Time, limit int) ([]record.ActionText, error) {
	return nil, nil
}
func (f *fakeStore) NthRecentAction(ctx context.Context, project string, n int) (time.Time, bool, error) {
	return time.Time{}, false, nil
}
func (f *fakeStore) FirstActionAfter(ctx context.Context, project string, t time.Time) (time.Time, bool, error) {
	return time.Time{}, false, nil
}
func (f *fakeStore) LiteratureSince(ctx context.Context, project string, t time.Time) (bool, error) {
	return false, nil
}
func (f *fakeStore) Downloads(ctx context.Context, project string) ([]record.Download, error) {
	return nil, nil
}
func (f *fakeStore) PendingSeeds(ctx context.Context, project string, limit int) ([]record.PendingSeed, error) {
	return f.seeds, nil
}

func (f *fakeStore) Alerts(ctx context.Context, flt record.AlertFilter) ([]record.Alert, error) {
	var out []record.Alert
	for _, a := range f.alerts {
		if !a.Resolved && a.ProjectPath == flt.Project {
			out = append(out, a)
		}
	}
	return out, nil
}

func (f *fakeStore) OpenHalts(ctx context.Context, project string) ([]record.Alert, error) {
	var out []record.Alert
	for _, a := range f.alerts {
		if !a.Resolved && a.ProjectPath == project && a.Level == Halt {
			out = append(out, a)
		}
	}
	return out, nil
}

func (f *fakeStore) ObserverCache(ctx context.Context, key string) (string, error) {
	return f.cache[key], nil
}

func (f *fakeStore) RaiseAlert(ctx context.Context, a record.NewAlert) (record.Alert, bool, error) {
	for _, old := range f.alerts {
		if !old.Resolved && old.Fingerprint == a.Fingerprint {
			return old, false, nil
		}
	}
	r := record.Alert{ID: int64(len(f.alerts) + 1), ProjectPath: a.ProjectPath, SessionID: a.SessionID, Check: a.Check,
		Level: a.Level, Message: a.Message, Fingerprint: a.Fingerprint, CreatedAt: a.At}
	f.alerts = append(f.alerts, r)
	return r, true, nil
}

func (f *fakeStore) ResolveAlert(ctx context.Context, id int64, by, note string, at time.Time) (record.Alert, error) {
	a := &f.alerts[id-1]
	a.Resolved, a.Resolution, a.ResolvedAt = true, by+": "+note, &at
	return *a, nil
}

func (f *fakeStore) SetObserverCache(ctx context.Context, key, value string) error {
	f.cache[key] = value
	return nil
}

func (f *fakeStore) AddDownload(ctx context.Context, d record.Download) (int64, error) { return 1, nil }

// open lists the fake's open alerts of one check as "level fingerprint".
func (f *fakeStore) open(check string) []string {
	var out []string
	for _, a := range f.alerts {
		if !a.Resolved && a.Check == check {
			out = append(out, a.Level+" "+a.Fingerprint)
		}
	}
	sort.Strings(out)
	return out
}

// TestSeedAlertsOnAFake runs the observer against the in-memory fake: a
// seed waiting too long raises a WARN or a HALT, OpenHalts resolves the
// HALT once the seed is triaged, and the next Run resolves the WARN.
func TestSeedAlertsOnAFake(t *testing.T) {
	ctx := context.Background()
	proj := project.Project{Root: t.TempDir()}
	if err := os.MkdirAll(proj.VibeDir(), 0o755); err != nil {
		t.Fatal(err)
	}
	f := &fakeStore{cache: map[string]string{}, seeds: []record.PendingSeed{
		{SeedID: "SEED-20260112-001", Status: "PENDING_TRIAGE", SessionsPending: Default.SeedHaltSessions},
		{SeedID: "SEED-20260112-002", Status: "PENDING_TRIAGE", SessionsPending: Default.SeedWarnSessions},
		{SeedID: "SEED-20260112-003", Status: "QUEUED", SessionsPending: 40},
		{SeedID: "SEED-20260112-004", Status: "PENDING_TRIAGE", SessionsPending: Default.SeedWarnSessions - 1},
	}}
	now := time.Date(2026, 1, 12, 9, 0, 0, 0, time.UTC)
	if _, err := Run(ctx, f, proj, "s1", now, Default); err != nil {
		t.Fatal(err)
	}
	want := []string{"HALT " + CheckSeeds + ":SEED-20260112-001:HALT", "WARN " + CheckSeeds + ":SEED-20260112-002:WARN"}
	if got := f.open(CheckSeeds); !slices.Equal(got, want) {
		t.Fatalf("open seed alerts %q, want %q", got, want)
	}
	halts, err := OpenHalts(ctx, f, proj, now)
	if err != nil || len(halts) != 1 || halts[0].Fingerprint != CheckSeeds+":SEED-20260112-001:HALT" {
		t.Fatalf("open HALTs %+v %v", halts, err)
	}

	// Seed 1 is triaged; seed 2 waits one session more.
	f.seeds = []record.PendingSeed{{SeedID: "SEED-20260112-002", Status: "PENDING_TRIAGE", SessionsPending: Default.SeedWarnSessions + 1}}
	if halts, err := OpenHalts(ctx, f, proj, now.Add(time.Minute)); err != nil || len(halts) != 0 {
		t.Fatalf("after triage, open HALTs %+v %v", halts, err)
	}
	for _, a := range f.alerts {
		if a.Fingerprint == CheckSeeds+":SEED-20260112-001:HALT" && (!a.Resolved || a.Resolution != "observer: "+cleared[CheckSeeds]) {
			t.Errorf("the triaged seed's HALT: %+v", a)
		}
	}
	f.seeds = nil
	if _, err := Run(ctx, f, proj, "s1", now.Add(2*time.Minute), Default); err != nil {
		t.Fatal(err)
	}
	if got := f.open(CheckSeeds); len(got) != 0 {
		t.Errorf("with no seed waiting, open seed alerts %q", got)
	}
	// The project has no STATE.md: that alert stands, raised once.
	if got := f.open(CheckState); len(got) != 1 {
		t.Errorf("open STATE.md alerts %q, want the one for the missing file", got)
	}
}
