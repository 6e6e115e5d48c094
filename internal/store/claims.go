package store

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"time"

	"github.com/vibe-science/vibe/internal/privacy"
	"github.com/vibe-science/vibe/internal/store/record"
)

// LedgerSnapshot returns the last ledger content recorded for a path.
func (t *Tx) LedgerSnapshot(ctx context.Context, project, path string) ([]byte, bool, error) {
	var content []byte
	err := t.tx.QueryRowContext(ctx, "SELECT content FROM ledger_snapshots WHERE project_path = ? AND path = ?", project, path).Scan(&content)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, classify("read ledger snapshot", err)
	}
	return content, true, nil
}

// SaveLedgerSnapshot records the ledger content vibe has now seen.
func (t *Tx) SaveLedgerSnapshot(ctx context.Context, project, path string, content []byte, now time.Time) error {
	sum := sha256.Sum256(content)
	_, err := t.tx.ExecContext(ctx, `
INSERT INTO ledger_snapshots (project_path, path, content, sha256, updated_at) VALUES (?, ?, ?, ?, ?)
ON CONFLICT(project_path, path) DO UPDATE SET content = excluded.content, sha256 = excluded.sha256, updated_at = excluded.updated_at`,
		project, path, content, hex.EncodeToString(sum[:]), now.UnixMilli())
	return classify("save ledger snapshot", err)
}

// AddClaimEvents appends claim events for a session.
func (t *Tx) AddClaimEvents(ctx context.Context, session, project string, at time.Time, evs []record.ClaimEvent) error {
	for _, e := range evs {
		var conf any
		if e.Confidence != nil {
			conf = *e.Confidence
		}
		if _, err := t.tx.ExecContext(ctx, `
INSERT INTO claim_events (claim_id, session_id, project_path, event_type, old_status, new_status, confidence,
    r2_verdict, kill_reason, gate_id, narrative, source_ref, ts)
VALUES (?, ?, ?, ?, NULLIF(?, ''), NULLIF(?, ''), ?, NULLIF(?, ''), NULLIF(?, ''), NULLIF(?, ''), NULLIF(?, ''), NULLIF(?, ''), ?)`,
			e.ClaimID, session, project, e.Type, e.OldStatus, e.NewStatus, conf, e.R2Verdict, e.KillReason, e.GateID,
			privacy.Scrub(e.Narrative), e.SourceRef, at.UnixMilli()); err != nil {
			return classify("add claim event", err)
		}
	}
	return nil
}

// PassedGates lists the gates that have a PASS recorded for a claim of a
// project.
func (s *Store) PassedGates(ctx context.Context, project, claimID string) (map[string]bool, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT DISTINCT gate_id FROM gate_checks
WHERE project_path = ? AND claim_id = ? AND status = 'PASS'`, project, claimID)
	if err != nil {
		return nil, classify("read passed gates", err)
	}
	defer rows.Close()
	out := map[string]bool{}
	for rows.Next() {
		var g string
		if err := rows.Scan(&g); err != nil {
			return nil, classify("read passed gates", err)
		}
		out[g] = true
	}
	return out, classify("read passed gates", rows.Err())
}

// unreviewedIn selects (as c) the claim events of the claims created in
// session ?1 with no review, kill or dispute recorded for them in the
// project: LAW 4's open claims (UnreviewedClaims, StopPending).
const unreviewedIn = `
FROM claim_events c
WHERE c.session_id = ?1 AND c.event_type = 'CREATED'
  AND NOT EXISTS (SELECT 1 FROM claim_events r WHERE r.project_path = c.project_path AND r.claim_id = c.claim_id
                  AND r.event_type IN ('R2_REVIEWED', 'KILLED', 'DISPUTED'))`

// UnreviewedClaims lists the claims created in a session that have no
// review, kill or dispute recorded for them in the project (LAW 4).
func (t *Tx) UnreviewedClaims(ctx context.Context, session string) ([]string, error) {
	rows, err := t.tx.QueryContext(ctx, `SELECT DISTINCT c.claim_id `+unreviewedIn+` ORDER BY c.claim_id`, session)
	if err != nil {
		return nil, classify("find unreviewed claims", err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, classify("find unreviewed claims", err)
		}
		out = append(out, id)
	}
	return out, classify("find unreviewed claims", rows.Err())
}

// SetStopBlocks records how many consecutive Stop blocks the session has
// had.
func (t *Tx) SetStopBlocks(ctx context.Context, session string, n int) error {
	_, err := t.tx.ExecContext(ctx, "UPDATE sessions SET stop_blocks = ? WHERE id = ?", n, session)
	return classify("record stop blocks", err)
}

// ClaimEventHistory lists a project's claim events, oldest first, at most
// limit (<= 0: 10000).
func (s *Store) ClaimEventHistory(ctx context.Context, project string, limit int) ([]record.ClaimEventRecord, error) {
	if limit <= 0 {
		limit = 10000
	}
	return s.claimEvents(ctx, "read claim events", "project_path = ? ORDER BY ts, id LIMIT ?", project, limit)
}

// ClaimHistory lists one claim's events, oldest first.
func (s *Store) ClaimHistory(ctx context.Context, project, claimID string) ([]record.ClaimEventRecord, error) {
	return s.claimEvents(ctx, "read claim history", "project_path = ? AND claim_id = ? ORDER BY ts, id", project, claimID)
}

// claimEvents reads the claim events a WHERE clause (with its ORDER and
// LIMIT) selects.
func (s *Store) claimEvents(ctx context.Context, op, where string, args ...any) ([]record.ClaimEventRecord, error) {
	rows, err := s.db.QueryContext(ctx, `
SELECT id, claim_id, event_type, coalesce(old_status, ''), coalesce(new_status, ''), confidence, coalesce(r2_verdict, ''),
    coalesce(kill_reason, ''), coalesce(gate_id, ''), coalesce(narrative, ''), coalesce(source_ref, ''), session_id, ts
FROM claim_events WHERE `+where, args...)
	if err != nil {
		return nil, classify(op, err)
	}
	defer rows.Close()
	var out []record.ClaimEventRecord
	for rows.Next() {
		var r record.ClaimEventRecord
		var conf sql.NullFloat64
		var ms int64
		if err := rows.Scan(&r.ID, &r.ClaimID, &r.Type, &r.OldStatus, &r.NewStatus, &conf, &r.R2Verdict, &r.KillReason,
			&r.GateID, &r.Narrative, &r.SourceRef, &r.SessionID, &ms); err != nil {
			return nil, classify(op, err)
		}
		if conf.Valid {
			c := conf.Float64
			r.Confidence = &c
		}
		r.At = time.UnixMilli(ms).UTC()
		out = append(out, r)
	}
	return out, classify(op, rows.Err())
}
