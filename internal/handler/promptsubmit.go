package handler

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"time"
	"unicode/utf8"

	"github.com/vibe-science/vibe/internal/disclosure"
	"github.com/vibe-science/vibe/internal/hook"
	"github.com/vibe-science/vibe/internal/hookrun"
	"github.com/vibe-science/vibe/internal/integrity"
	"github.com/vibe-science/vibe/internal/privacy"
	"github.com/vibe-science/vibe/internal/recall"
	"github.com/vibe-science/vibe/internal/store"
	"github.com/vibe-science/vibe/internal/store/record"
)

// PromptSubmit declares the hook.
var PromptSubmit = hookrun.Spec{
	Name:   "vibe-prompt-submit",
	Events: []string{hook.UserPromptSubmit},
	Policy: hookrun.FailOpen,
	Budget: 5 * time.Second,
	Handle: handlePromptSubmit,
}

// handlePromptSubmit records the prompt's hash.
func handlePromptSubmit(ctx context.Context, env *hookrun.Env, ev *hook.Event) (hookrun.Outcome, error) {
	proj := env.Project(ev.Cwd)
	now := env.Now()
	sum := sha256.Sum256([]byte(ev.Prompt))
	seen := hookrun.Seen(ev, proj.Root, now)
	// The recall below does not read it, so the resident process logs the
	// prompt after its reply; spooled when the database refuses it now
	// (hookrun.Env.Record).
	env.AfterReply(ctx, func(ctx context.Context) {
		if err := env.Record(ctx, store.Record{Session: &seen, Prompt: &record.PromptSeen{
			SessionID: ev.SessionID, PromptID: ev.PromptID, AgentRole: ev.AgentType,
			SHA256: hex.EncodeToString(sum[:]), Chars: utf8.RuneCountInString(ev.Prompt), At: now,
		}}); err != nil {
			env.Note("this prompt's hash could not be logged: %v", err)
			env.Logf("log prompt: %v", err)
		}
	})
	st, err := env.Store(ctx)
	if err != nil {
		env.NoteUnavailable(integrity.DepDatabase, "the memory database is unavailable (%v); this prompt's hash was spooled and nothing was recalled", err)
		return hookrun.Outcome{}, nil
	}
	// Recall: the prompt is the query (used, never stored); the worker has
	// RecallDeadline to answer, else the recall is lexical and says so.
	vec := recall.HookVectors(env.Getenv, env.Paths().Socket, env.Settings().RecallDeadline(), env.StartQuery, env.Query)
	text, _, err := disclosure.PromptContext(ctx, st, vec, proj.Root, privacy.Scrub(ev.Prompt), now, env.Settings().PromptRecallTokens)
	if err != nil {
		env.Logf("prompt recall: %v", err)
		return hookrun.Outcome{}, nil
	}
	if text == "" {
		return hookrun.Outcome{}, nil
	}
	return hookrun.Outcome{Context: []string{text}}, nil
}
