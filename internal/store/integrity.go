package store

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"strings"
	"time"

	"github.com/vibe-science/vibe/internal/privacy"
	"github.com/vibe-science/vibe/internal/store/record"
)

// AddThresholdChanges appends threshold changes. The table refuses updates
// and deletes, so the drift history cannot be reset.
func (t *Tx) AddThresholdChanges(ctx context.Context, cs []record.ThresholdChange) error {
	for _, c := range cs {
		if _, err := t.tx.ExecContext(ctx, `
INSERT INTO threshold_changes (project_path, domain, threshold_key, old_value, new_value, bps, loosens,
    after_failure, direction, at, source_ref)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			c.ProjectPath, c.Domain, c.Key, c.Old, c.New, c.Bps, c.Loosens, c.AfterFailure, c.Direction,
			c.At.UnixMilli(), privacy.Scrub(c.SourceRef)); err != nil {
			return classify("record threshold change", err)
		}
	}
	return nil
}

// ThresholdChanges lists a project's threshold changes of one domain (every
// domain when domain is "") made in [since, until], oldest first. A zero
// until means no upper bound.
func (s *Store) ThresholdChanges(ctx context.Context, project, domain string, since, until time.Time) ([]record.ThresholdChange, error) {
	hi := int64(1<<63 - 1)
	if !until.IsZero() {
		hi = until.UnixMilli()
	}
	rows, err := s.db.QueryContext(ctx, `
SELECT id, project_path, domain, threshold_key, old_value, new_value, bps, loosens, after_failure, direction, at, source_ref
FROM threshold_changes
WHERE project_path = ?1 AND (?2 = '' OR domain = ?2) AND at >= ?3 AND at <= ?4
ORDER BY at, id`, project, domain, since.UnixMilli(), hi)
	if err != nil {
		return nil, classify("list threshold changes", err)
	}
	defer rows.Close()
	var out []record.ThresholdChange
	for rows.Next() {
		var c record.ThresholdChange
		var at int64
		if err := rows.Scan(&c.ID, &c.ProjectPath, &c.Domain, &c.Key, &c.Old, &c.New, &c.Bps, &c.Loosens,
			&c.AfterFailure, &c.Direction, &at, &c.SourceRef); err != nil {
			return nil, classify("list threshold changes", err)
		}
		c.At = time.UnixMilli(at).UTC()
		out = append(out, c)
	}
	return out, classify("list threshold changes", rows.Err())
}

// ThresholdDomains lists, sorted, the domains of a project with a threshold
// change made at or after since.
func (s *Store) ThresholdDomains(ctx context.Context, project string, since time.Time) ([]string, error) {
	rows, err := s.db.QueryContext(ctx, `
SELECT DISTINCT domain FROM threshold_changes WHERE project_path = ? AND at >= ? ORDER BY domain`,
		project, since.UnixMilli())
	if err != nil {
		return nil, classify("list threshold domains", err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var d string
		if err := rows.Scan(&d); err != nil {
			return nil, classify("list threshold domains", err)
		}
		out = append(out, d)
	}
	return out, classify("list threshold domains", rows.Err())
}

// ConfigSnapshot returns the last content of a domain config vibe saw at a
// project-relative path, and whether there is one.
func (t *Tx) ConfigSnapshot(ctx context.Context, project, path string) ([]byte, bool, error) {
	var content []byte
	err := t.tx.QueryRowContext(ctx, `SELECT content FROM config_snapshots WHERE project_path = ? AND path = ?`,
		project, path).Scan(&content)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, classify("read config snapshot", err)
	}
	return content, true, nil
}

// SaveConfigSnapshot replaces the snapshot of a domain config. Secrets are
// scrubbed like every stored text; a config holds thresholds, not secrets,
// so a scrubbed snapshot only costs a spurious diff.
func (t *Tx) SaveConfigSnapshot(ctx context.Context, project, path string, content []byte, at time.Time) error {
	clean := privacy.Scrub(string(content))
	sum := sha256.Sum256([]byte(clean))
	if _, err := t.tx.ExecContext(ctx, `
INSERT INTO config_snapshots (project_path, path, content, sha256, updated_at) VALUES (?, ?, ?, ?, ?)
ON CONFLICT (project_path, path) DO UPDATE SET content = excluded.content, sha256 = excluded.sha256,
    updated_at = excluded.updated_at`,
		project, path, []byte(clean), hex.EncodeToString(sum[:]), at.UnixMilli()); err != nil {
		return classify("save config snapshot", err)
	}
	return nil
}

// GateFailures lists a project's gate runs that failed in [since, until],
// oldest first, for the given gate ids (matched ignoring case; none means
// every gate).
func (s *Store) GateFailures(ctx context.Context, project string, gates []string, since, until time.Time) ([]record.GateFailure, error) {
	args := []any{project, since.UnixMilli(), until.UnixMilli()}
	q := `SELECT gate_id, COALESCE(claim_id,''), ts FROM gate_checks
WHERE project_path = ? AND status = 'FAIL' AND ts >= ? AND ts <= ?`
	if len(gates) > 0 {
		q += ` AND upper(gate_id) IN (?` + strings.Repeat(",?", len(gates)-1) + `)`
		for _, g := range gates {
			args = append(args, strings.ToUpper(g))
		}
	}
	rows, err := s.db.QueryContext(ctx, q+` ORDER BY ts, id`, args...)
	if err != nil {
		return nil, classify("list gate failures", err)
	}
	defer rows.Close()
	var out []record.GateFailure
	for rows.Next() {
		var f record.GateFailure
		var ts int64
		if err := rows.Scan(&f.GateID, &f.ClaimID, &ts); err != nil {
			return nil, classify("list gate failures", err)
		}
		f.At = time.UnixMilli(ts).UTC()
		out = append(out, f)
	}
	return out, classify("list gate failures", rows.Err())
}

// SeenDecisionHashes reports which of hashes the project's advisory log
// already holds, so a decision already shown is not repeated (the integrity
// monitor's idempotency by decision hash).
func (s *Store) SeenDecisionHashes(ctx context.Context, project string, hashes []string) (map[string]bool, error) {
	seen := map[string]bool{}
	if len(hashes) == 0 {
		return seen, nil
	}
	args := make([]any, 0, len(hashes)+1)
	args = append(args, project)
	for _, h := range hashes {
		args = append(args, h)
	}
	rows, err := s.db.QueryContext(ctx, `SELECT DISTINCT decision_hash FROM advisories
WHERE project_path = ? AND decision_hash IN (?`+strings.Repeat(",?", len(hashes)-1)+`)`, args...)
	if err != nil {
		return nil, classify("look up decision hashes", err)
	}
	defer rows.Close()
	for rows.Next() {
		var h string
		if err := rows.Scan(&h); err != nil {
			return nil, classify("look up decision hashes", err)
		}
		seen[h] = true
	}
	return seen, classify("look up decision hashes", rows.Err())
}
