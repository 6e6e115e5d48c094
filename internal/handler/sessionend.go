package handler

import (
	"context"
	"fmt"
	"time"

	"github.com/vibe-science/vibe/internal/hook"
	"github.com/vibe-science/vibe/internal/hookrun"
	"github.com/vibe-science/vibe/internal/project"
	"github.com/vibe-science/vibe/internal/projectfiles"
	"github.com/vibe-science/vibe/internal/record"
	"github.com/vibe-science/vibe/internal/store"
)

// SessionEnd declares the hook.
var SessionEnd = hookrun.Spec{
	Name:   "vibe-session-end",
	Events: []string{hook.SessionEnd, hook.PreCompact},
	Policy: hookrun.FailOpen,
	Budget: time.Second,
	Handle: handleSessionEnd,
}

// handleSessionEnd writes the final narrative.
func handleSessionEnd(ctx context.Context, env *hookrun.Env, ev *hook.Event) (hookrun.Outcome, error) {
	proj := project.ResolveEnv(ev.Cwd, env.Getenv)
	now := env.Now()
	st, err := env.Store(ctx)
	if err != nil {
		env.Note("the memory database is unavailable (%v); the final session summary was not saved", err)
		return hookrun.Outcome{}, nil
	}
	err = st.Tx(ctx, func(tx *store.Tx) error {
		if err := tx.UpsertSession(ctx, hookrun.Seen(ev, proj.Root, now)); err != nil {
			return err
		}
		if ev.HookEventName == hook.PreCompact {
			return Checkpoint(ctx, tx, ev.SessionID, "", nil, "")
		}
		if err := Checkpoint(ctx, tx, ev.SessionID, "", &now, ev.Reason); err != nil {
			return err
		}
		s, err := tx.Session(ctx, ev.SessionID)
		if err != nil {
			return err
		}
		_, _, err = tx.AddMemory(ctx, record.NewMemory{
			ProjectPath: proj.Root, SessionID: ev.SessionID, Kind: record.KindNarrative,
			Text: s.NarrativeSummary, Ref: "session:" + ev.SessionID, Source: "hook", At: now,
		})
		return err
	})
	if err != nil {
		return hookrun.Outcome{}, fmt.Errorf("final narrative: %w", err)
	}
	// The project files (STATE.md section, SPINE.md, project_pickup.md)
	// follow the database; a failure here is reported, the data is safe.
	if ev.HookEventName == hook.PreCompact {
		if _, err := projectfiles.Checkpoint(ctx, st, proj, ev.SessionID, now); err != nil {
			env.Note("could not update .vibe-science/STATE.md: %v", err)
		}
	} else if err := projectfiles.Export(ctx, st, proj, ev.SessionID, now); err != nil {
		env.Note("could not export .vibe-science files: %v", err)
	}
	return hookrun.Outcome{}, nil
}
