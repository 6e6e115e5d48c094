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

// UpsertSession records that a hook saw the session: it creates the row on
// first sight (whichever hook fires first) and otherwise refreshes it, so no
// per-session insert can ever miss its parent row. Records may land out of
// order (a SessionStart writes after its reply, a spooled record is
// replayed later): the row keeps the earliest start and the latest sight,
// and a start reopens an ended session only when it came after the end (a
// resume), not when an earlier start is written late.
func (t *Tx) UpsertSession(ctx context.Context, s record.SessionSeen) error {
	ms := s.At.UnixMilli()
	start := 0
	if s.Start {
		start = 1
	}
	_, err := t.tx.ExecContext(ctx, `
INSERT INTO sessions (id, project_path, started_at, last_seen_at, start_count, last_source, transcript_path, client)
VALUES (?, ?, ?, ?, ?, NULLIF(?, ''), NULLIF(?, ''), NULLIF(?, ''))
ON CONFLICT(id) DO UPDATE SET
    started_at      = min(sessions.started_at, excluded.started_at),
    last_seen_at    = max(sessions.last_seen_at, excluded.last_seen_at),
    project_path    = CASE WHEN sessions.project_path = '' THEN excluded.project_path ELSE sessions.project_path END,
    start_count     = sessions.start_count + excluded.start_count,
    last_source     = COALESCE(excluded.last_source, sessions.last_source),
    transcript_path = COALESCE(excluded.transcript_path, sessions.transcript_path),
    client          = COALESCE(excluded.client, sessions.client),
    ended_at        = CASE WHEN excluded.start_count > 0 AND COALESCE(sessions.ended_at, -1) < excluded.started_at
                           THEN NULL ELSE sessions.ended_at END,
    end_reason      = CASE WHEN excluded.start_count > 0 AND COALESCE(sessions.ended_at, -1) < excluded.started_at
                           THEN NULL ELSE sessions.end_reason END`,
		s.ID, s.ProjectPath, ms, ms, start, s.Source, s.TranscriptPath, s.Client)
	return classify("upsert session", err)
}

// SaveSummary stores the narrative and counters on the session row.
func (t *Tx) SaveSummary(ctx context.Context, s record.SessionSummary) error {
	s.Narrative = privacy.Scrub(s.Narrative)
	var ended any
	if s.EndedAt != nil {
		ended = s.EndedAt.UnixMilli()
	}
	_, err := t.tx.ExecContext(ctx, `
UPDATE sessions SET narrative_summary = ?, narrative_turn = NULLIF(?, ''),
    total_actions = ?, claims_created = ?, claims_killed = ?, gates_passed = ?, gates_failed = ?,
    ended_at = COALESCE(?, ended_at), end_reason = COALESCE(NULLIF(?, ''), end_reason)
WHERE id = ?`,
		s.Narrative, s.Turn, s.Counts.TotalActions, s.Counts.ClaimsCreated, s.Counts.ClaimsKilled,
		s.Counts.GatesPassed, s.Counts.GatesFailed, ended, s.EndReason, s.ID)
	return classify("save session summary", err)
}

// SessionCountsFor computes the counters from the session's rows.
func (t *Tx) SessionCountsFor(ctx context.Context, id string) (record.SessionCounts, error) {
	var c record.SessionCounts
	err := t.tx.QueryRowContext(ctx, `
SELECT (SELECT count(*) FROM spine_entries WHERE session_id = ?1),
       (SELECT count(*) FROM claim_events WHERE session_id = ?1 AND event_type = 'CREATED'),
       (SELECT count(*) FROM claim_events WHERE session_id = ?1 AND event_type = 'KILLED'),
       (SELECT count(*) FROM gate_checks WHERE session_id = ?1 AND status = 'PASS'),
       (SELECT count(*) FROM gate_checks WHERE session_id = ?1 AND status = 'FAIL')`, id).
		Scan(&c.TotalActions, &c.ClaimsCreated, &c.ClaimsKilled, &c.GatesPassed, &c.GatesFailed)
	return c, classify("count session rows", err)
}

const sessionCols = `id, project_path, started_at, last_seen_at, ended_at, COALESCE(end_reason,''), start_count,
    COALESCE(last_source,''), COALESCE(narrative_summary,''), COALESCE(narrative_turn,''), total_actions, claims_created,
    claims_killed, gates_passed, gates_failed, stop_blocks`

func scanSession(row interface{ Scan(...any) error }) (record.Session, error) {
	var s record.Session
	var started, seen int64
	var ended sql.NullInt64
	err := row.Scan(&s.ID, &s.ProjectPath, &started, &seen, &ended, &s.EndReason, &s.StartCount, &s.LastSource,
		&s.NarrativeSummary, &s.NarrativeTurn, &s.TotalActions, &s.ClaimsCreated, &s.ClaimsKilled,
		&s.GatesPassed, &s.GatesFailed, &s.StopBlocks)
	if err != nil {
		return s, err
	}
	s.StartedAt = time.UnixMilli(started).UTC()
	s.LastSeenAt = time.UnixMilli(seen).UTC()
	if ended.Valid {
		t := time.UnixMilli(ended.Int64).UTC()
		s.EndedAt = &t
	}
	return s, nil
}

// Session returns one session by id.
func (s *Store) Session(ctx context.Context, id string) (record.Session, error) {
	row := s.db.QueryRowContext(ctx, "SELECT "+sessionCols+" FROM sessions WHERE id = ?", id)
	out, err := scanSession(row)
	if errors.Is(err, sql.ErrNoRows) {
		return out, fault.Errorf(fault.NotFound, "session", "no session %q", id)
	}
	return out, classify("read session", err)
}

// Sessions lists sessions, newest first; project "" means all projects.
func (s *Store) Sessions(ctx context.Context, project string, limit int) ([]record.Session, error) {
	if limit <= 0 {
		limit = 20
	}
	rows, err := s.db.QueryContext(ctx, "SELECT "+sessionCols+` FROM sessions
WHERE (?1 = '' OR project_path = ?1) ORDER BY started_at DESC, id LIMIT ?2`, project, limit)
	if err != nil {
		return nil, classify("list sessions", err)
	}
	defer rows.Close()
	var out []record.Session
	for rows.Next() {
		se, err := scanSession(rows)
		if err != nil {
			return nil, classify("list sessions", err)
		}
		out = append(out, se)
	}
	return out, classify("list sessions", rows.Err())
}

// PreviousSession is the most recent other session of the project that has
// a narrative, for the SessionStart state block; of sessions that ended (or
// were last seen) at the same time, the one started first. It reads the
// idx_sessions_previous index in order and stops at the first match.
func (s *Store) PreviousSession(ctx context.Context, project, exclude string) (record.Session, bool, error) {
	row := s.db.QueryRowContext(ctx, "SELECT "+sessionCols+` FROM sessions
WHERE project_path = ? AND id <> ? AND narrative_summary IS NOT NULL AND narrative_summary <> ''
ORDER BY COALESCE(ended_at, last_seen_at) DESC, started_at, rowid LIMIT 1`, project, exclude)
	out, err := scanSession(row)
	if errors.Is(err, sql.ErrNoRows) {
		return out, false, nil
	}
	if err != nil {
		return out, false, classify("read previous session", err)
	}
	return out, true, nil
}

// SessionNumber is the number of session in project: the sessions
// recorded for the project, counting session when it is not recorded yet
// (SessionStart records it after its reply). A session recorded under
// another project keeps that project (UpsertSession) and is not counted,
// as before. An empty session counts the recorded ones.
func (s *Store) SessionNumber(ctx context.Context, project, session string) (int, error) {
	var n int
	err := s.db.QueryRowContext(ctx, sessionNumberSQL, project, session).Scan(&n)
	return n, classify("count sessions", err)
}

// sessionNumberSQL is SessionNumber's count, of project ?1 and session ?2.
const sessionNumberSQL = `SELECT count(*) + (?2 <> '' AND NOT EXISTS (SELECT 1 FROM sessions WHERE id = ?2))
FROM sessions WHERE project_path = ?1`

// SessionCounts is, in one statement, the counts of SessionStart's state
// line: SessionNumber, the claims in play and the gates whose latest run
// failed (activeClaimsSQL, pendingGatesSQL). One statement, not two: in
// a process that sat idle between hooks, each costs 10 to 25 µs.
func (s *Store) SessionCounts(ctx context.Context, project, session string) (sessions, activeClaims, pendingGates int, err error) {
	err = s.db.QueryRowContext(ctx, "SELECT ("+sessionNumberSQL+"), ("+activeClaimsSQL+"), ("+pendingGatesSQL+")",
		project, session).Scan(&sessions, &activeClaims, &pendingGates)
	return sessions, activeClaims, pendingGates, classify("count sessions, claims and gates", err)
}

// ProjectSessionCount counts the sessions recorded for a project.
func (s *Store) ProjectSessionCount(ctx context.Context, project string) (int, error) {
	return s.SessionNumber(ctx, project, "")
}

// ResolveSessionID expands a unique id prefix to the full session id.
func (s *Store) ResolveSessionID(ctx context.Context, prefix string) (string, error) {
	rows, err := s.db.QueryContext(ctx, "SELECT id FROM sessions WHERE id = ?1 OR id LIKE ?2 || '%' ORDER BY id = ?1 DESC, id LIMIT 3",
		prefix, stripLikeWildcards(prefix))
	if err != nil {
		return "", classify("find session", err)
	}
	defer rows.Close()
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return "", classify("find session", err)
		}
		ids = append(ids, id)
	}
	switch {
	case len(ids) == 0:
		return "", fault.Errorf(fault.NotFound, "find session", "no session matches %q (see `vibe sessions list`)", prefix)
	case ids[0] == prefix || len(ids) == 1:
		return ids[0], nil
	}
	return "", fault.Errorf(fault.Invalid, "find session", "%q matches several sessions; give more of the id", prefix)
}

// stripLikeWildcards removes % and _ so a prefix typed by a person is
// matched literally.
func stripLikeWildcards(s string) string {
	r := strings.NewReplacer("%", "", "_", "")
	return r.Replace(s)
}
