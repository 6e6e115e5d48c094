package store

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"time"

	"github.com/vibe-science/vibe/internal/privacy"
)

// Memory kinds recall knows about.
const (
	KindNarrative   = "narrative"
	KindDecision    = "decision"
	KindGateFailure = "gate_failure"
	KindClaimEvent  = "claim_event"
	KindSeed        = "seed"
	KindNote        = "note"
	KindAction      = "action"
	// KindFailure is a tool call that failed, with its error: what was
	// tried and what went wrong.
	KindFailure = "failure"
)

// NewMemory is a text to remember.
type NewMemory struct {
	ProjectPath string
	SessionID   string
	Kind        string
	Text        string
	Ref         string
	Source      string // hook, cli, import
	Trust       float64
	At          time.Time
}

// ContentHash identifies a memory's text within a project, so the same text
// is stored once.
func ContentHash(kind, text string) string {
	sum := sha256.Sum256([]byte(kind + "\x00" + strings.TrimSpace(text)))
	return hex.EncodeToString(sum[:16])
}

// AddMemory stores a memory (FTS5 is kept by triggers) and queues it for
// embedding. A duplicate text in the same project returns the existing id
// and queues nothing.
func (t *Tx) AddMemory(ctx context.Context, m NewMemory) (id int64, added bool, err error) {
	if m.Trust == 0 {
		m.Trust = 1
	}
	if m.Source == "" {
		m.Source = "hook"
	}
	m.Text, m.Ref = privacy.Scrub(m.Text), privacy.Scrub(m.Ref)
	hash := ContentHash(m.Kind, m.Text)
	ms := m.At.UnixMilli()
	res, err := t.tx.ExecContext(ctx, `
INSERT INTO memories (project_path, session_id, kind, text, ref, source, trust, content_hash, created_at)
VALUES (?, NULLIF(?, ''), ?, ?, NULLIF(?, ''), ?, ?, ?, ?)
ON CONFLICT(project_path, content_hash) DO NOTHING`,
		m.ProjectPath, m.SessionID, m.Kind, m.Text, m.Ref, m.Source, m.Trust, hash, ms)
	if err != nil {
		return 0, false, classify("add memory", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		err := t.tx.QueryRowContext(ctx, "SELECT id FROM memories WHERE project_path = ? AND content_hash = ?",
			m.ProjectPath, hash).Scan(&id)
		return id, false, classify("find memory", err)
	}
	id, err = res.LastInsertId()
	if err != nil {
		return 0, false, classify("add memory", err)
	}
	if _, err := t.tx.ExecContext(ctx, `
INSERT INTO embed_queue (memory_id, created_at, updated_at) VALUES (?, ?, ?)`, id, ms, ms); err != nil {
		return 0, false, classify("queue embedding", err)
	}
	return id, true, nil
}
