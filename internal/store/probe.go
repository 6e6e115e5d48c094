package store

import (
	"context"
	"time"
)

// PreToolProbe answers in one statement what a PreToolUse hook would
// otherwise ask in three: whether the project has an open HALT alert,
// whether target (mistake.Target's spelling) has a recorded mistake, and
// whether the project has a brief. The hook reads the rows only for what is
// there. It runs on every tool call, and in a process that sat idle a
// moment before each statement costs tens of microseconds.
func (s *Store) PreToolProbe(ctx context.Context, project, target string) (halts, mistakes, brief bool, err error) {
	err = s.db.QueryRowContext(ctx, `
SELECT EXISTS (SELECT 1 FROM observer_alerts WHERE project_path = ?1 AND resolved = 0 AND level = 'HALT'),
       ?2 <> '' AND EXISTS (SELECT 1 FROM mistakes WHERE project_path = ?1 AND target = ?2),
       EXISTS (SELECT 1 FROM briefs WHERE project_path = ?1)`, project, target).Scan(&halts, &mistakes, &brief)
	return halts, mistakes, brief, classify("probe the project's state", err)
}

// StopPending reports, in one statement, whether a Stop hook has anything
// to decide for the session: a claim created in it with no review, kill or
// dispute (LAW 4, unreviewedIn), or a count of blocked stops to
// reset. Most turns have neither, and their Stop then writes nothing
// before it answers.
func (s *Store) StopPending(ctx context.Context, session string) (bool, error) {
	var pending bool
	err := s.db.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 `+unreviewedIn+`)
    OR COALESCE((SELECT stop_blocks FROM sessions WHERE id = ?1), 0) <> 0`, session).Scan(&pending)
	return pending, classify("probe the session's claims", err)
}

// PostToolProbe answers in one statement what a PostToolUse asks before it
// replies: how many tool calls the session has recorded (the observer runs
// on every Nth) and whether the project has a brief (whose anchors a write
// may have moved).
func (s *Store) PostToolProbe(ctx context.Context, session, project string) (calls int, brief bool, err error) {
	err = s.db.QueryRowContext(ctx, `
SELECT COALESCE((SELECT tool_calls FROM sessions WHERE id = ?1), 0),
       EXISTS (SELECT 1 FROM briefs WHERE project_path = ?2)`, session, project).Scan(&calls, &brief)
	return calls, brief, classify("probe the session's state", err)
}

// SessionParts says which of the parts SessionStart takes from other
// packages have rows to show: the query of each part runs only when its
// rows exist. A true may still show nothing (the part applies its own
// thresholds); a false is certain.
type SessionParts struct {
	Alerts   bool // an open alert (Alerts)
	Changed  bool // an advisory of check changedCheck since then (AdvisoriesByCheck)
	Reviews  bool // an R2 review (RecentReviews: the calibration hint)
	Patterns bool // a recorded bug fix or a failed gate check (RepeatedFixes, GateFailureCounts)
	Seeds    bool // a seed waiting for triage (SeedsToTriage, TickSeeds)
}

// SessionStartProbe answers in one statement which of SessionStart's other
// parts have rows for project; most session starts find none, and each
// query it spares costs tens of microseconds in a process that sat idle.
// Each EXISTS states the WHERE of the query it stands for.
func (s *Store) SessionStartProbe(ctx context.Context, project, changedCheck string, since time.Time) (SessionParts, error) {
	var p SessionParts
	err := s.db.QueryRowContext(ctx, `
SELECT EXISTS (SELECT 1 FROM observer_alerts WHERE project_path = ?1 AND resolved = 0),
       EXISTS (SELECT 1 FROM advisories WHERE project_path = ?1 AND check_name = ?2 AND ts >= ?3),
       EXISTS (SELECT 1 FROM r2_reviews WHERE project_path = ?1),
       EXISTS (SELECT 1 FROM spine_entries WHERE project_path = ?1 AND action_type = 'BUG_FIX' AND input_summary <> '')
           OR EXISTS (SELECT 1 FROM gate_checks WHERE project_path = ?1 AND status = 'FAIL'),
       EXISTS (SELECT 1 FROM serendipity_seeds WHERE project_path = ?1 AND status IN ('PENDING_TRIAGE', 'QUEUED'))`,
		project, changedCheck, since.UnixMilli()).Scan(&p.Alerts, &p.Changed, &p.Reviews, &p.Patterns, &p.Seeds)
	return p, classify("probe the session start's parts", err)
}
