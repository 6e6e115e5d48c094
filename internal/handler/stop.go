package handler

import (
	"context"
	"fmt"
	"time"

	"github.com/vibe-science/vibe/internal/buildinfo"
	"github.com/vibe-science/vibe/internal/claimcheck"
	"github.com/vibe-science/vibe/internal/hook"
	"github.com/vibe-science/vibe/internal/hookrun"
	"github.com/vibe-science/vibe/internal/narrative"
	"github.com/vibe-science/vibe/internal/resume"
	"github.com/vibe-science/vibe/internal/store"
	"github.com/vibe-science/vibe/internal/store/record"
	"github.com/vibe-science/vibe/internal/tamper"
)

// Stop declares the hook.
var Stop = hookrun.Spec{
	Name:   "vibe-stop",
	Events: []string{hook.Stop, hook.SubagentStop},
	Policy: hookrun.FailOpen,
	Budget: 5 * time.Second,
	Handle: handleStop,
}

// handleStop checkpoints the narrative and, after the reply, the project's
// TREE-STATE.json (LAW 7).
func handleStop(ctx context.Context, env *hookrun.Env, ev *hook.Event) (hookrun.Outcome, error) {
	proj := env.Project(ev.Cwd)
	now := env.Now()
	// The last look at the protected files needs no database; a claim
	// ledger changed since the last call is judged as after a call.
	net := &ledgerNet{env: env, proj: proj}
	restored := tamper.AtStop(ctx, env, ev, net.veto(ctx))
	st, err := env.Store(ctx)
	if err != nil {
		env.Note("the memory database is unavailable (%v); the session narrative was not saved", err)
		return hookrun.Outcome{Verdicts: restored}, nil
	}
	var out hookrun.Outcome
	seen := hookrun.Seen(ev, proj.Root, now)
	if len(net.changed) > 0 {
		// Their claims count for LAW 4 below.
		call := Call{Project: proj}
		call.addChanged(net.changed)
		if err := st.Tx(ctx, func(tx *store.Tx) error {
			if err := tx.UpsertSession(ctx, seen); err != nil {
				return err
			}
			return recordClaims(ctx, tx, ev, call, now)
		}); err != nil {
			env.Logf("record the claim events of %v: %v", net.changed, err)
		}
	}
	decide := ev.HookEventName != hook.SubagentStop
	if decide {
		// Most turns create no claim: one read says so, and nothing is
		// written before the reply.
		pending, err := st.StopPending(ctx, ev.SessionID)
		if err != nil {
			env.Logf("probe the session's claims: %v", err)
		}
		decide = err != nil || pending
	}
	if decide {
		err = st.Tx(ctx, func(tx *store.Tx) error {
			if err := tx.UpsertSession(ctx, seen); err != nil {
				return err
			}
			vs, err := claimcheck.StopCheck(ctx, tx, ev.SessionID, ev.StopHookActive, env.Settings().StopBlockLimit)
			out.Verdicts = vs
			return err
		})
		if err != nil {
			if len(restored) == 0 {
				return hookrun.Outcome{}, fmt.Errorf("check the session's claims: %w", err)
			}
			env.Note("check the session's claims: %v", err)
			return hookrun.Outcome{Verdicts: restored}, nil
		}
	}
	// The session row and the narrative are memory, not the decision: in
	// the resident process they are written after the reply. A session row
	// the database refuses is spooled; the narrative is rebuilt from the
	// facts at the next Stop.
	env.AfterReply(ctx, func(ctx context.Context) {
		if !decide {
			if err := env.Record(ctx, store.Record{Session: &seen}); err != nil {
				env.Logf("record session: %v", err)
				return
			}
		}
		if ev.HookEventName == hook.SubagentStop {
			return
		}
		if err := st.Tx(ctx, func(tx *store.Tx) error { return Checkpoint(ctx, tx, ev.SessionID, ev.PromptID, nil, "") }); err != nil {
			env.Logf("checkpoint narrative: %v", err)
		}
		if _, err := resume.WriteTree(ctx, st, proj, ev.SessionID, buildinfo.Version, now); err != nil {
			env.Logf("write %s: %v", resume.TreeStateFile, err)
		}
	})
	out.Verdicts = append(out.Verdicts, restored...)
	return out, nil
}

// Checkpoint writes the narrative for the session. With a turn id it runs
// once per turn; endedAt marks the final summary of SessionEnd.
func Checkpoint(ctx context.Context, tx *store.Tx, session, turn string, endedAt *time.Time, reason string) error {
	if turn != "" && endedAt == nil {
		s, err := tx.Session(ctx, session)
		if err != nil {
			return err
		}
		if s.NarrativeTurn == turn && s.NarrativeSummary != "" {
			return nil
		}
	}
	facts, err := tx.Facts(ctx, session)
	if err != nil {
		return err
	}
	counts, err := tx.SessionCountsFor(ctx, session)
	if err != nil {
		return err
	}
	return tx.SaveSummary(ctx, record.SessionSummary{
		ID: session, Narrative: narrative.Build(facts), Turn: turn, Counts: counts, EndedAt: endedAt, EndReason: reason,
	})
}
