package store

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"time"

	"github.com/vibe-science/vibe/internal/store/record"
)

// This file holds the read-only queries of `vibe ui` (internal/viewer). None
// of them writes, so they run on a database opened with Options.ReadOnly.

// ClaimSummaries lists the project's claims with their latest status and
// confidence, most recently changed first.
func (s *Store) ClaimSummaries(ctx context.Context, project string) ([]record.ClaimSummary, error) {
	const op = "list claims"
	rows, err := s.db.QueryContext(ctx, `
SELECT claim_id, count(*), min(ts), max(ts),
       (SELECT COALESCE(new_status, '') FROM claim_events l
         WHERE l.project_path = e.project_path AND l.claim_id = e.claim_id AND COALESCE(l.new_status, '') <> ''
         ORDER BY ts DESC, id DESC LIMIT 1),
       (SELECT confidence FROM claim_events l
         WHERE l.project_path = e.project_path AND l.claim_id = e.claim_id AND l.confidence IS NOT NULL
         ORDER BY ts DESC, id DESC LIMIT 1)
FROM claim_events e
WHERE project_path = ?
GROUP BY claim_id
ORDER BY max(ts) DESC, claim_id`, project)
	if err != nil {
		return nil, classify(op, err)
	}
	defer rows.Close()
	var out []record.ClaimSummary
	for rows.Next() {
		var c record.ClaimSummary
		var first, last int64
		var status sql.NullString
		var conf sql.NullFloat64
		if err := rows.Scan(&c.ClaimID, &c.Events, &first, &last, &status, &conf); err != nil {
			return nil, classify(op, err)
		}
		c.Status = status.String
		if conf.Valid {
			v := conf.Float64
			c.Confidence = &v
		}
		c.FirstAt, c.LastAt = time.UnixMilli(first).UTC(), time.UnixMilli(last).UTC()
		out = append(out, c)
	}
	return out, classify(op, rows.Err())
}

// SpinePage lists spine entries newest first (by id, the order they landed).
func (s *Store) SpinePage(ctx context.Context, q record.SpineQuery) ([]record.SpineEntry, error) {
	const op = "list spine"
	if q.Limit <= 0 {
		q.Limit = 100
	}
	before := q.BeforeID
	if before <= 0 {
		before = 1<<63 - 1
	}
	var where strings.Builder
	args := []any{q.Project, before}
	// Walk the rowid backwards and stop at the page's last row: the unary +
	// keeps SQLite from reading the whole project through the (project, ts)
	// index and sorting it. A session's rows come from the session index.
	if q.Session != "" {
		where.WriteString("+project_path = ? AND +id < ? AND session_id = ?")
		args = append(args, q.Session)
	} else {
		where.WriteString("+project_path = ? AND id < ?")
	}
	if q.AfterID > 0 {
		where.WriteString(" AND id > ?")
		args = append(args, q.AfterID)
	}
	if q.Tool != "" {
		where.WriteString(" AND tool_name = ?")
		args = append(args, q.Tool)
	}
	if q.ActionType != "" {
		where.WriteString(" AND action_type = ?")
		args = append(args, q.ActionType)
	}
	if q.Search != "" {
		// LIKE is case-insensitive for ASCII and cheaper than lower()+instr.
		pat := "%" + likeEscaper.Replace(q.Search) + "%"
		where.WriteString(` AND (input_summary LIKE ? ESCAPE '\' OR output_summary LIKE ? ESCAPE '\')`)
		args = append(args, pat, pat)
	}
	args = append(args, q.Limit)
	// A session's rows are few: read them through the session index and
	// sort them (+id), rather than walk the whole spine in id order.
	order := "id DESC"
	if q.Session != "" {
		order = "+id DESC"
	}
	rows, err := s.db.QueryContext(ctx, `
SELECT id, session_id, project_path, ts, action_type, tool_name, tool_use_id, input_summary, output_summary,
       input_sha256, output_sha256, duration_ms, COALESCE(agent_role,''), COALESCE(agent_type,''), COALESCE(gate_result,'')
FROM spine_entries WHERE `+where.String()+` ORDER BY `+order+` LIMIT ?`, args...)
	if err != nil {
		return nil, classify(op, err)
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
			return nil, classify(op, err)
		}
		e.At = time.UnixMilli(ts).UTC()
		if dur.Valid {
			d := dur.Int64
			e.DurationMS = &d
		}
		out = append(out, e)
	}
	return out, classify(op, rows.Err())
}

var likeEscaper = strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)

// SpineHead is the id of the project's newest spine entry (0 when there is
// none): the viewer's live refresh polls it. It is one seek on the
// (project_path, ts) index.
func (s *Store) SpineHead(ctx context.Context, project string) (int64, error) {
	var id int64
	err := s.db.QueryRowContext(ctx, `SELECT id FROM spine_entries WHERE project_path = ?
ORDER BY ts DESC, id DESC LIMIT 1`, project).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	if err != nil {
		return 0, classify("read spine head", err)
	}
	return id, nil
}

// SpineMaxID is the largest spine entry id of any project (0 when there is
// none): the top of the id range a page of the viewer reads.
func (s *Store) SpineMaxID(ctx context.Context) (int64, error) {
	var id sql.NullInt64
	if err := s.db.QueryRowContext(ctx, "SELECT max(id) FROM spine_entries").Scan(&id); err != nil {
		return 0, classify("read spine size", err)
	}
	return id.Int64, nil
}

// SpineCounts counts one project's spine entries (one session's when
// session is not "") by tool and action type, only those with an id above
// afterID, and returns the largest id it counted (afterID when none). A
// caller keeps the counts and adds what landed since, so a project of 100k
// entries is scanned once, not on every page.
func (s *Store) SpineCounts(ctx context.Context, project, session string, afterID int64) ([]record.SpineCount, int64, error) {
	const op = "count spine entries"
	q := `SELECT tool_name, action_type, count(*), max(id) FROM spine_entries
WHERE +project_path = ?1 AND id > ?2 GROUP BY 1, 2`
	args := []any{project, afterID}
	if session != "" {
		q = `SELECT tool_name, action_type, count(*), max(id) FROM spine_entries
WHERE session_id = ?3 AND +project_path = ?1 AND +id > ?2 GROUP BY 1, 2`
		args = append(args, session)
	}
	rows, err := s.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, afterID, classify(op, err)
	}
	defer rows.Close()
	var out []record.SpineCount
	top := afterID
	for rows.Next() {
		var c record.SpineCount
		var m int64
		if err := rows.Scan(&c.Tool, &c.Action, &c.Count, &m); err != nil {
			return nil, afterID, classify(op, err)
		}
		top = max(top, m)
		out = append(out, c)
	}
	return out, top, classify(op, rows.Err())
}

// GateSummaries lists the gates recorded for a project with their result
// counts and latest result, by gate id.
func (s *Store) GateSummaries(ctx context.Context, project string) ([]record.GateSummary, error) {
	const op = "count gate results"
	rows, err := s.db.QueryContext(ctx, `
SELECT gate_id, sum(status = 'PASS'), sum(status = 'WARN'), sum(status = 'FAIL'), max(ts),
       (SELECT status FROM gate_checks l WHERE l.project_path = g.project_path AND l.gate_id = g.gate_id
         ORDER BY ts DESC, id DESC LIMIT 1)
FROM gate_checks g WHERE project_path = ? GROUP BY gate_id ORDER BY gate_id`, project)
	if err != nil {
		return nil, classify(op, err)
	}
	defer rows.Close()
	var out []record.GateSummary
	for rows.Next() {
		var g record.GateSummary
		var last int64
		if err := rows.Scan(&g.GateID, &g.Pass, &g.Warn, &g.Fail, &last, &g.LastStatus); err != nil {
			return nil, classify(op, err)
		}
		g.LastAt = time.UnixMilli(last).UTC()
		out = append(out, g)
	}
	return out, classify(op, rows.Err())
}

// outrankerOlder finds the memory m.superseded_by names when it is older
// than m: m disputes it (see Tx.resupersede) rather than being superseded
// by it.
const outrankerOlder = "SELECT 1 FROM memories o WHERE o.id = m.superseded_by AND (o.created_at < m.created_at OR (o.created_at = m.created_at AND o.id < m.id))"

// memoryStateSQL is each record.MemoryStates' condition on a memory m, as
// record.MemoryRecord.State decides it.
var memoryStateSQL = map[string]string{
	record.MemoryCurrent:    "m.forgotten = 0 AND m.superseded_by IS NULL AND NOT EXISTS (SELECT 1 FROM memory_links l WHERE l.memory_id = m.id)",
	record.MemoryDisputed:   "m.forgotten = 0 AND m.superseded_by IS NULL AND EXISTS (SELECT 1 FROM memory_links l WHERE l.memory_id = m.id)",
	record.MemoryDisputing:  "m.forgotten = 0 AND m.superseded_by IS NOT NULL AND EXISTS (" + outrankerOlder + ")",
	record.MemorySuperseded: "m.forgotten = 0 AND m.superseded_by IS NOT NULL AND NOT EXISTS (" + outrankerOlder + ")",
	record.MemoryForgotten:  "m.forgotten <> 0",
}

// MemoryPage lists a project's memories newest recorded first (by id),
// in full, filtered by kind and state.
func (s *Store) MemoryPage(ctx context.Context, q record.MemoryQuery) ([]record.MemoryRecord, error) {
	const op = "list memories"
	if q.Limit <= 0 {
		q.Limit = 100
	}
	cond, ok := memoryStateSQL[q.State]
	if !ok {
		cond = "m.forgotten = 0"
	}
	query := "SELECT " + memoryCols + ` FROM memories m
WHERE m.project_path = ? AND (? = '' OR m.kind = ?) AND (? = 0 OR m.id < ?) AND ` + cond + `
ORDER BY m.id DESC LIMIT ?`
	rows, err := s.db.QueryContext(ctx, query, q.Project, q.Kind, q.Kind, q.BeforeID, q.BeforeID, q.Limit)
	if err != nil {
		return nil, classify(op, err)
	}
	defer rows.Close()
	var out []record.MemoryRecord
	for rows.Next() {
		m, err := scanMemory(rows)
		if err != nil {
			return nil, classify(op, err)
		}
		out = append(out, m)
	}
	return out, classify(op, rows.Err())
}

// ProjectMemoryCounts counts a project's memories by kind (forgotten ones
// left out), most first, and by state, in record.MemoryStates' order.
func (s *Store) ProjectMemoryCounts(ctx context.Context, project string) (record.MemoryCounts, error) {
	const op = "count memories"
	var c record.MemoryCounts
	rows, err := s.db.QueryContext(ctx, `SELECT kind, count(*) FROM memories WHERE project_path = ? AND forgotten = 0
GROUP BY kind ORDER BY count(*) DESC, kind`, project)
	if err != nil {
		return c, classify(op, err)
	}
	defer rows.Close()
	for rows.Next() {
		var n record.NameCount
		if err := rows.Scan(&n.Name, &n.Count); err != nil {
			return c, classify(op, err)
		}
		c.Kinds = append(c.Kinds, n)
	}
	if err := rows.Err(); err != nil {
		return c, classify(op, err)
	}
	for _, st := range record.MemoryStates {
		n := record.NameCount{Name: st}
		if err := s.db.QueryRowContext(ctx, "SELECT count(*) FROM memories m WHERE m.project_path = ? AND "+memoryStateSQL[st],
			project).Scan(&n.Count); err != nil {
			return c, classify(op, err)
		}
		c.States = append(c.States, n)
	}
	return c, nil
}
