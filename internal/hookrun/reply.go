package hookrun

import (
	"strings"

	"github.com/vibe-science/vibe/internal/hook"
	"github.com/vibe-science/vibe/internal/verdict"
)

// Outcome is what a handler decided.
type Outcome struct {
	// Verdicts are every check's result; they are recorded and mapped.
	Verdicts []verdict.Verdict
	// Ask lists reasons to ask the user first (PreToolUse only): operations
	// that need approval. A block still wins over an ask.
	Ask []string
	// Context is information for Claude (additionalContext) that is not a
	// verdict: the SessionStart state block, recalled memories.
	Context []string
}

// Reply is the one verdict → reply table of DESIGN.md:
//
//	event            BLOCK / HARD_BLOCK                   WARN                 PASS
//	PreToolUse       permissionDecision deny + reasons    additionalContext    recorded only
//	PreSkillShellCommand  permissionDecision deny + reasons  systemMessage     recorded only
//	PostToolUse      decision block + what to revert      additionalContext    recorded only
//	Stop/SubagentStop decision block + reasons            systemMessage        recorded only
//	ConfigChange     decision block + reasons, and systemMessage  systemMessage  recorded only
//	SessionStart     additionalContext (cannot block)     additionalContext    recorded only
//	UserPromptSubmit additionalContext (never erase)      additionalContext    recorded only
//	SessionEnd/PreCompact/Setup  systemMessage (never block)  systemMessage    recorded only
//
// On Stop a WARN goes to the user, not to additionalContext, because Stop's
// additionalContext continues the turn. PreSkillShellCommand has no
// channel to Claude but its refusal (Claude Code 2.1.332 drops
// additionalContext there, and shows Claude "[not run: blocked by hook:
// <reason>]" in the skill's text), so its warnings go to the user. A
// ConfigChange block keeps the change out of the running session (the file
// stays as written; the next session reads it). notes are user-facing
// sentences (degraded dependencies and the like).
func Reply(event string, o Outcome, notes []string) *hook.Reply {
	verdict.Sort(o.Verdicts)
	var blocks, warns []string
	for _, v := range o.Verdicts {
		switch {
		case v.Result.Blocks():
			blocks = append(blocks, line(v))
		case v.Result == verdict.Warn:
			warns = append(warns, line(v))
		}
	}
	r := &hook.Reply{}
	sys := append([]string(nil), notes...)
	ctx := append([]string(nil), o.Context...)

	switch event {
	case hook.PreToolUse, hook.PreSkillShellCommand:
		spec := &hook.Specific{HookEventName: event}
		switch {
		case len(blocks) > 0:
			spec.PermissionDecision = "deny"
			spec.PermissionDecisionReason = strings.Join(blocks, "\n")
		case len(o.Ask) > 0:
			spec.PermissionDecision = "ask"
			spec.PermissionDecisionReason = strings.Join(o.Ask, "\n")
		}
		if event == hook.PreSkillShellCommand {
			sys = append(sys, ctx...)
			sys = append(sys, warns...)
		} else {
			ctx = append(ctx, warns...)
			spec.AdditionalContext = strings.Join(ctx, "\n")
		}
		if spec.PermissionDecision != "" || spec.AdditionalContext != "" {
			r.HookSpecific = spec
		}
	case hook.PostToolUse, hook.PostToolUseFailure:
		if len(blocks) > 0 {
			r.Decision = "block"
			r.Reason = strings.Join(blocks, "\n")
		}
		ctx = append(ctx, warns...)
		if len(ctx) > 0 {
			r.HookSpecific = &hook.Specific{HookEventName: event, AdditionalContext: strings.Join(ctx, "\n")}
		}
	case hook.Stop, hook.SubagentStop:
		if len(blocks) > 0 {
			r.Decision = "block"
			r.Reason = strings.Join(blocks, "\n")
		}
		sys = append(sys, warns...)
	case hook.ConfigChange:
		// The reason is the client's record of the refusal; the person
		// reads it as a warning.
		if len(blocks) > 0 {
			r.Decision = "block"
			r.Reason = strings.Join(blocks, "\n")
		}
		sys = append(sys, blocks...)
		sys = append(sys, warns...)
	case hook.SessionStart, hook.UserPromptSubmit:
		ctx = append(ctx, blocks...)
		ctx = append(ctx, warns...)
		if len(ctx) > 0 {
			r.HookSpecific = &hook.Specific{HookEventName: event, AdditionalContext: strings.Join(ctx, "\n")}
		}
	default: // SessionEnd, PreCompact, Setup: nothing can or should be blocked.
		sys = append(sys, blocks...)
		sys = append(sys, warns...)
	}
	if len(sys) > 0 {
		r.SystemMessage = "vibe: " + strings.Join(sys, "\nvibe: ")
	}
	return r
}

// line renders a verdict as the sentence Claude reads: the reason, then the
// fix when there is one.
func line(v verdict.Verdict) string {
	s := v.Reason
	if v.Recommendation != "" && !strings.Contains(s, v.Recommendation) {
		s += " Fix: " + v.Recommendation
	}
	return s
}
