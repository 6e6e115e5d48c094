package store

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/vibe-science/vibe/internal/store/record"
)

// TestPreToolProbe: each answer turns true with its own row only, for its
// own project (and target), and an open HALT stops counting once resolved.
func TestPreToolProbe(t *testing.T) {
	s := openTest(t)
	ctx := context.Background()
	at := time.Date(2026, 11, 24, 9, 0, 0, 0, time.UTC)
	probe := func(project, target string) [3]bool {
		t.Helper()
		h, m, b, err := s.PreToolProbe(ctx, project, target)
		if err != nil {
			t.Fatal(err)
		}
		return [3]bool{h, m, b}
	}
	if got := probe("/p", "run train.py"); got != [3]bool{} {
		t.Fatalf("empty database: %v", got)
	}
	raise(t, s, record.NewAlert{ProjectPath: "/p", Check: "seed-pending", Level: record.AlertWarn, Message: "warn", Fingerprint: "w", At: at})
	if got := probe("/p", ""); got[0] {
		t.Fatalf("a WARN counted as a HALT: %v", got)
	}
	halt, _ := raise(t, s, record.NewAlert{ProjectPath: "/p", Check: "seed-pending", Level: record.AlertHalt, Message: "halt", Fingerprint: "h", At: at})
	if err := s.Tx(ctx, func(tx *Tx) error {
		if _, err := tx.AddMistake(ctx, record.Mistake{Project: "/p", Target: "run train.py", Tool: "Bash", Tried: "python3 train.py", Error: "KeyError", FailedAt: at}); err != nil {
			return err
		}
		_, err := tx.AddBrief(ctx, record.BriefVersion{ProjectPath: "/q", SourcePath: "brief.md", Hash: "h", Title: "t", Content: []byte(`{}`), IngestedAt: at})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if got := probe("/p", "run train.py"); got != [3]bool{true, true, false} {
		t.Fatalf("/p with a HALT and a mistake on the target: %v", got)
	}
	if got := probe("/p", "run plot.py"); got != [3]bool{true, false, false} {
		t.Fatalf("another target: %v", got)
	}
	if got := probe("/p", ""); got[1] {
		t.Fatalf("no target has no mistakes: %v", got)
	}
	if got := probe("/q", "run train.py"); got != [3]bool{false, false, true} {
		t.Fatalf("/q with a brief: %v", got)
	}
	if _, err := resolve(s, halt.ID, "user", "fixed", at); err != nil {
		t.Fatal(err)
	}
	if got := probe("/p", "run train.py"); got[0] {
		t.Fatalf("a resolved HALT still counts: %v", got)
	}
}

// TestStopPending agrees with Tx.UnreviewedClaims and also reports a
// stop-block count left to reset.
func TestStopPending(t *testing.T) {
	s := openTest(t)
	ctx := context.Background()
	at := time.Date(2026, 11, 24, 9, 0, 0, 0, time.UTC)
	pending := func() bool {
		t.Helper()
		p, err := s.StopPending(ctx, "s1")
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	tx := func(f func(tx *Tx) error) {
		t.Helper()
		if err := s.Tx(ctx, f); err != nil {
			t.Fatal(err)
		}
	}
	if pending() {
		t.Fatal("an unknown session has something pending")
	}
	tx(func(tx *Tx) error {
		return tx.UpsertSession(ctx, record.SessionSeen{ID: "s1", ProjectPath: "/p", At: at})
	})
	if pending() {
		t.Fatal("a session without claims has something pending")
	}
	tx(func(tx *Tx) error {
		return tx.AddClaimEvents(ctx, "s1", "/p", at, []record.ClaimEvent{{ClaimID: "C-1", Type: "CREATED", NewStatus: "PROPOSED"}})
	})
	if !pending() {
		t.Fatal("an unreviewed claim is not pending")
	}
	tx(func(tx *Tx) error {
		if err := tx.UpsertSession(ctx, record.SessionSeen{ID: "s2", ProjectPath: "/p", At: at}); err != nil {
			return err
		}
		return tx.AddClaimEvents(ctx, "s2", "/p", at, []record.ClaimEvent{{ClaimID: "C-1", Type: "R2_REVIEWED", R2Verdict: "ACCEPT"}})
	})
	if pending() {
		t.Fatal("a claim reviewed in another session of the project is still pending")
	}
	tx(func(tx *Tx) error { return tx.SetStopBlocks(ctx, "s1", 2) })
	if !pending() {
		t.Fatal("a stop-block count to reset is not pending")
	}
}

// TestSessionToolCallsIsKeptCount: the count PostToolUse reads follows
// every new spine entry of the session (not a repeated tool_use_id, not
// another session's), and migration 0010 fills it for existing sessions.
func TestSessionToolCallsIsKeptCount(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "vibe.db")
	s, err := Open(ctx, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 11, 24, 9, 0, 0, 0, time.UTC)
	add := func(session, id string) {
		t.Helper()
		if err := s.Tx(ctx, func(tx *Tx) error {
			if err := tx.UpsertSession(ctx, record.SessionSeen{ID: session, ProjectPath: "/p", At: at}); err != nil {
				return err
			}
			_, err := tx.AddSpine(ctx, record.SpineEntry{SessionID: session, ProjectPath: "/p", At: at, ActionType: "COMMAND", ToolName: "Bash", ToolUseID: id}, nil)
			return err
		}); err != nil {
			t.Fatal(err)
		}
	}
	calls := func(session string) int {
		t.Helper()
		var n int
		if err := s.Tx(ctx, func(tx *Tx) error {
			var err error
			n, err = tx.SessionToolCalls(ctx, session)
			return err
		}); err != nil {
			t.Fatal(err)
		}
		return n
	}
	for _, id := range []string{"t1", "t2", "t3", "t2"} { // t2 again: the same call, recorded once
		add("s1", id)
	}
	add("s2", "t1")
	if a, b, c := calls("s1"), calls("s2"), calls("nobody"); a != 3 || b != 1 || c != 0 {
		t.Fatalf("tool calls s1=%d s2=%d unknown=%d, want 3 1 0", a, b, c)
	}
	// Back to schema 9 with the count lost: 0010 counts the entries again.
	for _, q := range []string{"DROP TRIGGER spine_entries_count", "ALTER TABLE sessions DROP COLUMN tool_calls", "PRAGMA user_version = 9"} {
		if _, err := s.DB().ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	s.Close()
	if s, err = Open(ctx, path, Options{}); err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if a, b := calls("s1"), calls("s2"); a != 3 || b != 1 {
		t.Fatalf("after the migration s1=%d s2=%d, want 3 1", a, b)
	}
	add("s1", "t4")
	if a := calls("s1"); a != 4 {
		t.Fatalf("after the migration a new call counts: s1=%d, want 4", a)
	}
}
