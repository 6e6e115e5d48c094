package hookrun

import (
	"strings"

	"github.com/vibe-science/vibe/internal/hook"
	"github.com/vibe-science/vibe/internal/store/record"
	"github.com/vibe-science/vibe/internal/verdict"
)

// Outcome is what a handler decided.
type Outcome struct {
	// Verdicts are every check's result; they are recorded and mapped.
	Verdicts []verdict.Verdict
	// Ask are the checks that ask the user first (PreToolUse only):
	// operations that need approval, each verdict's Reason the question's
	// reason. A block still wins over an ask. They are recorded as asks.
	Ask []verdict.Verdict
	// Context is information for Claude (additionalContext) that is not a
	// verdict: the SessionStart state block, recalled memories.
	Context []string
}

// decided is one verdict with what the reply does with it
// (record.DecisionKinds).
type decided struct {
	v    verdict.Verdict
	kind string
}

// Decide is the one verdict → reply table of DESIGN.md, verdict by verdict:
//
//	event             BLOCK / HARD_BLOCK                   WARN                 PASS
//	PreToolUse        deny: permissionDecision + reasons   warn: additionalContext  recorded
//	PreSkillShellCommand deny: permissionDecision + reasons warn: systemMessage     recorded
//	PostToolUse       block: decision + what to revert     warn: additionalContext  recorded
//	Stop/SubagentStop block: decision + reasons            warn: systemMessage      recorded
//	ConfigChange      block: decision + reasons, systemMessage  warn: systemMessage recorded
//	SessionStart      warn: additionalContext (cannot block) warn: additionalContext recorded
//	UserPromptSubmit  warn: additionalContext (never erase) warn: additionalContext  recorded
//	SessionEnd/PreCompact/Setup warn: systemMessage (never block) warn: systemMessage recorded
//
// PreSkillShellCommand has no channel to Claude but its refusal (Claude
// Code 2.1.332 drops additionalContext there, and shows Claude "[not run:
// blocked by hook: <reason>]" in the skill's text), so its warnings go to
// the user. A ConfigChange block keeps the change out of the running
// session (the file stays as written; the next session reads it).
//
// An ask of PreToolUse is an ask unless a deny wins (then it is recorded
// only, as is an ask of any other event). It returns o.Verdicts hardest
// first, then o.Ask in order; Main records each with its decision and
// reply answers from them, so what is recorded is what the client was told.
func decide(event string, o Outcome) []decided {
	verdict.Sort(o.Verdicts)
	out := make([]decided, 0, len(o.Verdicts)+len(o.Ask))
	denied := false
	for _, v := range o.Verdicts {
		k := kindOf(event, v.Result)
		denied = denied || k == record.DecisionDeny
		out = append(out, decided{v, k})
	}
	for _, v := range o.Ask {
		k := record.DecisionAsk
		if (event != hook.PreToolUse && event != hook.PreSkillShellCommand) || denied {
			k = record.DecisionRecorded
		}
		out = append(out, decided{v, k})
	}
	return out
}

// kindOf is what a verdict's result does on an event.
func kindOf(event string, r verdict.Result) string {
	switch {
	case r == verdict.Pass:
		return record.DecisionRecorded
	case !r.Blocks():
		return record.DecisionWarn
	}
	switch event {
	case hook.PreToolUse, hook.PreSkillShellCommand:
		return record.DecisionDeny
	case hook.PostToolUse, hook.PostToolUseFailure, hook.Stop, hook.SubagentStop, hook.ConfigChange:
		return record.DecisionBlock
	}
	return record.DecisionWarn // an event that cannot block tells instead
}

// reply is Claude Code's reply to what decide decided, with context (for
// Claude) and notes (user-facing sentences: degraded dependencies and the
// like). On Stop a WARN goes to the user, not to additionalContext,
// because Stop's additionalContext continues the turn.
func reply(event string, ds []decided, context, notes []string) *hook.Reply {
	var blocks, asks, warns []string
	for _, d := range ds {
		switch d.kind {
		case record.DecisionDeny, record.DecisionBlock:
			blocks = append(blocks, line(d.v))
		case record.DecisionAsk:
			asks = append(asks, d.v.Reason) // the user's question: the fix is for Claude
		case record.DecisionWarn:
			warns = append(warns, line(d.v))
		}
	}
	r := &hook.Reply{}
	sys := append([]string(nil), notes...)
	ctx := append([]string(nil), context...)

	switch event {
	case hook.PreToolUse, hook.PreSkillShellCommand:
		spec := &hook.Specific{HookEventName: event}
		switch {
		case len(blocks) > 0:
			spec.PermissionDecision = "deny"
			spec.PermissionDecisionReason = strings.Join(blocks, "\n")
		case len(asks) > 0:
			spec.PermissionDecision = "ask"
			spec.PermissionDecisionReason = strings.Join(asks, "\n")
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
		ctx = append(ctx, warns...)
		if len(ctx) > 0 {
			r.HookSpecific = &hook.Specific{HookEventName: event, AdditionalContext: strings.Join(ctx, "\n")}
		}
	default: // SessionEnd, PreCompact, Setup: nothing can or should be blocked.
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
	if fix := verdict.AddedFix(v.Reason, v.Recommendation); fix != "" {
		return v.Reason + " Fix: " + fix
	}
	return v.Reason
}
