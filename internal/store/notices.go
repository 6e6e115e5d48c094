package store

import (
	"context"
	"strings"
	"time"
)

// Noticed returns which of paths check has already been said about in the
// session (AddNotices): a warning said once per file and session.
func (s *Store) Noticed(ctx context.Context, session, project, check string, paths []string) (map[string]bool, error) {
	out := map[string]bool{}
	if len(paths) == 0 {
		return out, nil
	}
	args := []any{session, project, check}
	for _, p := range paths {
		args = append(args, p)
	}
	rows, err := s.db.QueryContext(ctx, `SELECT path FROM session_notices
WHERE session_id = ? AND project_path = ? AND check_name = ? AND path IN (?`+strings.Repeat(", ?", len(paths)-1)+`)`, args...)
	if err != nil {
		return nil, classify("read session notices", err)
	}
	defer rows.Close()
	for rows.Next() {
		var p string
		if err := rows.Scan(&p); err != nil {
			return nil, classify("read session notices", err)
		}
		out[p] = true
	}
	return out, classify("read session notices", rows.Err())
}

// AddNotices records that check was said about paths in the session.
func (t *Tx) AddNotices(ctx context.Context, session, project, check string, paths []string, at time.Time) error {
	for _, p := range paths {
		if _, err := t.tx.ExecContext(ctx, `INSERT OR IGNORE INTO session_notices (session_id, project_path, check_name, path, ts)
VALUES (?, ?, ?, ?, ?)`, session, project, check, p, at.UnixMilli()); err != nil {
			return classify("record session notice", err)
		}
	}
	return nil
}
