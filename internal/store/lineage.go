package store

import (
	"context"
	"database/sql"
	"time"

	"github.com/vibe-science/vibe/internal/privacy"
	"github.com/vibe-science/vibe/internal/store/record"
)

// AddLineage records who wrote one version of a result file and returns
// its row id, for SetLineageDetail.
func (t *Tx) AddLineage(ctx context.Context, l record.Lineage) (int64, error) {
	var detail any
	if len(l.Detail) > 0 {
		detail = string(privacy.ScrubJSON(l.Detail))
	}
	res, err := t.tx.ExecContext(ctx, `
INSERT INTO artifact_lineage (project_path, path, sha256, writer, by_what, tool, session_id, tool_use_id, ts, detail)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		l.Project, l.Path, l.SHA256, l.Writer, privacy.Scrub(l.By), l.Tool, l.Session, l.ToolUseID, l.At.UnixMilli(), detail)
	if err != nil {
		return 0, classify("record lineage", err)
	}
	id, err := res.LastInsertId()
	return id, classify("record lineage", err)
}

// SetLineageDetail stores the full record of a lineage row, captured after
// the reply.
func (s *Store) SetLineageDetail(ctx context.Context, id int64, detail []byte) error {
	_, err := s.db.ExecContext(ctx, "UPDATE artifact_lineage SET detail = ? WHERE id = ?", string(privacy.ScrubJSON(detail)), id)
	return classify("record lineage detail", err)
}

// LineageOf lists the rows recorded for a content hash in a project, any
// path (a copy keeps its content's origin), oldest first: what DQ4 and
// promotion decide a source's origin from, by one indexed lookup.
func (s *Store) LineageOf(ctx context.Context, project, sha string) ([]record.Lineage, error) {
	return s.lineage(ctx, `WHERE project_path = ? AND sha256 = ? ORDER BY id`, project, sha)
}

// LatestLineage is the newest row of each path of a project that has one
// (with its detail), sorted by path: what `vibe repro check` compares.
func (s *Store) LatestLineage(ctx context.Context, project string) ([]record.Lineage, error) {
	return s.lineage(ctx, `WHERE id IN (SELECT MAX(id) FROM artifact_lineage WHERE project_path = ? GROUP BY path) ORDER BY path`, project)
}

// LineageHistory lists the rows of one path, newest first, at most limit.
func (s *Store) LineageHistory(ctx context.Context, project, path string, limit int) ([]record.Lineage, error) {
	return s.lineage(ctx, `WHERE project_path = ? AND path = ? ORDER BY id DESC LIMIT ?`, project, path, limit)
}

func (s *Store) lineage(ctx context.Context, where string, args ...any) ([]record.Lineage, error) {
	rows, err := s.db.QueryContext(ctx, `
SELECT id, project_path, path, sha256, writer, by_what, tool, session_id, tool_use_id, ts, detail
FROM artifact_lineage `+where, args...)
	if err != nil {
		return nil, classify("read lineage", err)
	}
	defer rows.Close()
	var out []record.Lineage
	for rows.Next() {
		var l record.Lineage
		var at int64
		var detail sql.NullString
		if err := rows.Scan(&l.ID, &l.Project, &l.Path, &l.SHA256, &l.Writer, &l.By, &l.Tool, &l.Session, &l.ToolUseID, &at, &detail); err != nil {
			return nil, classify("read lineage", err)
		}
		l.At = time.UnixMilli(at)
		if detail.Valid {
			l.Detail = []byte(detail.String)
		}
		out = append(out, l)
	}
	return out, classify("read lineage", rows.Err())
}
