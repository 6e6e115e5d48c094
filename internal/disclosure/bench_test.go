package disclosure

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/vibe-science/vibe/internal/config"
	"github.com/vibe-science/vibe/internal/recall"
	"github.com/vibe-science/vibe/internal/record"
	"github.com/vibe-science/vibe/internal/store"
)

// benchPrompts are prompts of the length and vocabulary a researcher types.
var benchPrompts = []string{
	"why did the DQ1 gate fail on the GUIDE-seq import and what did we change afterwards?",
	"remind me what we decided about batch integration with Harmony and the processing day",
	"is the off-target rate still reported per million reads, and which claims were killed for confounding?",
	"what was the Q factor after annealing and did the thermal drift explain the position effect",
	"let's look at the calibration error under distribution shift again",
}

// fill50k builds the 50,000-memory database once per benchmark.
func fill50k(b *testing.B) (string, time.Time) {
	b.Helper()
	ctx := context.Background()
	path := filepath.Join(b.TempDir(), "bench.db")
	st, err := store.Open(ctx, path, store.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	now := time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)
	start := time.Now()
	if err := recall.Fill(ctx, st, "/lab/bench", 50000, now); err != nil {
		b.Fatal(err)
	}
	b.Logf("filled 50,000 memories in %v", time.Since(start))
	return path, now
}

// BenchmarkPromptContext50k measures UserPromptSubmit recall in lexical mode
// over 50,000 memories of one project (FTS5 query, ranking, formatting) on
// an open database.
func BenchmarkPromptContext50k(b *testing.B) {
	path, now := fill50k(b)
	ctx := context.Background()
	st, err := store.Open(ctx, path, store.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		text, mode, err := PromptContext(ctx, st, nil, "/lab/bench", benchPrompts[i%len(benchPrompts)], now, config.Defaults.PromptRecallTokens)
		if err != nil || text == "" || mode != recall.ModeLexical {
			b.Fatalf("PromptContext = %q, %q, %v", text, mode, err)
		}
	}
}

// BenchmarkPromptContext50kFreshOpen is the same with the database opened
// for every prompt, as a hook process does: SQLite's page cache starts
// empty each time (the OS cache stays warm).
func BenchmarkPromptContext50kFreshOpen(b *testing.B) {
	path, now := fill50k(b)
	ctx := context.Background()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		st, err := store.Open(ctx, path, store.Options{})
		if err != nil {
			b.Fatal(err)
		}
		text, _, err := PromptContext(ctx, st, nil, "/lab/bench", benchPrompts[i%len(benchPrompts)], now, config.Defaults.PromptRecallTokens)
		st.Close()
		if err != nil || text == "" {
			b.Fatalf("PromptContext = %q, %v", text, err)
		}
	}
}

// BenchmarkSessionStartContext50k builds the SessionStart context of a
// project with 50,000 memories and a previous session's narrative.
func BenchmarkSessionStartContext50k(b *testing.B) {
	path, now := fill50k(b)
	ctx := context.Background()
	st, err := store.Open(ctx, path, store.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	ended := now.Add(-time.Hour)
	err = st.Tx(ctx, func(tx *store.Tx) error {
		if err := tx.UpsertSession(ctx, record.SessionSeen{ID: "s1", ProjectPath: "/lab/bench", At: now.Add(-3 * time.Hour), Start: true}); err != nil {
			return err
		}
		return tx.SaveSummary(ctx, record.SessionSummary{ID: "s1", EndedAt: &ended,
			Narrative: "Session summary: re-ran DQ1 on the GUIDE-seq table after the aligner fix, promoted C-12, R2 flagged the batch effect in the Harmony integration."})
	})
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		text, err := SessionStartContext(ctx, st, nil, "/lab/bench", "", now, DefaultBudgets(config.Defaults.SessionStartTokens), nil)
		if err != nil || Tokens(text) > config.Defaults.SessionStartTokens {
			b.Fatalf("SessionStartContext: %d tokens, %v", Tokens(text), err)
		}
	}
}
