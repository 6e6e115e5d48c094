package main

import (
	"context"
	"fmt"
	"time"

	"github.com/vibe-science/vibe/internal/store"
	"github.com/vibe-science/vibe/internal/store/record"
)

// prefillSpine adds rows spine entries of earlier sessions (500 a session,
// a month ago) to project in the database at dbPath: the history the hooks
// run beside. It is the one place the bench writes the database itself:
// only the hooks write spine entries, no `vibe` command imports them, and
// 100k hook calls would take minutes (PostToolUse costs about 2.8 ms a
// call, 100k of them 4.6 min) where one transaction takes seconds.
func prefillSpine(ctx context.Context, dbPath, project string, rows int) error {
	st, err := store.Open(ctx, dbPath, store.Options{})
	if err != nil {
		return err
	}
	defer st.Close()
	base := time.Now().Add(-30 * 24 * time.Hour)
	return st.Tx(ctx, func(tx *store.Tx) error {
		const perSession = 500
		for i := 0; i < rows; i++ {
			sid := fmt.Sprintf("prefill-%d", i/perSession)
			at := base.Add(time.Duration(i) * time.Second)
			if i%perSession == 0 {
				if err := tx.UpsertSession(ctx, record.SessionSeen{ID: sid, ProjectPath: project, At: at, Start: true}); err != nil {
					return err
				}
			}
			d := int64(i % 900)
			if _, err := tx.AddSpine(ctx, record.SpineEntry{SessionID: sid, ProjectPath: project, At: at,
				ActionType: []string{"DATA_LOAD", "MODEL_TRAIN", "CODE_EDIT", "COMMAND", "FILE_READ"}[i%5],
				ToolName:   "Bash", ToolUseID: fmt.Sprintf("toolu_pre_%d", i), InputSummary: fmt.Sprintf("$ python step_%d.py --seed %d", i%97, i),
				OutputSummary: "ok", InputSHA256: "x", OutputSHA256: "y", DurationMS: &d}, nil); err != nil {
				return err
			}
		}
		return nil
	})
}
