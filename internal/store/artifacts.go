package store

import (
	"context"
	"database/sql"
	"time"

	"github.com/vibe-science/vibe/internal/store/record"
)

// ArtifactStates returns every recorded artifact state of a project.
func (s *Store) ArtifactStates(ctx context.Context, project string) ([]record.ArtifactState, error) {
	rows, err := s.db.QueryContext(ctx, `
SELECT path, kind, size, mtime_ns, sha256, status, profile, checked_at
FROM artifact_states WHERE project_path = ?`, project)
	if err != nil {
		return nil, classify("list artifact states", err)
	}
	defer rows.Close()
	var out []record.ArtifactState
	for rows.Next() {
		a := record.ArtifactState{Project: project}
		var profile sql.NullString
		var at int64
		if err := rows.Scan(&a.Path, &a.Kind, &a.Size, &a.MtimeNS, &a.SHA256, &a.Status, &profile, &at); err != nil {
			return nil, classify("list artifact states", err)
		}
		if profile.Valid {
			a.Profile = []byte(profile.String)
		}
		a.At = time.UnixMilli(at)
		out = append(out, a)
	}
	return out, classify("list artifact states", rows.Err())
}

// PutArtifactState records (or replaces) what was seen of one artifact.
func (t *Tx) PutArtifactState(ctx context.Context, a record.ArtifactState) error {
	var profile any
	if len(a.Profile) > 0 {
		profile = string(a.Profile)
	}
	_, err := t.tx.ExecContext(ctx, `
INSERT INTO artifact_states (project_path, path, kind, size, mtime_ns, sha256, status, profile, checked_at)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
ON CONFLICT (project_path, path) DO UPDATE SET kind = excluded.kind, size = excluded.size,
    mtime_ns = excluded.mtime_ns, sha256 = excluded.sha256, status = excluded.status,
    profile = COALESCE(excluded.profile, artifact_states.profile), checked_at = excluded.checked_at`,
		a.Project, a.Path, a.Kind, a.Size, a.MtimeNS, a.SHA256, a.Status, profile, a.At.UnixMilli())
	return classify("record artifact state", err)
}

// DeleteArtifactState forgets an artifact that is gone.
func (t *Tx) DeleteArtifactState(ctx context.Context, project, path string) error {
	_, err := t.tx.ExecContext(ctx, "DELETE FROM artifact_states WHERE project_path = ? AND path = ?", project, path)
	return classify("forget artifact state", err)
}

// SetArtifactStatus records the status of the last gate run on an artifact
// that was judged because another file changed (a findings file whose
// source JSON changed); it does nothing for an artifact never recorded.
func (t *Tx) SetArtifactStatus(ctx context.Context, project, path, status string, at time.Time) error {
	_, err := t.tx.ExecContext(ctx, "UPDATE artifact_states SET status = ?, checked_at = ? WHERE project_path = ? AND path = ?",
		status, at.UnixMilli(), project, path)
	return classify("record artifact status", err)
}
