package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"time"

	"github.com/vibe-science/vibe/internal/fault"
	"github.com/vibe-science/vibe/internal/privacy"
	"github.com/vibe-science/vibe/internal/store/record"
)

// AddBrief appends a brief version, which becomes the project's current
// brief, and returns its id. Every string inside Content is scrubbed one by
// one, so the stored JSON stays valid whatever the scrubber replaces.
func (t *Tx) AddBrief(ctx context.Context, b record.BriefVersion) (int64, error) {
	if !json.Valid(b.Content) {
		return 0, fault.E(fault.Invalid, "record brief", errors.New("brief content is not JSON"))
	}
	content := privacy.ScrubJSON(b.Content)
	res, err := t.tx.ExecContext(ctx, `
INSERT INTO briefs (project_path, source_path, hash, title, content, constraints, decisions, anchors, ingested_at)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		b.ProjectPath, privacy.Scrub(b.SourcePath), b.Hash, privacy.Scrub(b.Title), string(content),
		b.Constraints, b.Decisions, b.Anchors, b.IngestedAt.UnixMilli())
	if err != nil {
		return 0, classify("record brief", err)
	}
	id, err := res.LastInsertId()
	return id, classify("record brief", err)
}

const briefCols = `id, project_path, source_path, hash, title, content, constraints, decisions, anchors, ingested_at`

func scanBrief(row interface{ Scan(...any) error }, withContent bool) (record.BriefVersion, error) {
	var b record.BriefVersion
	var content string
	var at int64
	if err := row.Scan(&b.ID, &b.ProjectPath, &b.SourcePath, &b.Hash, &b.Title, &content, &b.Constraints,
		&b.Decisions, &b.Anchors, &at); err != nil {
		return b, err
	}
	if withContent {
		b.Content = json.RawMessage(content)
	}
	b.IngestedAt = time.UnixMilli(at).UTC()
	return b, nil
}

// CurrentBrief returns the project's newest brief version and whether it
// has one.
func (s *Store) CurrentBrief(ctx context.Context, project string) (record.BriefVersion, bool, error) {
	b, err := scanBrief(s.db.QueryRowContext(ctx, `SELECT `+briefCols+` FROM briefs
WHERE project_path = ? ORDER BY id DESC LIMIT 1`, project), true)
	if errors.Is(err, sql.ErrNoRows) {
		return record.BriefVersion{}, false, nil
	}
	if err != nil {
		return record.BriefVersion{}, false, classify("read current brief", err)
	}
	return b, true, nil
}

// BriefHistory lists a project's brief versions, newest first, at most limit
// (0: all), without their content.
func (s *Store) BriefHistory(ctx context.Context, project string, limit int) ([]record.BriefVersion, error) {
	if limit <= 0 {
		limit = -1
	}
	rows, err := s.db.QueryContext(ctx, `SELECT id, project_path, source_path, hash, title, '', constraints,
    decisions, anchors, ingested_at FROM briefs WHERE project_path = ? ORDER BY id DESC LIMIT ?`, project, limit)
	if err != nil {
		return nil, classify("list brief history", err)
	}
	defer rows.Close()
	var out []record.BriefVersion
	for rows.Next() {
		b, err := scanBrief(rows, false)
		if err != nil {
			return nil, classify("list brief history", err)
		}
		out = append(out, b)
	}
	return out, classify("list brief history", rows.Err())
}
