package store

import (
	"context"
	"time"
)

// PromptSeen is what vibe keeps of a user prompt: its hash and length, never
// its text.
type PromptSeen struct {
	SessionID string
	PromptID  string
	AgentRole string
	SHA256    string
	Chars     int
	At        time.Time
}

// LogPrompt appends to the prompt audit trail.
func (t *Tx) LogPrompt(ctx context.Context, p PromptSeen) error {
	_, err := t.tx.ExecContext(ctx, `
INSERT INTO prompt_log (session_id, prompt_id, agent_role, prompt_sha256, prompt_chars, ts)
VALUES (?, NULLIF(?, ''), NULLIF(?, ''), ?, ?, ?)`,
		p.SessionID, p.PromptID, p.AgentRole, p.SHA256, p.Chars, p.At.UnixMilli())
	return classify("log prompt", err)
}
