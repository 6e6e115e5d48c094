package store

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"time"

	"github.com/vibe-science/vibe/internal/privacy"
	"github.com/vibe-science/vibe/internal/store/record"
)

// UpsertReview records or completes a review, keyed by its review id, and
// returns the key it was stored under. The same file recorded twice changes
// nothing. Review ids are unique across the database, but two projects may
// well both have an R2-20260114-001: a review of another project keeps its
// row, and this project's is stored under "<id>@<8 hex of the project path>".
func (t *Tx) UpsertReview(ctx context.Context, r record.R2Review) (string, error) {
	key := privacy.Scrub(r.ReviewID)
	var owner string
	err := t.tx.QueryRowContext(ctx, "SELECT project_path FROM r2_reviews WHERE review_id = ?", key).Scan(&owner)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return "", classify("find review", err)
	}
	if err == nil && owner != r.ProjectPath {
		sum := sha256.Sum256([]byte(r.ProjectPath))
		key += "@" + hex.EncodeToString(sum[:4])
	}
	var claims, dims, missed, weak any
	if r.Claims != nil {
		claims = marshalIDs(r.Claims)
	}
	if r.J0Dimensions != nil {
		raw, _ := json.Marshal(r.J0Dimensions)
		dims = string(raw)
	}
	if r.SFIKnown {
		missed = marshalIDs(r.SFIMissed)
	}
	if r.Weaknesses != nil {
		weak = marshalIDs(r.Weaknesses)
	}
	var score any
	if r.J0Score != nil {
		score = *r.J0Score
	}
	weakClaims := 0
	if r.ClaimsWeak {
		weakClaims = 1
	}
	_, err = t.tx.ExecContext(ctx, `
INSERT INTO r2_reviews (review_id, session_id, project_path, review_mode, claims_reviewed, j0_score, j0_dimensions,
    sfi_injected, sfi_caught, sfi_missed, r2_weaknesses, source_path, ts)
VALUES (?1, ?2, ?3, COALESCE(NULLIF(?4, ''), ?15), COALESCE(?5, '[]'), ?6, ?7, ?8, ?9, ?10, ?11, NULLIF(?12, ''), ?13)
ON CONFLICT(review_id) DO UPDATE SET
    review_mode     = CASE WHEN ?4 = '' THEN r2_reviews.review_mode ELSE excluded.review_mode END,
    claims_reviewed = CASE WHEN ?5 IS NULL THEN r2_reviews.claims_reviewed
                           WHEN ?14 = 1 AND r2_reviews.claims_reviewed <> '[]' THEN r2_reviews.claims_reviewed
                           ELSE excluded.claims_reviewed END,
    j0_score        = COALESCE(excluded.j0_score, r2_reviews.j0_score),
    j0_dimensions   = COALESCE(excluded.j0_dimensions, r2_reviews.j0_dimensions),
    sfi_injected    = CASE WHEN ?10 IS NULL THEN r2_reviews.sfi_injected ELSE excluded.sfi_injected END,
    sfi_caught      = CASE WHEN ?10 IS NULL THEN r2_reviews.sfi_caught ELSE excluded.sfi_caught END,
    sfi_missed      = COALESCE(excluded.sfi_missed, r2_reviews.sfi_missed),
    r2_weaknesses   = COALESCE(excluded.r2_weaknesses, r2_reviews.r2_weaknesses),
    source_path     = COALESCE(r2_reviews.source_path, excluded.source_path)`,
		key, r.SessionID, r.ProjectPath, r.Mode, claims, score, dims, r.SFIInjected, r.SFICaught, missed, weak,
		privacy.Scrub(r.SourcePath), r.At.UnixMilli(), weakClaims, record.ReviewModeUnknown)
	if err != nil {
		return "", classify("upsert review", err)
	}
	return key, nil
}

// RecentReviews lists a project's reviews, newest first (by the time the
// review was first recorded).
func (s *Store) RecentReviews(ctx context.Context, project string, limit int) ([]record.R2Review, error) {
	if limit <= 0 {
		limit = 20
	}
	rows, err := s.db.QueryContext(ctx, `
SELECT review_id, session_id, project_path, review_mode, claims_reviewed, j0_score, j0_dimensions,
       sfi_injected, sfi_caught, sfi_missed, r2_weaknesses, COALESCE(source_path, ''), ts
FROM r2_reviews WHERE project_path = ? ORDER BY ts DESC, id DESC LIMIT ?`, project, limit)
	if err != nil {
		return nil, classify("list reviews", err)
	}
	defer rows.Close()
	var out []record.R2Review
	for rows.Next() {
		var r record.R2Review
		var claims string
		var score sql.NullInt64
		var dims, missed, weak sql.NullString
		var ts int64
		if err := rows.Scan(&r.ReviewID, &r.SessionID, &r.ProjectPath, &r.Mode, &claims, &score, &dims,
			&r.SFIInjected, &r.SFICaught, &missed, &weak, &r.SourcePath, &ts); err != nil {
			return nil, classify("list reviews", err)
		}
		r.Claims = unmarshalIDs(claims)
		if score.Valid {
			v := int(score.Int64)
			r.J0Score = &v
		}
		if dims.Valid {
			_ = json.Unmarshal([]byte(dims.String), &r.J0Dimensions)
		}
		if missed.Valid {
			r.SFIKnown = true
			r.SFIMissed = unmarshalIDs(missed.String)
		}
		if weak.Valid {
			r.Weaknesses = unmarshalIDs(weak.String)
		}
		r.At = time.UnixMilli(ts).UTC()
		out = append(out, r)
	}
	return out, classify("list reviews", rows.Err())
}

// marshalIDs renders a string list as a JSON array, never null.
func marshalIDs(xs []string) string {
	if len(xs) == 0 {
		return "[]"
	}
	raw, _ := json.Marshal(xs)
	return string(raw)
}

// unmarshalIDs reads a JSON array of strings; anything else is an empty list.
func unmarshalIDs(s string) []string {
	var out []string
	if json.Unmarshal([]byte(s), &out) != nil || out == nil {
		return []string{}
	}
	return out
}
