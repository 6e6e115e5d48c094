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
