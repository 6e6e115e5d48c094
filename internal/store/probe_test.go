package store

import (
	"context"
	"testing"
	"time"

	"github.com/vibe-science/vibe/internal/record"
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
