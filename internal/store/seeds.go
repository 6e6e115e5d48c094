package store

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/vibe-science/vibe/internal/fault"
	"github.com/vibe-science/vibe/internal/privacy"
	"github.com/vibe-science/vibe/internal/store/record"
)

// UpsertSeed records a seed parsed from SERENDIPITY.md in session. A new
// seed starts pending for one session (the one it was written in). A known
// seed takes the file's fields; when its status changes, session becomes its
// last_reviewed_session. Nothing is written when nothing changed, so syncing
// the same file twice leaves updated_at alone. It reports whether the seed
// was new.
func (t *Tx) UpsertSeed(ctx context.Context, s record.SeedRecord, session string, now time.Time) (bool, error) {
	var exists int
	err := t.tx.QueryRowContext(ctx, "SELECT 1 FROM serendipity_seeds WHERE project_path = ? AND seed_id = ?",
		s.ProjectPath, s.SeedID).Scan(&exists)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return false, classify("find seed", err)
	}
	var score any
	if s.Score != nil {
		score = *s.Score
	}
	ms := now.UnixMilli()
	_, err = t.tx.ExecContext(ctx, `
INSERT INTO serendipity_seeds (seed_id, project_path, created_session, status, source, score, causal_question,
    discriminating_test, fallback_test, salvaged_from, narrative, resolution, sessions_pending, created_at, updated_at)
VALUES (?1, ?2, ?3, ?4, ?5, ?6, NULLIF(?7, ''), NULLIF(?8, ''), NULLIF(?9, ''), NULLIF(?10, ''), NULLIF(?11, ''),
    NULLIF(?12, ''), 1, ?13, ?13)
ON CONFLICT(project_path, seed_id) DO UPDATE SET
    status = excluded.status, source = excluded.source, score = excluded.score,
    causal_question = excluded.causal_question, discriminating_test = excluded.discriminating_test,
    fallback_test = excluded.fallback_test, salvaged_from = excluded.salvaged_from,
    narrative = excluded.narrative, resolution = excluded.resolution,
    last_reviewed_session = CASE WHEN serendipity_seeds.status <> excluded.status THEN ?3
                                 ELSE serendipity_seeds.last_reviewed_session END,
    updated_at = excluded.updated_at
WHERE serendipity_seeds.status IS NOT excluded.status OR serendipity_seeds.source IS NOT excluded.source
   OR serendipity_seeds.score IS NOT excluded.score
   OR serendipity_seeds.causal_question IS NOT excluded.causal_question
   OR serendipity_seeds.discriminating_test IS NOT excluded.discriminating_test
   OR serendipity_seeds.fallback_test IS NOT excluded.fallback_test
   OR serendipity_seeds.salvaged_from IS NOT excluded.salvaged_from
   OR serendipity_seeds.narrative IS NOT excluded.narrative
   OR serendipity_seeds.resolution IS NOT excluded.resolution`,
		s.SeedID, s.ProjectPath, session, s.Status, s.Source, score, privacy.Scrub(s.CausalQuestion),
		privacy.Scrub(s.DiscriminatingTest), privacy.Scrub(s.FallbackTest), s.SalvagedFrom, privacy.Scrub(s.Title),
		privacy.Scrub(s.Resolution), ms)
	if err != nil {
		return false, classify("upsert seed", err)
	}
	return exists == 0, nil
}

// MarkSeedsRemoved gives status REMOVED to the project's seeds that are not
// in present (the ids SERENDIPITY.md holds now) and returns how many changed.
func (t *Tx) MarkSeedsRemoved(ctx context.Context, project string, present []string, session string, now time.Time) (int, error) {
	res, err := t.tx.ExecContext(ctx, `
UPDATE serendipity_seeds SET status = ?1, last_reviewed_session = ?4, updated_at = ?5
WHERE project_path = ?2 AND status <> ?1 AND seed_id NOT IN (SELECT value FROM json_each(?3))`,
		record.SeedRemoved, project, marshalIDs(present), session, now.UnixMilli())
	if err != nil {
		return 0, classify("mark removed seeds", err)
	}
	n, _ := res.RowsAffected()
	return int(n), nil
}

// TickSeeds brings the pending count of the project's PENDING_TRIAGE seeds
// up to date at the start of session, and escalates those pending for more
// than escalateAfter sessions. A seed's count is the session it was written
// in plus every session of the project started after it was written, so it
// is computed rather than incremented: calling TickSeeds again in the same
// session (resume, clear, compact) changes nothing, and two sessions running
// at once are both counted. It returns the ids that became escalated now.
func (s *Store) TickSeeds(ctx context.Context, project, session string, escalateAfter int) ([]string, error) {
	// Most session starts find no seed waiting: a read says so without
	// taking the write lock and committing a transaction that changes
	// nothing.
	var n int
	var waiting bool
	if err := s.db.QueryRowContext(ctx, `
SELECT (SELECT count(*) FROM sessions WHERE id = ?1 AND project_path = ?2),
       EXISTS (SELECT 1 FROM serendipity_seeds WHERE project_path = ?2 AND status = 'PENDING_TRIAGE')`,
		session, project).Scan(&n, &waiting); err != nil {
		return nil, classify("tick seeds", err)
	}
	if n == 0 {
		return nil, fault.Errorf(fault.Invalid, "tick seeds",
			"session %q is not recorded for project %s: record the session start before ticking its seeds", session, project)
	}
	if !waiting {
		return nil, nil
	}
	var newly []string
	err := s.Tx(ctx, func(tx *Tx) error {
		if _, err := tx.tx.ExecContext(ctx, `
UPDATE serendipity_seeds SET sessions_pending = 1 + (
    SELECT count(*) FROM sessions
    WHERE sessions.project_path = serendipity_seeds.project_path AND sessions.started_at > serendipity_seeds.created_at)
WHERE project_path = ? AND status = 'PENDING_TRIAGE'`, project); err != nil {
			return classify("tick seeds", err)
		}
		rows, err := tx.tx.QueryContext(ctx, `
UPDATE serendipity_seeds SET escalated = 1
WHERE project_path = ? AND status = 'PENDING_TRIAGE' AND escalated = 0 AND sessions_pending > ?
RETURNING seed_id`, project, escalateAfter)
		if err != nil {
			return classify("escalate seeds", err)
		}
		defer rows.Close()
		for rows.Next() {
			var id string
			if err := rows.Scan(&id); err != nil {
				return classify("escalate seeds", err)
			}
			newly = append(newly, id)
		}
		return classify("escalate seeds", rows.Err())
	})
	return newly, err
}

const seedCols = `seed_id, project_path, created_session, status, source, score, COALESCE(narrative,''),
    COALESCE(causal_question,''), COALESCE(discriminating_test,''), COALESCE(fallback_test,''),
    COALESCE(salvaged_from,''), COALESCE(resolution,''), COALESCE(last_reviewed_session,''),
    sessions_pending, escalated, created_at, updated_at`

func scanSeedRecord(row interface{ Scan(...any) error }) (record.SeedRecord, error) {
	var r record.SeedRecord
	var score sql.NullFloat64
	var esc int
	var created, updated int64
	err := row.Scan(&r.SeedID, &r.ProjectPath, &r.CreatedSession, &r.Status, &r.Source, &score, &r.Title,
		&r.CausalQuestion, &r.DiscriminatingTest, &r.FallbackTest, &r.SalvagedFrom, &r.Resolution,
		&r.LastReviewedSession, &r.SessionsPending, &esc, &created, &updated)
	if score.Valid {
		v := score.Float64
		r.Score = &v
	}
	r.Escalated = esc != 0
	r.CreatedAt = time.UnixMilli(created).UTC()
	r.UpdatedAt = time.UnixMilli(updated).UTC()
	return r, err
}

func (s *Store) querySeeds(ctx context.Context, op, where string, args ...any) ([]record.SeedRecord, error) {
	rows, err := s.db.QueryContext(ctx, "SELECT "+seedCols+" FROM serendipity_seeds WHERE "+where, args...)
	if err != nil {
		return nil, classify(op, err)
	}
	defer rows.Close()
	var out []record.SeedRecord
	for rows.Next() {
		r, err := scanSeedRecord(rows)
		if err != nil {
			return nil, classify(op, err)
		}
		out = append(out, r)
	}
	return out, classify(op, rows.Err())
}

// SeedsToTriage lists the project's seeds waiting for triage (PENDING_TRIAGE
// or QUEUED) for the session-start context: escalated first, then by score,
// highest first, then by id.
func (s *Store) SeedsToTriage(ctx context.Context, project string, limit int) ([]record.SeedRecord, error) {
	if limit <= 0 {
		limit = 5
	}
	return s.querySeeds(ctx, "list seeds to triage", `project_path = ? AND status IN ('PENDING_TRIAGE', 'QUEUED')
ORDER BY escalated DESC, COALESCE(score, -1) DESC, seed_id LIMIT ?`, project, limit)
}

// SeedsSalvagedFrom lists the project's seeds (removed ones excepted) that
// record claimID as the claim they were salvaged from.
func (s *Store) SeedsSalvagedFrom(ctx context.Context, project, claimID string) ([]record.SeedRecord, error) {
	return s.querySeeds(ctx, "find salvaged seeds", `project_path = ? AND salvaged_from = ? AND status <> ?
ORDER BY seed_id`, project, claimID, record.SeedRemoved)
}

// ListSeeds lists the project's seeds by id; status "" means every status
// but REMOVED.
func (s *Store) ListSeeds(ctx context.Context, project, status string, limit int) ([]record.SeedRecord, error) {
	if limit <= 0 {
		limit = 100
	}
	return s.querySeeds(ctx, "list seeds", `project_path = ?1 AND ((?2 = '' AND status <> ?3) OR status = ?2)
ORDER BY seed_id LIMIT ?4`, project, status, record.SeedRemoved, limit)
}
