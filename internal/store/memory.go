package store

import (
	"context"

	"github.com/vibe-science/vibe/internal/privacy"
	"github.com/vibe-science/vibe/internal/store/record"
)

// AddMemory stores a memory (FTS5 is kept by triggers) and queues it for
// embedding. A duplicate text in the same project returns the existing id
// and queues nothing.
func (t *Tx) AddMemory(ctx context.Context, m record.NewMemory) (id int64, added bool, err error) {
	if m.Source == "" {
		m.Source = "hook"
	}
	trust := record.TrustOf(m)
	m.Text, m.Ref = privacy.Scrub(m.Text), privacy.Scrub(m.Ref)
	hash := record.ContentHash(m.Kind, m.Text)
	ms := m.At.UnixMilli()
	res, err := t.tx.ExecContext(ctx, `
INSERT INTO memories (project_path, session_id, kind, text, ref, source, trust, content_hash, created_at, unchecked)
VALUES (?, NULLIF(?, ''), ?, ?, NULLIF(?, ''), ?, ?, ?, ?, ?)
ON CONFLICT(project_path, content_hash) DO NOTHING`,
		m.ProjectPath, m.SessionID, m.Kind, m.Text, m.Ref, m.Source, trust, hash, ms, !m.Checked)
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
