package handler

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/vibe-science/vibe/internal/buildinfo"
	"github.com/vibe-science/vibe/internal/hook"
	"github.com/vibe-science/vibe/internal/hookrun"
	"github.com/vibe-science/vibe/internal/project"
	"github.com/vibe-science/vibe/internal/resume"
	"github.com/vibe-science/vibe/internal/store"
	"github.com/vibe-science/vibe/internal/store/record"
)

// SessionEnd declares the hook.
var SessionEnd = hookrun.Spec{
	Name:   "vibe-session-end",
	Events: []string{hook.SessionEnd, hook.PreCompact},
	Policy: hookrun.FailOpen,
	Budget: time.Second,
	Handle: handleSessionEnd,
}

// handleSessionEnd writes the final narrative (SessionEnd) or a checkpoint
// (PreCompact) and the project files. Neither event's reply carries
// anything, so the resident process does this work after answering: the
// end of a session no longer waits for it, and the work is not cut short
// by Claude Code's 1.5 s SessionEnd limit. Elsewhere it runs before the
// reply, whose systemMessage then says what failed; the worker logs it.
func handleSessionEnd(ctx context.Context, env *hookrun.Env, ev *hook.Event) (hookrun.Outcome, error) {
	proj := env.Project(ev.Cwd)
	now := env.Now()
	env.AfterReply(ctx, func(ctx context.Context) {
		if problem := endSession(ctx, env, ev, proj, now); problem != "" {
			env.Note("%s", problem)
			env.Logf("%s: %s", ev.HookEventName, problem)
		}
	})
	return hookrun.Outcome{}, nil
}

// endSession does handleSessionEnd's work and says what went wrong, if
// anything.
func endSession(ctx context.Context, env *hookrun.Env, ev *hook.Event, proj project.Project, now time.Time) string {
	st, err := env.Store(ctx)
	if err != nil {
		return fmt.Sprintf("the memory database is unavailable (%v); the final session summary was not saved", err)
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
		return fmt.Sprintf("the final narrative was not saved: %v", err)
	}
	// The project files (STATE.md section, SPINE.md, project_pickup.md,
	// TREE-STATE.json) follow the database; a failure here is reported, the
	// data is safe.
	var problems []string
	if ev.HookEventName == hook.PreCompact {
		if _, err := resume.Checkpoint(ctx, st, proj, ev.SessionID, now); err != nil {
			problems = append(problems, fmt.Sprintf("could not update .vibe-science/STATE.md: %v", err))
		}
	} else if err := resume.Export(ctx, st, proj, ev.SessionID, now); err != nil {
		problems = append(problems, fmt.Sprintf("could not export .vibe-science files: %v", err))
	}
	if _, err := resume.WriteTree(ctx, st, proj, ev.SessionID, buildinfo.Version, now); err != nil {
		problems = append(problems, fmt.Sprintf("could not write .vibe-science/%s: %v", resume.TreeStateFile, err))
	}
	// A daily copy of the database, taken at the end of a session (never
	// on a timer), for `vibe doctor --repair` to point at.
	if ev.HookEventName == hook.SessionEnd {
		if _, err := st.Backup(ctx, store.BackupDir(env.Paths().DB), store.BackupEvery, store.BackupKeep, now); err != nil {
			problems = append(problems, err.Error())
		}
	}
	return strings.Join(problems, "; ")
}
