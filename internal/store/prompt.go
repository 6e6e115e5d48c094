package store

import (
	"context"

	"github.com/vibe-science/vibe/internal/store/record"
)

// LogPrompt appends to the prompt audit trail.
func (t *Tx) LogPrompt(ctx context.Context, p record.PromptSeen) error {
	_, err := t.tx.ExecContext(ctx, `
INSERT INTO prompt_log (session_id, prompt_id, agent_role, prompt_sha256, prompt_chars, ts)
VALUES (?, NULLIF(?, ''), NULLIF(?, ''), ?, ?, ?)`,
		p.SessionID, p.PromptID, p.AgentRole, p.SHA256, p.Chars, p.At.UnixMilli())
	return classify("log prompt", err)
}
