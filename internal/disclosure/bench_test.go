package disclosure

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vibe-science/vibe/internal/config"
	"github.com/vibe-science/vibe/internal/recall"
	"github.com/vibe-science/vibe/internal/store"
	"github.com/vibe-science/vibe/internal/store/record"
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
		text, res, err := PromptContext(ctx, st, nil, "/lab/bench", benchPrompts[i%len(benchPrompts)], now, config.Defaults.PromptRecallTokens)
		if err != nil || text == "" || res.Mode != recall.ModeLexical {
			b.Fatalf("PromptContext = %q, %q, %v", text, res.Mode, err)
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

// fillNarratives builds the project `make bench` leaves behind: a
// narrative memory for each of 200 SessionEnds of one session (texts that
// differ in their counts), 4 decisions, and, with previous, another
// session that ended with such a narrative (a real next session; the
// bench's SessionStart is of the same session and has none).
func fillNarratives(b *testing.B, st *store.Store, previous bool) {
	b.Helper()
	ctx := context.Background()
	narrative := func(i int) string {
		return fmt.Sprintf("Session 372e7d5d: %d actions (COMMAND %d, CODE_EDIT %d, DATA_LOAD %d, FILE_READ %d, MODEL_TRAIN %d).\nGates passed: DQ1, L0.",
			1000+5*i, 200+i, 200+i, 200+i, 200+i, 200+i)
	}
	must(b, st.Tx(ctx, func(tx *store.Tx) error {
		for i := 0; i < 200; i++ {
			at := now.Add(-time.Duration(200-i) * time.Minute)
			if _, _, err := tx.AddMemory(ctx, record.NewMemory{ProjectPath: "/lab/bench", SessionID: "372e7d5d", Kind: record.KindNarrative,
				Text: narrative(i), Ref: "session:372e7d5d", Source: "hook", At: at}); err != nil {
				return err
			}
			if i%60 == 7 {
				if _, _, err := tx.AddMemory(ctx, record.NewMemory{ProjectPath: "/lab/bench", Kind: record.KindDecision,
					Text: fmt.Sprintf("Decided to keep GUIDE-seq reads only, run %d", i), Source: "cli", At: at}); err != nil {
					return err
				}
			}
		}
		if !previous {
			return nil
		}
		ended := now.Add(-time.Hour)
		if err := tx.UpsertSession(ctx, record.SessionSeen{ID: "prev", ProjectPath: "/lab/bench", At: now.Add(-3 * time.Hour), Start: true}); err != nil {
			return err
		}
		return tx.SaveSummary(ctx, record.SessionSummary{ID: "prev", EndedAt: &ended, Narrative: narrative(200)})
	}))
}

// BenchmarkSessionStartContextNarratives builds the SessionStart context
// of `make bench`'s project (fillNarratives), without and with a previous
// session whose narrative recall searches for.
func BenchmarkSessionStartContextNarratives(b *testing.B) {
	for _, previous := range []bool{false, true} {
		b.Run(fmt.Sprintf("previous=%t", previous), func(b *testing.B) {
			ctx := context.Background()
			st, err := store.Open(ctx, filepath.Join(b.TempDir(), "vibe.db"), store.Options{})
			if err != nil {
				b.Fatal(err)
			}
			defer st.Close()
			fillNarratives(b, st, previous)
			b.ResetTimer()
			for b.Loop() {
				text, err := SessionStartContext(ctx, st, nil, "/lab/bench", "372e7d5d", now, DefaultBudgets(config.Defaults.SessionStartTokens), nil)
				if err != nil || !strings.Contains(text, "Decided to keep") {
					b.Fatalf("SessionStartContext = %q, %v", text, err)
				}
			}
		})
	}
}
