package store

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/vibe-science/vibe/internal/store/record"
)

// TestUpsertSessionInAnyOrder: a session's records may land out of order
// (SessionStart writes its row after its reply; a spooled record is
// replayed later). A start written after the session ended, but dated
// before the end, leaves it ended and keeps the earliest start and the
// latest sight; a start dated after the end (a resume) reopens it.
func TestUpsertSessionInAnyOrder(t *testing.T) {
	ctx := context.Background()
	st, err := Open(ctx, filepath.Join(t.TempDir(), "vibe.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	t0 := time.Date(2026, 11, 25, 9, 0, 0, 0, time.UTC)
	write := func(fn func(tx *Tx) error) {
		t.Helper()
		if err := st.Tx(ctx, fn); err != nil {
			t.Fatal(err)
		}
	}
	seen := func(at time.Time, start bool) func(tx *Tx) error {
		return func(tx *Tx) error {
			return tx.UpsertSession(ctx, record.SessionSeen{ID: "s", ProjectPath: "/p", At: at, Start: start})
		}
	}
	end := t0.Add(10 * time.Minute)
	write(seen(t0.Add(time.Minute), false)) // a prompt's record lands first
	write(func(tx *Tx) error {
		return tx.SaveSummary(ctx, record.SessionSummary{ID: "s", Narrative: "done", EndedAt: &end, EndReason: "other"})
	})
	write(seen(t0, true)) // the start, written late
	s, err := st.Session(ctx, "s")
	if err != nil {
		t.Fatal(err)
	}
	if s.EndedAt == nil || !s.EndedAt.Equal(end) || s.EndReason != "other" {
		t.Errorf("a start written late reopened the ended session: ended %v %q", s.EndedAt, s.EndReason)
	}
	if !s.StartedAt.Equal(t0) || !s.LastSeenAt.Equal(t0.Add(time.Minute)) || s.StartCount != 1 {
		t.Errorf("started %v, last seen %v, starts %d; want %v, %v, 1", s.StartedAt, s.LastSeenAt, s.StartCount, t0, t0.Add(time.Minute))
	}
	write(seen(end.Add(time.Minute), true)) // a resume
	if s, err = st.Session(ctx, "s"); err != nil {
		t.Fatal(err)
	}
	if s.EndedAt != nil || s.EndReason != "" || s.StartCount != 2 || !s.LastSeenAt.Equal(end.Add(time.Minute)) {
		t.Errorf("a resume did not reopen the session: ended %v %q, starts %d, last seen %v", s.EndedAt, s.EndReason, s.StartCount, s.LastSeenAt)
	}
}
