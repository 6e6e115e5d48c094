package store

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/vibe-science/vibe/internal/privacy"
	"github.com/vibe-science/vibe/internal/store/record"
)

// AddCalibration appends an outcome unless the claim's latest entry already
// has the same outcome (the same ledger edit seen twice, or a claim written
// again with the status it had). It reports whether a row was added.
func (t *Tx) AddCalibration(ctx context.Context, e record.CalibrationEntry) (bool, error) {
	var last string
	err := t.tx.QueryRowContext(ctx, `
SELECT actual_outcome FROM calibration_log WHERE project_path = ? AND claim_id = ? ORDER BY ts DESC, id DESC LIMIT 1`,
		e.ProjectPath, e.ClaimID).Scan(&last)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return false, classify("read calibration log", err)
	}
	if err == nil && last == e.Outcome {
		return false, nil
	}
	var stage any
	if e.Stage != nil {
		stage = *e.Stage
	}
	_, err = t.tx.ExecContext(ctx, `
INSERT INTO calibration_log (claim_id, project_path, predicted_confidence, actual_outcome, r2_verdict,
    stage_at_resolution, session_id, ts)
VALUES (?, ?, ?, ?, NULLIF(?, ''), ?, ?, ?)`,
		e.ClaimID, e.ProjectPath, e.Predicted, e.Outcome, privacy.Scrub(e.R2Verdict), stage, e.SessionID, e.At.UnixMilli())
	if err != nil {
		return false, classify("add calibration entry", err)
	}
	return true, nil
}

// CalibrationEntries lists a project's calibration log, oldest first.
func (s *Store) CalibrationEntries(ctx context.Context, project string) ([]record.CalibrationEntry, error) {
	rows, err := s.db.QueryContext(ctx, `
SELECT id, claim_id, project_path, session_id, predicted_confidence, actual_outcome, COALESCE(r2_verdict, ''),
       stage_at_resolution, ts
FROM calibration_log WHERE project_path = ? ORDER BY ts, id`, project)
	if err != nil {
		return nil, classify("list calibration log", err)
	}
	defer rows.Close()
	var out []record.CalibrationEntry
	for rows.Next() {
		var e record.CalibrationEntry
		var stage sql.NullInt64
		var ts int64
		if err := rows.Scan(&e.ID, &e.ClaimID, &e.ProjectPath, &e.SessionID, &e.Predicted, &e.Outcome, &e.R2Verdict,
			&stage, &ts); err != nil {
			return nil, classify("list calibration log", err)
		}
		if stage.Valid {
			v := int(stage.Int64)
			e.Stage = &v
		}
		e.At = time.UnixMilli(ts).UTC()
		out = append(out, e)
	}
	return out, classify("list calibration log", rows.Err())
}

// LastClaimConfidence is the latest confidence recorded for a claim in its
// claim events, for an outcome whose ledger no longer shows the confidence
// the claim had before it.
func (t *Tx) LastClaimConfidence(ctx context.Context, project, claimID string) (float64, bool, error) {
	var c float64
	err := t.tx.QueryRowContext(ctx, `
SELECT confidence FROM claim_events WHERE project_path = ? AND claim_id = ? AND confidence IS NOT NULL
ORDER BY ts DESC, id DESC LIMIT 1`, project, claimID).Scan(&c)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, classify("read claim confidence", err)
	}
	return c, true, nil
}

func (s *Store) patternCounts(ctx context.Context, op, query string, args ...any) ([]record.PatternCount, error) {
	rows, err := s.db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, classify(op, err)
	}
	defer rows.Close()
	var out []record.PatternCount
	for rows.Next() {
		var p record.PatternCount
		if err := rows.Scan(&p.Key, &p.Count); err != nil {
			return nil, classify(op, err)
		}
		out = append(out, p)
	}
	return out, classify(op, rows.Err())
}

// RepeatedFixes counts the project's BUG_FIX spine entries by their input
// summary and returns those seen at least min times, most frequent first.
func (s *Store) RepeatedFixes(ctx context.Context, project string, min, limit int) ([]record.PatternCount, error) {
	return s.patternCounts(ctx, "count repeated fixes", `
SELECT input_summary, count(*) AS n FROM spine_entries
WHERE project_path = ? AND action_type = 'BUG_FIX' AND input_summary <> ''
GROUP BY input_summary HAVING n >= ? ORDER BY n DESC, input_summary LIMIT ?`, project, min, limit)
}

// GateFailureCounts counts the project's FAIL results per gate and returns
// the gates that failed at least min times, most failures first.
func (s *Store) GateFailureCounts(ctx context.Context, project string, min, limit int) ([]record.PatternCount, error) {
	return s.patternCounts(ctx, "count gate failures", `
SELECT gate_id, count(*) AS n FROM gate_checks WHERE project_path = ? AND status = 'FAIL'
GROUP BY gate_id HAVING n >= ? ORDER BY n DESC, gate_id LIMIT ?`, project, min, limit)
}
