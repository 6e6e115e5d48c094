// Package sessionend is the SessionEnd and PreCompact hook: the final
// narrative and counters on the session row, queued as a memory. Claude Code
// gives all SessionEnd hooks 1.5 s together, so the work is one transaction
// and the budget is 1 s. It fails open and never blocks (blocking PreCompact
// would stop compaction).
package sessionend

import (
	"context"
	"fmt"
	"time"

	"github.com/vibe-science/vibe/internal/hook"
	"github.com/vibe-science/vibe/internal/hookrun"
	"github.com/vibe-science/vibe/internal/project"
	"github.com/vibe-science/vibe/internal/projectfiles"
	"github.com/vibe-science/vibe/internal/stopturn"
	"github.com/vibe-science/vibe/internal/store"
)

// Spec declares the hook.
var Spec = hookrun.Spec{
	Name:   "vibe-session-end",
	Events: []string{hook.SessionEnd, hook.PreCompact},
	Policy: hookrun.FailOpen,
	Budget: time.Second,
	Handle: Handle,
}

// Handle writes the final narrative.
func Handle(ctx context.Context, env *hookrun.Env, ev *hook.Event) (hookrun.Outcome, error) {
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
			return stopturn.Checkpoint(ctx, tx, ev.SessionID, "", nil, "")
		}
		if err := stopturn.Checkpoint(ctx, tx, ev.SessionID, "", &now, ev.Reason); err != nil {
			return err
		}
		s, err := tx.Session(ctx, ev.SessionID)
		if err != nil {
			return err
		}
		_, _, err = tx.AddMemory(ctx, store.NewMemory{
			ProjectPath: proj.Root, SessionID: ev.SessionID, Kind: store.KindNarrative,
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
