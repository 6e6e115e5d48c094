package seeds

import (
	"context"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/vibe-science/vibe/internal/store"
	"github.com/vibe-science/vibe/internal/store/record"
	"github.com/vibe-science/vibe/internal/verdict"
)

var t0 = time.Date(2026, 1, 12, 9, 0, 0, 0, time.UTC)

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

// entry writes a valid SERENDIPITY.md entry.
func entry(id, status, source, salvaged string, score int, question string) string {
	lines := []string{
		"## " + id + ": " + question,
		"- status: " + status,
		"- source: " + source,
		"- score: " + strconv.Itoa(score),
		"- causal-question: " + question,
		"- discriminating-test: test for " + id,
		"- falsifiers: a; b; c",
		"- created: 2026-01-12",
	}
	if salvaged != "" {
		lines = append(lines, "- salvaged-from: "+salvaged)
	}
	return strings.Join(lines, "\n") + "\n"
}

// TestForensicD5 is checklist item D5 (seeds persist across sessions): a
// seed written in session 1 is synced, and session 2's context lists it.
func TestForensicD5(t *testing.T) {
	ctx := context.Background()
	st := openStore(t)
	startSession(t, st, "s1", "/p", t0)
	file := "# Serendipity log\n\n" + entry("SEED-20260112-001", StatusPendingTriage, SourceScanner, "", 13,
		"Does a DNA bulge raise cleavage independently of mismatch count?")
	res, err := Sync(ctx, st, "/p", "s1", []byte(file), t0.Add(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	if res.Synced != 1 || res.Created != 1 || res.Removed != 0 || len(res.Errors) != 0 {
		t.Fatalf("sync: %+v", res)
	}
	// Session 2: the hook records the session, ticks, and shows the seeds.
	startSession(t, st, "s2", "/p", t0.Add(24*time.Hour))
	if _, err := Tick(ctx, st, "/p", "s2"); err != nil {
		t.Fatal(err)
	}
	lines, err := Pending(ctx, st, "/p", 5)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"SEED-20260112-001 (PENDING_TRIAGE, 2 sessions), score 13: Does a DNA bulge raise cleavage independently of mismatch count? Test: test for SEED-20260112-001"}
	if !reflect.DeepEqual(lines, want) {
		t.Errorf("session 2 lines:\n got %q\nwant %q", lines, want)
	}
}

func TestSyncIsIdempotentAndMirrorsTheFile(t *testing.T) {
	ctx := context.Background()
	st := openStore(t)
	startSession(t, st, "s1", "/p", t0)
	a := entry("SEED-20260112-001", StatusPendingTriage, SourceScanner, "", 9, "Question A?")
	b := entry("SEED-20260112-002", StatusQueued, SourceUser, "", 11, "Question B?")
	steps := []struct {
		name    string
		file    string
		want    SyncResult
		listed  []string
		removed []string
	}{
		{"first write", a + b, SyncResult{Synced: 2, Created: 2}, []string{"SEED-20260112-001", "SEED-20260112-002"}, nil},
		{"same file again", a + b, SyncResult{Synced: 2}, []string{"SEED-20260112-001", "SEED-20260112-002"}, nil},
		{"B deleted from the file", a, SyncResult{Synced: 1, Removed: 1}, []string{"SEED-20260112-001"}, []string{"SEED-20260112-002"}},
		{"A broken: kept as it was, reported", strings.Replace(a, "- score: 9", "- score: lots", 1),
			SyncResult{Errors: []error{nil}}, []string{"SEED-20260112-001"}, []string{"SEED-20260112-002"}},
		{"B back", a + b, SyncResult{Synced: 2}, []string{"SEED-20260112-001", "SEED-20260112-002"}, nil},
	}
	for i, s := range steps {
		res, err := Sync(ctx, st, "/p", "s1", []byte(s.file), t0.Add(time.Duration(i)*time.Minute))
		if err != nil {
			t.Fatal(err)
		}
		if res.Synced != s.want.Synced || res.Created != s.want.Created || res.Removed != s.want.Removed || len(res.Errors) != len(s.want.Errors) {
			t.Errorf("%s: %+v, want %+v", s.name, res, s.want)
		}
		var listed, removed []string
		rs, _ := st.ListSeeds(ctx, "/p", "", 0)
		for _, r := range rs {
			listed = append(listed, r.SeedID)
		}
		rs, _ = st.ListSeeds(ctx, "/p", record.SeedRemoved, 0)
		for _, r := range rs {
			removed = append(removed, r.SeedID)
		}
		if !reflect.DeepEqual(listed, s.listed) || !reflect.DeepEqual(removed, s.removed) {
			t.Errorf("%s: listed %v removed %v, want %v %v", s.name, listed, removed, s.listed, s.removed)
		}
	}
}

func TestTickEscalatesAfterFiveSessionsAndPendingOrder(t *testing.T) {
	ctx := context.Background()
	st := openStore(t)
	startSession(t, st, "s1", "/p", t0)
	file := entry("SEED-20260112-001", StatusPendingTriage, SourceScanner, "", 9, "Old question?") +
		entry("SEED-20260112-002", StatusQueued, SourceUser, "", 15, "Queued question?")
	if _, err := Sync(ctx, st, "/p", "s1", []byte(file), t0.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	var escalated []string
	for i := 2; i <= 6; i++ {
		sess := "s" + string(rune('0'+i))
		startSession(t, st, sess, "/p", t0.Add(time.Duration(i)*time.Hour))
		ids, err := Tick(ctx, st, "/p", sess)
		if err != nil {
			t.Fatal(err)
		}
		again, _ := Tick(ctx, st, "/p", sess) // SessionStart again on resume
		if len(again) != 0 {
			t.Errorf("%s: second tick escalated %v", sess, again)
		}
		escalated = append(escalated, ids...)
		if i == 5 && len(escalated) != 0 {
			t.Errorf("escalated after 5 sessions: %v", escalated)
		}
	}
	if !reflect.DeepEqual(escalated, []string{"SEED-20260112-001"}) {
		t.Errorf("escalated %v", escalated)
	}
	lines, err := Pending(ctx, st, "/p", 0)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"ESCALATED SEED-20260112-001 (LAW 5: pending triage for 6 sessions; triage it now), score 9: Old question? Test: test for SEED-20260112-001",
		"SEED-20260112-002 (QUEUED), score 15: Queued question? Test: test for SEED-20260112-002",
	}
	if !reflect.DeepEqual(lines, want) {
		t.Errorf("lines:\n got %q\nwant %q", lines, want)
	}
	if _, err := Tick(ctx, st, "/p", "unknown"); err == nil {
		t.Error("tick for an unrecorded session must fail")
	}
}

func TestPendingLineShortens(t *testing.T) {
	score := 12.0
	r := record.SeedRecord{SeedID: "SEED-20260112-003", Status: StatusPendingTriage, SessionsPending: 1, Score: &score,
		CausalQuestion: strings.Repeat("word ", 40), DiscriminatingTest: ""}
	got := pendingLine(r)
	want := "SEED-20260112-003 (PENDING_TRIAGE, 1 session), score 12: " + strings.TrimSpace(strings.Repeat("word ", 23)) + "…"
	if got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}

func TestFormatVerdict(t *testing.T) {
	if v := FormatVerdict(nil); v.Result != verdict.Pass {
		t.Errorf("no problems: %s", v.Result)
	}
	_, errs := Parse([]byte("## SEED-20260112-001: x\n- status: PENDING_TRIAGE\n- source: SCANNER\n- score: high\n- causal-question: q\n- discriminating-test: t\n- falsifiers: a; b; c\n- created: 2026-01-12\n"))
	v := FormatVerdict(errs)
	want := `1 problem(s) in SERENDIPITY.md keep those seeds out of later sessions (LAW 5 tracking): SERENDIPITY.md line 4: SEED-20260112-001: score must be an integer 0-20, not "high"`
	if v.Result != verdict.Warn || v.Check != CheckFormat || v.Reason != want {
		t.Errorf("got %s %q", v.Result, v.Reason)
	}
}
