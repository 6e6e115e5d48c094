package store

import (
	"context"
	"database/sql"
	"time"

	"github.com/vibe-science/vibe/internal/privacy"
	"github.com/vibe-science/vibe/internal/store/record"
)

// AddMistake records a failed call; its texts are scrubbed of secrets.
func (t *Tx) AddMistake(ctx context.Context, m record.Mistake) (int64, error) {
	res, err := t.tx.ExecContext(ctx, `
INSERT INTO mistakes (project_path, session_id, target, tool, tried, error, memory_id, failed_at)
VALUES (?, NULLIF(?, ''), ?, ?, ?, ?, NULLIF(?, 0), ?)`,
		m.Project, m.Session, privacy.Scrub(m.Target), m.Tool, privacy.Scrub(m.Tried), privacy.Scrub(m.Error), m.MemoryID, m.FailedAt.UnixMilli())
	if err != nil {
		return 0, classify("record mistake", err)
	}
	id, err := res.LastInsertId()
	return id, classify("record mistake", err)
}

// FixMistakes marks the open mistakes of a target fixed by a call that
// succeeded, and returns them as they are now.
func (t *Tx) FixMistakes(ctx context.Context, project, target, fixedBy string, at time.Time) ([]record.Mistake, error) {
	rows, err := t.tx.QueryContext(ctx, `
SELECT id, COALESCE(session_id, ''), tool, tried, error, COALESCE(memory_id, 0), failed_at
FROM mistakes WHERE project_path = ? AND target = ? AND fixed_at IS NULL ORDER BY id`, project, target)
	if err != nil {
		return nil, classify("find open mistakes", err)
	}
	var out []record.Mistake
	for rows.Next() {
		m := record.Mistake{Project: project, Target: target, FixedBy: privacy.Scrub(fixedBy), FixedAt: at}
		var failed int64
		if err := rows.Scan(&m.ID, &m.Session, &m.Tool, &m.Tried, &m.Error, &m.MemoryID, &failed); err != nil {
			rows.Close()
			return nil, classify("find open mistakes", err)
		}
		m.FailedAt = time.UnixMilli(failed)
		out = append(out, m)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, classify("find open mistakes", err)
	}
	for _, m := range out {
		if _, err := t.tx.ExecContext(ctx, "UPDATE mistakes SET fixed_by = ?, fixed_at = ? WHERE id = ?",
			m.FixedBy, at.UnixMilli(), m.ID); err != nil {
			return nil, classify("record fix", err)
		}
	}
	return out, nil
}

// SetMistakeMemory points a mistake at the memory that now tells it.
func (t *Tx) SetMistakeMemory(ctx context.Context, id, memoryID int64) error {
	_, err := t.tx.ExecContext(ctx, "UPDATE mistakes SET memory_id = ? WHERE id = ?", memoryID, id)
	return classify("record mistake memory", err)
}

// Mistakes returns a target's mistakes in a project, newest first.
func (s *Store) Mistakes(ctx context.Context, project, target string, limit int) ([]record.Mistake, error) {
	rows, err := s.db.QueryContext(ctx, `
SELECT id, COALESCE(session_id, ''), tool, tried, error, COALESCE(memory_id, 0), failed_at, COALESCE(fixed_by, ''), fixed_at
FROM mistakes WHERE project_path = ? AND target = ? ORDER BY failed_at DESC, id DESC LIMIT ?`, project, target, limit)
	if err != nil {
		return nil, classify("read mistakes", err)
	}
	defer rows.Close()
	var out []record.Mistake
	for rows.Next() {
		m := record.Mistake{Project: project, Target: target}
		var failed int64
		var fixed sql.NullInt64
		if err := rows.Scan(&m.ID, &m.Session, &m.Tool, &m.Tried, &m.Error, &m.MemoryID, &failed, &m.FixedBy, &fixed); err != nil {
			return nil, classify("read mistakes", err)
		}
		m.FailedAt = time.UnixMilli(failed)
		if fixed.Valid {
			m.FixedAt = time.UnixMilli(fixed.Int64)
		}
		out = append(out, m)
	}
	return out, classify("read mistakes", rows.Err())
}
