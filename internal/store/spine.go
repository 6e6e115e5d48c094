package store

import (
	"context"
	"database/sql"
	"time"

	"github.com/vibe-science/vibe/internal/privacy"
	"github.com/vibe-science/vibe/internal/store/record"
)

// AddSpine records one tool call and the files it touched. A repeated
// tool_use_id (a hook re-run) records nothing new and returns the first id.
func (t *Tx) AddSpine(ctx context.Context, e record.SpineEntry, files []record.Touched) (int64, error) {
	e.InputSummary, e.OutputSummary = privacy.Scrub(e.InputSummary), privacy.Scrub(e.OutputSummary)
	var dur any
	if e.DurationMS != nil {
		dur = *e.DurationMS
	}
	res, err := t.tx.ExecContext(ctx, `
INSERT INTO spine_entries (session_id, project_path, ts, action_type, tool_name, tool_use_id, input_summary,
    output_summary, input_sha256, output_sha256, duration_ms, agent_role, agent_type, gate_result)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULLIF(?, ''), NULLIF(?, ''), NULLIF(?, ''))
ON CONFLICT DO NOTHING`,
		e.SessionID, e.ProjectPath, e.At.UnixMilli(), e.ActionType, e.ToolName, e.ToolUseID, e.InputSummary,
		e.OutputSummary, e.InputSHA256, e.OutputSHA256, dur, e.AgentRole, e.AgentType, e.GateResult)
	if err != nil {
		return 0, classify("add spine entry", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		var id int64
		// tool_use_id <> '' (true here: only that index conflicts) lets
		// the planner use the partial index without peeking at the value.
		err := t.tx.QueryRowContext(ctx, `SELECT id FROM spine_entries
WHERE session_id = ? AND tool_use_id = ? AND tool_use_id <> ''`, e.SessionID, e.ToolUseID).Scan(&id)
		return id, classify("find spine entry", err)
	}
	id, err := res.LastInsertId()
	if err != nil {
		return 0, classify("add spine entry", err)
	}
	for _, f := range files {
		var sum, size any
		if f.SHA256 != "" {
			sum, size = f.SHA256, f.Size
		}
		if _, err := t.tx.ExecContext(ctx, `
INSERT INTO provenance (spine_id, session_id, path, op, sha256, size, ts) VALUES (?, ?, ?, ?, ?, ?, ?)`,
			// A path comes from a command's words as well as from the disk
			// (`echo x => "$TOKEN"` names a file): scrubbed like them.
			id, e.SessionID, privacy.Scrub(f.Path), f.Op, sum, size, e.At.UnixMilli()); err != nil {
			return 0, classify("add provenance", err)
		}
	}
	return id, nil
}

// SessionToolCalls is how many tool calls the session's spine holds (a
// count the schema keeps, migration 0010); the observer runs on every Nth.
func (t *Tx) SessionToolCalls(ctx context.Context, session string) (int, error) {
	var n int
	err := t.tx.QueryRowContext(ctx, "SELECT COALESCE((SELECT tool_calls FROM sessions WHERE id = ?), 0)", session).Scan(&n)
	return n, classify("count tool calls", err)
}

// Spine lists entries, newest first.
func (s *Store) Spine(ctx context.Context, f record.SpineFilter) ([]record.SpineEntry, error) {
	if f.Limit <= 0 {
		f.Limit = 50
	}
	var since int64
	if !f.Since.IsZero() {
		since = f.Since.UnixMilli()
	}
	rows, err := s.db.QueryContext(ctx, `
SELECT id, session_id, project_path, ts, action_type, tool_name, tool_use_id, input_summary, output_summary,
       input_sha256, output_sha256, duration_ms, COALESCE(agent_role,''), COALESCE(agent_type,''), COALESCE(gate_result,'')
FROM spine_entries
WHERE (?1 = '' OR project_path = ?1) AND (?2 = '' OR session_id = ?2) AND (?3 = '' OR action_type = ?3)
  AND (?4 = '' OR tool_name = ?4) AND ts >= ?5
ORDER BY ts DESC, id DESC LIMIT ?6`, f.Project, f.Session, f.ActionType, f.Tool, since, f.Limit)
	if err != nil {
		return nil, classify("list spine", err)
	}
	defer rows.Close()
	var out []record.SpineEntry
	for rows.Next() {
		var e record.SpineEntry
		var ts int64
		var dur sql.NullInt64
		if err := rows.Scan(&e.ID, &e.SessionID, &e.ProjectPath, &ts, &e.ActionType, &e.ToolName, &e.ToolUseID,
			&e.InputSummary, &e.OutputSummary, &e.InputSHA256, &e.OutputSHA256, &dur, &e.AgentRole, &e.AgentType,
			&e.GateResult); err != nil {
			return nil, classify("list spine", err)
		}
		e.At = time.UnixMilli(ts).UTC()
		if dur.Valid {
			d := dur.Int64
			e.DurationMS = &d
		}
		out = append(out, e)
	}
	return out, classify("list spine", rows.Err())
}

// ActionCounts counts a session's spine entries per action type.
func (s *Store) ActionCounts(ctx context.Context, session string) (map[string]int, error) {
	rows, err := s.db.QueryContext(ctx,
		"SELECT action_type, count(*) FROM spine_entries WHERE session_id = ? GROUP BY action_type", session)
	if err != nil {
		return nil, classify("count actions", err)
	}
	defer rows.Close()
	out := map[string]int{}
	for rows.Next() {
		var k string
		var n int
		if err := rows.Scan(&k, &n); err != nil {
			return nil, classify("count actions", err)
		}
		out[k] = n
	}
	return out, classify("count actions", rows.Err())
}
