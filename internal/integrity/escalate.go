package integrity

import "github.com/vibe-science/vibe/internal/verdict"

// Reply is what a hook does with a verdict on one event; hookrun renders it.
type Reply string

// The replies.
const (
	// ReplyRecord stores the verdict and tells nobody.
	ReplyRecord Reply = "record"
	// ReplyContext adds the reason to Claude's context (additionalContext).
	ReplyContext Reply = "context"
	// ReplyDeny refuses a tool call before it runs (PreToolUse deny).
	ReplyDeny Reply = "deny"
	// ReplyBlock answers decision "block": revert the write (PostToolUse),
	// keep working (Stop), or drop the prompt (UserPromptSubmit).
	ReplyBlock Reply = "block"
)

// escalation is one event's row of the table: the reply for BLOCK and for
// HARD_BLOCK. PASS is always recorded and WARN always context.
type escalation struct{ block, hard Reply }

// escalations is the table documented in the package doc; events not listed
// fall back to context, because a verdict must never stop something the
// table does not understand.
var escalations = map[string]escalation{
	"PreToolUse":         {ReplyDeny, ReplyDeny},
	"PostToolUse":        {ReplyBlock, ReplyBlock},
	"PostToolUseFailure": {ReplyBlock, ReplyBlock},
	"PostToolBatch":      {ReplyBlock, ReplyBlock},
	"Stop":               {ReplyBlock, ReplyBlock},
	"SubagentStop":       {ReplyBlock, ReplyBlock},
	"UserPromptSubmit":   {ReplyContext, ReplyBlock},
}

// Escalate maps a result on a Claude Code event to the reply: PASS record,
// WARN context, BLOCK deny (PreToolUse) or block (PostToolUse, Stop),
// HARD_BLOCK deny on PreToolUse and block wherever an event can block. The
// full table and its reasons are in the package documentation.
func Escalate(event string, r verdict.Result) Reply {
	switch r {
	case verdict.Pass:
		return ReplyRecord
	case verdict.Block, verdict.HardBlock:
		row, ok := escalations[event]
		if !ok {
			return ReplyContext
		}
		if r == verdict.HardBlock {
			return row.hard
		}
		return row.block
	}
	// WARN, and any result the envelope does not know: report, never stop.
	return ReplyContext
}

// Dedup returns the verdicts of vs whose decision hash was neither seen
// before (seen may be nil) nor already taken earlier in vs, in their order.
// A verdict without a hash cannot be recognised again and is always kept.
// vs is not modified.
func Dedup(vs []verdict.Verdict, seen func(hash string) bool) []verdict.Verdict {
	out := make([]verdict.Verdict, 0, len(vs))
	taken := make(map[string]struct{}, len(vs))
	for _, v := range vs {
		h := v.DecisionHash
		if h == "" {
			out = append(out, v)
			continue
		}
		if _, dup := taken[h]; dup {
			continue
		}
		taken[h] = struct{}{}
		if seen != nil && seen(h) {
			continue
		}
		out = append(out, v)
	}
	return out
}
