// Package pretool is the PreToolUse hook: the only point where vibe can stop
// a write before it happens. It upserts the session and runs the checks that
// can be judged from the proposed call. Its policy is fail-closed for tools
// that can write (a crash, timeout or unreadable event denies the call) and
// fail-open for the rest.
package pretool

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/vibe-science/vibe/internal/hook"
	"github.com/vibe-science/vibe/internal/hookrun"
	"github.com/vibe-science/vibe/internal/project"
	"github.com/vibe-science/vibe/internal/store"
)

// Spec declares the hook.
var Spec = hookrun.Spec{
	Name:      "vibe-pre-tool-use",
	Events:    []string{hook.PreToolUse},
	Policy:    hookrun.FailClosed,
	Budget:    5 * time.Second,
	Handle:    Handle,
	ClosedFor: func(ev *hook.Event) bool { return MayWrite(ev.ToolName) },
}

// MayWrite reports whether a tool can change files, so that an undecidable
// call to it is refused rather than let through.
func MayWrite(tool string) bool {
	switch tool {
	case "Write", "Edit", "MultiEdit", "NotebookEdit", "Bash", "PowerShell":
		return true
	}
	return strings.HasPrefix(tool, "mcp__")
}

// Handle judges one proposed tool call.
func Handle(ctx context.Context, env *hookrun.Env, ev *hook.Event) (hookrun.Outcome, error) {
	proj := project.Resolve(ev.Cwd)
	now := env.Now()
	st, err := env.Store(ctx)
	if err != nil {
		env.Note("the memory database is unavailable (%v); checks that need recorded history could not run", err)
		return hookrun.Outcome{}, nil
	}
	if err := st.Tx(ctx, func(tx *store.Tx) error {
		return tx.UpsertSession(ctx, hookrun.Seen(ev, proj.Root, now))
	}); err != nil {
		return hookrun.Outcome{}, fmt.Errorf("record session: %w", err)
	}
	return hookrun.Outcome{}, nil
}
