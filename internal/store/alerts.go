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

// alertOrder sorts alerts most severe first, then newest: HALT, WARN, INFO.
// Sorting the level as text would put HALT after WARN, as the JavaScript
// plugin did.
const alertOrder = `CASE level WHEN 'HALT' THEN 0 WHEN 'WARN' THEN 1 ELSE 2 END, created_at DESC, id DESC`

const alertCols = `id, project_path, COALESCE(session_id,''), check_name, level, message, fingerprint, resolved,
    resolved_at, COALESCE(resolution,''), created_at`

func scanAlert(row interface{ Scan(...any) error }) (record.Alert, error) {
	var a record.Alert
	var resolved int
	var at sql.NullInt64
	var created int64
	if err := row.Scan(&a.ID, &a.ProjectPath, &a.SessionID, &a.Check, &a.Level, &a.Message, &a.Fingerprint,
		&resolved, &at, &a.Resolution, &created); err != nil {
		return a, err
	}
	a.Resolved = resolved != 0
	if at.Valid {
		t := time.UnixMilli(at.Int64).UTC()
		a.ResolvedAt = &t
	}
	a.CreatedAt = time.UnixMilli(created).UTC()
	return a, nil
}

type alertQuerier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

func queryAlerts(ctx context.Context, q alertQuerier, op, where string, args ...any) ([]record.Alert, error) {
	rows, err := q.QueryContext(ctx, "SELECT "+alertCols+" FROM observer_alerts WHERE "+where, args...)
	if err != nil {
		return nil, classify(op, err)
	}
	defer rows.Close()
	var out []record.Alert
	for rows.Next() {
		a, err := scanAlert(rows)
		if err != nil {
			return nil, classify(op, err)
		}
		out = append(out, a)
	}
	return out, classify(op, rows.Err())
}

// RaiseAlert records an alert unless the same fingerprint is already open in
// the project (the unique open-alert index) or a person has already resolved
// that very fingerprint: a resolved situation is not raised again until
// something about it changes (and with it the fingerprint). It returns the
// stored alert and whether it was new.
func (t *Tx) RaiseAlert(ctx context.Context, a record.NewAlert) (record.Alert, bool, error) {
	switch a.Level {
	case record.AlertInfo, record.AlertWarn, record.AlertHalt:
	default:
		return record.Alert{}, false, fault.Errorf(fault.Invalid, "raise alert", "level %q is not INFO, WARN or HALT", a.Level)
	}
	var dismissed int
	if err := t.tx.QueryRowContext(ctx, `
SELECT EXISTS (SELECT 1 FROM observer_alerts WHERE project_path = ? AND resolved = 1 AND fingerprint = ?
    AND resolution LIKE 'user:%')`, a.ProjectPath, a.Fingerprint).Scan(&dismissed); err != nil {
		return record.Alert{}, false, classify("raise alert", err)
	}
	if dismissed != 0 {
		return record.Alert{}, false, nil
	}
	a.Message = privacy.Scrub(a.Message)
	res, err := t.tx.ExecContext(ctx, `
INSERT INTO observer_alerts (project_path, session_id, check_name, level, message, fingerprint, created_at)
VALUES (?, NULLIF(?, ''), ?, ?, ?, ?, ?)
ON CONFLICT DO NOTHING`, a.ProjectPath, a.SessionID, a.Check, a.Level, a.Message, a.Fingerprint, a.At.UnixMilli())
	if err != nil {
		return record.Alert{}, false, classify("raise alert", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return record.Alert{}, false, nil
	}
	id, err := res.LastInsertId()
	if err != nil {
		return record.Alert{}, false, classify("raise alert", err)
	}
	return record.Alert{ID: id, ProjectPath: a.ProjectPath, SessionID: a.SessionID, Check: a.Check, Level: a.Level,
		Message: a.Message, Fingerprint: a.Fingerprint, CreatedAt: a.At.UTC().Truncate(time.Millisecond)}, true, nil
}

// ResolveAlert marks an open alert resolved by "user" or "observer" with a
// note. An unknown id is NotFound; an alert already resolved is Invalid, so a
// second resolve says so instead of rewriting the first resolution.
func (t *Tx) ResolveAlert(ctx context.Context, id int64, by, note string, at time.Time) (record.Alert, error) {
	if by != record.ResolvedByUser && by != record.ResolvedByObserver {
		return record.Alert{}, fault.Errorf(fault.Invalid, "resolve alert", "resolver %q is not user or observer", by)
	}
	a, err := scanAlert(t.tx.QueryRowContext(ctx, "SELECT "+alertCols+" FROM observer_alerts WHERE id = ?", id))
	if errors.Is(err, sql.ErrNoRows) {
		return record.Alert{}, fault.Errorf(fault.NotFound, "resolve alert", "no alert %d (see `vibe alerts list --all`)", id)
	}
	if err != nil {
		return record.Alert{}, classify("resolve alert", err)
	}
	if a.Resolved {
		return a, fault.Errorf(fault.Invalid, "resolve alert", "alert %d is already resolved (%s): nothing to do", id, a.Resolution)
	}
	note = strings.TrimSpace(privacy.Scrub(note))
	if note == "" {
		note = "resolved"
	}
	resolution := by + ": " + note
	if _, err := t.tx.ExecContext(ctx, `UPDATE observer_alerts SET resolved = 1, resolved_at = ?, resolution = ? WHERE id = ?`,
		at.UnixMilli(), resolution, id); err != nil {
		return record.Alert{}, classify("resolve alert", err)
	}
	ts := at.UTC().Truncate(time.Millisecond)
	a.Resolved, a.ResolvedAt, a.Resolution = true, &ts, resolution
	return a, nil
}

// OpenAlerts lists a project's open alerts inside the transaction, most
// severe first, then newest.
func (t *Tx) OpenAlerts(ctx context.Context, project string) ([]record.Alert, error) {
	return queryAlerts(ctx, t.tx, "list open alerts", "project_path = ? AND resolved = 0 ORDER BY "+alertOrder, project)
}

// Alerts lists alerts: open ones first, each group most severe first, then
// newest.
func (s *Store) Alerts(ctx context.Context, f record.AlertFilter) ([]record.Alert, error) {
	if f.Limit <= 0 {
		f.Limit = 100
	}
	// Only the filters given are written into the statement: a filter
	// spelled "(? = '' OR project_path = ?)" keeps SQLite from the
	// (project_path, resolved) index and scans every project's alerts.
	where, args := "1", []any{}
	if f.Project != "" {
		where, args = where+" AND project_path = ?", append(args, f.Project)
	}
	if !f.IncludeResolved {
		where += " AND resolved = 0"
	}
	if f.Level != "" {
		where, args = where+" AND level = ?", append(args, f.Level)
	}
	return queryAlerts(ctx, s.db, "list alerts", where+" ORDER BY resolved, "+alertOrder+" LIMIT ?",
		append(args, f.Limit)...)
}

// OpenHalts lists a project's open HALT alerts, newest first. PreToolUse
// calls it on every tool call: it reads the small open-alert index only.
func (s *Store) OpenHalts(ctx context.Context, project string) ([]record.Alert, error) {
	return queryAlerts(ctx, s.db, "list open HALT alerts",
		"project_path = ? AND resolved = 0 AND level = 'HALT' ORDER BY created_at DESC, id DESC", project)
}

// Alert returns one alert by id.
func (s *Store) Alert(ctx context.Context, id int64) (record.Alert, error) {
	a, err := scanAlert(s.db.QueryRowContext(ctx, "SELECT "+alertCols+" FROM observer_alerts WHERE id = ?", id))
	if errors.Is(err, sql.ErrNoRows) {
		return a, fault.Errorf(fault.NotFound, "alert", "no alert %d (see `vibe alerts list --all`)", id)
	}
	return a, classify("read alert", err)
}

// OpenAlertCounts counts a project's open alerts per level.
func (s *Store) OpenAlertCounts(ctx context.Context, project string) (record.AlertCounts, error) {
	var c record.AlertCounts
	err := s.db.QueryRowContext(ctx, `
SELECT COALESCE(sum(level = 'HALT'), 0), COALESCE(sum(level = 'WARN'), 0), COALESCE(sum(level = 'INFO'), 0)
FROM observer_alerts WHERE project_path = ? AND resolved = 0`, project).Scan(&c.Halt, &c.Warn, &c.Info)
	return c, classify("count open alerts", err)
}

// RecentActions returns a project's last n spine entries (action type and
// time), newest first. It walks the (project_path, ts) index backwards, so
// its cost does not grow with the spine.
func (s *Store) RecentActions(ctx context.Context, project string, n int) ([]record.ActionStamp, error) {
	rows, err := s.db.QueryContext(ctx, `
SELECT action_type, ts FROM spine_entries WHERE project_path = ? ORDER BY ts DESC, id DESC LIMIT ?`, project, n)
	if err != nil {
		return nil, classify("read recent actions", err)
	}
	defer rows.Close()
	out := make([]record.ActionStamp, 0, n)
	for rows.Next() {
		var a record.ActionStamp
		var ts int64
		if err := rows.Scan(&a.ActionType, &ts); err != nil {
			return nil, classify("read recent actions", err)
		}
		a.At = time.UnixMilli(ts).UTC()
		out = append(out, a)
	}
	return out, classify("read recent actions", rows.Err())
}

// FirstActionAfter is the time of a project's first spine entry strictly
// after t, and whether there is one.
func (s *Store) FirstActionAfter(ctx context.Context, project string, t time.Time) (time.Time, bool, error) {
	var ts sql.NullInt64
	err := s.db.QueryRowContext(ctx, `SELECT min(ts) FROM spine_entries WHERE project_path = ? AND ts > ?`,
		project, t.UnixMilli()).Scan(&ts)
	if err != nil {
		return time.Time{}, false, classify("read first action", err)
	}
	if !ts.Valid {
		return time.Time{}, false, nil
	}
	return time.UnixMilli(ts.Int64).UTC(), true, nil
}

// LiteratureSince reports whether the project recorded a literature search
// at or after t that counts for gate L-1 (searches marked
// LiteratureUncounted do not).
func (s *Store) LiteratureSince(ctx context.Context, project string, t time.Time) (bool, error) {
	var n int
	err := s.db.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM literature_searches
WHERE project_path = ? AND ts >= ? AND COALESCE(gate_context, '') <> ?)`,
		project, t.UnixMilli(), record.LiteratureUncounted).Scan(&n)
	return n != 0, classify("read literature searches", err)
}

// ObserverCache returns the observer's cached file facts for a key (the
// meta table), "" when there are none.
func (s *Store) ObserverCache(ctx context.Context, key string) (string, error) {
	var v string
	err := s.db.QueryRowContext(ctx, "SELECT value FROM meta WHERE key = ?", "observer:"+key).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	return v, classify("read observer cache", err)
}

// SetObserverCache stores the observer's cached file facts for a key.
func (t *Tx) SetObserverCache(ctx context.Context, key, value string) error {
	_, err := t.tx.ExecContext(ctx, `INSERT INTO meta (key, value) VALUES (?, ?)
ON CONFLICT(key) DO UPDATE SET value = excluded.value`, "observer:"+key, value)
	return classify("write observer cache", err)
}
