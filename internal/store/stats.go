package store

import (
	"context"

	"github.com/vibe-science/vibe/internal/store/record"
)

// Stats counts rows.
func (s *Store) Stats(ctx context.Context) (record.Stats, error) {
	var st record.Stats
	err := s.db.QueryRowContext(ctx, `SELECT
  (SELECT count(*) FROM sessions), (SELECT count(*) FROM spine_entries), (SELECT count(*) FROM provenance),
  (SELECT count(*) FROM claim_events), (SELECT count(*) FROM gate_checks), (SELECT count(*) FROM literature_searches),
  (SELECT count(*) FROM observer_alerts WHERE resolved = 0), (SELECT count(*) FROM advisories),
  (SELECT count(*) FROM advisories a LEFT JOIN hook_decisions d ON d.advisory_id = a.id
   WHERE a.result <> 'PASS' AND COALESCE(d.kind, '') <> 'recorded'),
  (SELECT count(*) FROM memories WHERE forgotten = 0), (SELECT count(*) FROM vec_memories),
  (SELECT count(*) FROM embed_queue WHERE status = 'pending'), (SELECT count(*) FROM embed_queue WHERE status = 'failed'),
  (SELECT count(*) FROM embed_queue WHERE status = 'done')`).Scan(
		&st.Sessions, &st.Spine, &st.Provenance, &st.ClaimEvents, &st.GateChecks, &st.Literature, &st.OpenAlerts,
		&st.Advisories, &st.Decisions, &st.Memories, &st.Vectors, &st.QueuePending, &st.QueueFailed, &st.QueueDone)
	return st, classify("count rows", err)
}

// Check runs SQLite's quick integrity check and confirms the vec and FTS5
// modules answer.
func (s *Store) Check(ctx context.Context) (vecVersion string, err error) {
	var ok string
	if err := s.db.QueryRowContext(ctx, "PRAGMA quick_check").Scan(&ok); err != nil {
		return "", classify("integrity check", err)
	}
	if ok != "ok" {
		return "", classify("integrity check", errString("quick_check: "+ok))
	}
	if err := s.db.QueryRowContext(ctx, "SELECT vec_version()").Scan(&vecVersion); err != nil {
		return "", classify("sqlite-vec", err)
	}
	var n int
	if err := s.db.QueryRowContext(ctx, "SELECT count(*) FROM memories_fts WHERE memories_fts MATCH 'probe'").Scan(&n); err != nil {
		return vecVersion, classify("fts5", err)
	}
	return vecVersion, nil
}

type errString string

func (e errString) Error() string { return string(e) }

// ProjectStats counts the rows of one project (every project when project
// is ""). The vectors and the embed queue are the machine's, not a
// project's, so they are counted whole.
func (s *Store) ProjectStats(ctx context.Context, project string) (record.Stats, error) {
	if project == "" {
		return s.Stats(ctx)
	}
	var st record.Stats
	err := s.db.QueryRowContext(ctx, `SELECT
  (SELECT count(*) FROM sessions WHERE project_path = ?1),
  (SELECT count(*) FROM spine_entries WHERE project_path = ?1),
  (SELECT count(*) FROM provenance p JOIN sessions s ON s.id = p.session_id WHERE s.project_path = ?1),
  (SELECT count(*) FROM claim_events WHERE project_path = ?1), (SELECT count(*) FROM gate_checks WHERE project_path = ?1),
  (SELECT count(*) FROM literature_searches WHERE project_path = ?1),
  (SELECT count(*) FROM observer_alerts WHERE resolved = 0 AND project_path = ?1),
  (SELECT count(*) FROM advisories WHERE project_path = ?1),
  (SELECT count(*) FROM advisories a LEFT JOIN hook_decisions d ON d.advisory_id = a.id
   WHERE a.project_path = ?1 AND a.result <> 'PASS' AND COALESCE(d.kind, '') <> 'recorded'),
  (SELECT count(*) FROM memories WHERE forgotten = 0 AND project_path = ?1), (SELECT count(*) FROM vec_memories),
  (SELECT count(*) FROM embed_queue WHERE status = 'pending'), (SELECT count(*) FROM embed_queue WHERE status = 'failed'),
  (SELECT count(*) FROM embed_queue WHERE status = 'done')`, project).Scan(
		&st.Sessions, &st.Spine, &st.Provenance, &st.ClaimEvents, &st.GateChecks, &st.Literature, &st.OpenAlerts,
		&st.Advisories, &st.Decisions, &st.Memories, &st.Vectors, &st.QueuePending, &st.QueueFailed, &st.QueueDone)
	return st, classify("count project rows", err)
}
