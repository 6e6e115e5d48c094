package store

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"time"

	"github.com/vibe-science/vibe/internal/fault"
	"github.com/vibe-science/vibe/internal/privacy"
	"github.com/vibe-science/vibe/internal/store/record"
)

// AddDownload records a download and returns its id. The URL is scrubbed
// like every recorded text (a token in a query string is not kept).
func (t *Tx) AddDownload(ctx context.Context, d record.Download) (int64, error) {
	if d.ProjectPath == "" || strings.TrimSpace(d.Path) == "" || strings.TrimSpace(d.URL) == "" {
		return 0, fault.Errorf(fault.Invalid, "add download", "project, path and url are required")
	}
	var size any
	if d.Size >= 0 {
		size = d.Size
	}
	res, err := t.tx.ExecContext(ctx, `
INSERT INTO downloads (project_path, session_id, url, path, sha256, size, ts) VALUES (?, ?, ?, ?, ?, ?, ?)`,
		d.ProjectPath, d.SessionID, privacy.Scrub(d.URL), d.Path, d.SHA256, size, d.At.UnixMilli())
	if err != nil {
		return 0, classify("add download", err)
	}
	id, err := res.LastInsertId()
	return id, classify("add download", err)
}

// Downloads lists a project's downloads, oldest first.
func (s *Store) Downloads(ctx context.Context, project string) ([]record.Download, error) {
	rows, err := s.db.QueryContext(ctx, `
SELECT id, project_path, session_id, url, path, sha256, COALESCE(size, -1), ts
FROM downloads WHERE project_path = ? ORDER BY ts, id`, project)
	if err != nil {
		return nil, classify("list downloads", err)
	}
	defer rows.Close()
	var out []record.Download
	for rows.Next() {
		var d record.Download
		var ts int64
		if err := rows.Scan(&d.ID, &d.ProjectPath, &d.SessionID, &d.URL, &d.Path, &d.SHA256, &d.Size, &ts); err != nil {
			return nil, classify("list downloads", err)
		}
		d.At = time.UnixMilli(ts).UTC()
		out = append(out, d)
	}
	return out, classify("list downloads", rows.Err())
}

// ActionsSince counts a project's spine entries strictly after t; it reads
// the (project_path, ts) index only.
func (s *Store) ActionsSince(ctx context.Context, project string, t time.Time) (int, error) {
	var n int
	err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM spine_entries WHERE project_path = ? AND ts > ?`,
		project, t.UnixMilli()).Scan(&n)
	return n, classify("count actions", err)
}

// ActionTextsSince returns the input summaries of a project's spine entries
// strictly after t, oldest first, at most limit of them (the newest when
// there are more): what the observer searches for the name of a dataset.
func (s *Store) ActionTextsSince(ctx context.Context, project string, t time.Time, limit int) ([]record.ActionText, error) {
	rows, err := s.db.QueryContext(ctx, `
SELECT ts, input_summary,
       COALESCE((SELECT group_concat(path, char(10)) FROM provenance p WHERE p.spine_id = e.id AND p.op = 'write'), '')
FROM (
  SELECT ts, id, input_summary FROM spine_entries WHERE project_path = ? AND ts > ? ORDER BY ts DESC, id DESC LIMIT ?
) e ORDER BY ts, id`, project, t.UnixMilli(), limit)
	if err != nil {
		return nil, classify("read action texts", err)
	}
	defer rows.Close()
	var out []record.ActionText
	for rows.Next() {
		var a record.ActionText
		var ts int64
		var wrote string
		if err := rows.Scan(&ts, &a.Summary, &wrote); err != nil {
			return nil, classify("read action texts", err)
		}
		if wrote != "" {
			a.Wrote = strings.Split(wrote, "\n")
		}
		a.At = time.UnixMilli(ts).UTC()
		out = append(out, a)
	}
	return out, classify("read action texts", rows.Err())
}

// NthRecentAction is the time of a project's n-th most recent spine entry
// (n = 1 is the newest), and whether the project has that many: anything
// first seen before it has waited at least n actions.
func (s *Store) NthRecentAction(ctx context.Context, project string, n int) (time.Time, bool, error) {
	if n < 1 {
		n = 1
	}
	var ts int64
	err := s.db.QueryRowContext(ctx, `SELECT ts FROM spine_entries WHERE project_path = ? ORDER BY ts DESC, id DESC LIMIT 1 OFFSET ?`,
		project, n-1).Scan(&ts)
	if errors.Is(err, sql.ErrNoRows) {
		return time.Time{}, false, nil
	}
	if err != nil {
		return time.Time{}, false, classify("read recent actions", err)
	}
	return time.UnixMilli(ts).UTC(), true, nil
}
