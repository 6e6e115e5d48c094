package worker

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/vibe-science/vibe/internal/store"
	"github.com/vibe-science/vibe/internal/store/record"
)

// BenchmarkRelayedSessionStartNarratives is BenchmarkRelayedSessionStart on
// the project `make bench` leaves behind: 200 narrative memories of the
// session (one per SessionEnd, texts that differ in their counts) and 4
// decisions, which SessionStart's memory section ranks and shows.
func BenchmarkRelayedSessionStartNarratives(b *testing.B) {
	benchRelayedSessionStart(b, fillBenchNarratives, "Decided to keep")
}

// fillBenchNarratives adds the memories to the project of the one session
// the database holds.
func fillBenchNarratives(b *testing.B, path string) {
	ctx := context.Background()
	st, err := store.Open(ctx, path, store.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	var project, session string
	if err := st.DB().QueryRowContext(ctx, "SELECT project_path, id FROM sessions").Scan(&project, &session); err != nil {
		b.Fatal(err)
	}
	now := time.Now()
	err = st.Tx(ctx, func(tx *store.Tx) error {
		for i := 0; i < 200; i++ {
			at := now.Add(-time.Duration(200-i) * time.Minute)
			text := fmt.Sprintf("Session %s: %d actions (COMMAND %d, CODE_EDIT %d, DATA_LOAD %d, FILE_READ %d, MODEL_TRAIN %d).\nGates passed: DQ1, L0.",
				session[:8], 1000+5*i, 200+i, 200+i, 200+i, 200+i, 200+i)
			if _, _, err := tx.AddMemory(ctx, record.NewMemory{ProjectPath: project, SessionID: session, Kind: record.KindNarrative,
				Text: text, Ref: "session:" + session, Source: "hook", At: at}); err != nil {
				return err
			}
			if i%60 == 7 {
				if _, _, err := tx.AddMemory(ctx, record.NewMemory{ProjectPath: project, Kind: record.KindDecision,
					Text: fmt.Sprintf("Decided to keep GUIDE-seq reads only, run %d", i), Source: "cli", At: at}); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
}
