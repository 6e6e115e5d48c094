package store

import (
	"context"
	"encoding/json"
	"strings"
	"time"

	"github.com/vibe-science/vibe/internal/privacy"
	"github.com/vibe-science/vibe/internal/store/record"
	"github.com/vibe-science/vibe/internal/verdict"
)

// AppendAdvisories appends verdicts to the advisory log and, when decided
// holds one entry per verdict, what the hook did with each (hook_decisions,
// with c.Tool). Both tables refuse updates and deletes (triggers), so the
// log is a true record. Without decided (a record an older vibe spooled, a
// test's verdicts) only the verdicts are written.
func (t *Tx) AppendAdvisories(ctx context.Context, c record.AdvisoryContext, vs []verdict.Verdict, decided ...record.Decided) error {
	if len(decided) != len(vs) {
		decided = nil
	}
	for i, v := range vs {
		v = scrubVerdict(v)
		raw, _ := json.Marshal(v.Evidence)
		ev := string(raw)
		var in any
		if len(v.Input) > 0 {
			in = string(v.Input)
		}
		res, err := t.tx.ExecContext(ctx, `
INSERT INTO advisories (session_id, project_path, event, tool_use_id, check_name, result, severity, reason,
    evidence, recommendation, input, decision_hash, ts)
VALUES (NULLIF(?, ''), ?, ?, NULLIF(?, ''), ?, ?, ?, ?, ?, NULLIF(?, ''), ?, ?, ?)`,
			c.SessionID, c.ProjectPath, c.Event, c.ToolUseID, v.Check, string(v.Result), string(v.Severity),
			v.Reason, ev, v.Recommendation, in, v.DecisionHash, c.At.UnixMilli())
		if err != nil {
			return classify("append advisory", err)
		}
		if decided == nil {
			continue
		}
		id, err := res.LastInsertId()
		if err != nil {
			return classify("append advisory", err)
		}
		if _, err := t.tx.ExecContext(ctx, `
INSERT INTO hook_decisions (advisory_id, kind, tool, file) VALUES (?, ?, NULLIF(?, ''), NULLIF(?, ''))`,
			id, decided[i].Kind, c.Tool, privacy.Scrub(decided[i].File)); err != nil {
			return classify("append hook decision", err)
		}
	}
	return nil
}

// scrubVerdict is v with its free texts scrubbed: the reason, the
// recommendation, the evidence (a note may quote a command) and the input
// (a JSON document, scrubbed string by string).
func scrubVerdict(v verdict.Verdict) verdict.Verdict {
	v.Reason, v.Recommendation = privacy.Scrub(v.Reason), privacy.Scrub(v.Recommendation)
	scrub := func(xs []string) []string {
		out := make([]string, len(xs))
		for i, x := range xs {
			out[i] = privacy.Scrub(x)
		}
		return out
	}
	if len(v.Evidence.Notes) > 0 {
		v.Evidence.Notes = scrub(v.Evidence.Notes)
	}
	if len(v.Evidence.Numbers) > 0 {
		v.Evidence.Numbers = scrub(v.Evidence.Numbers)
	}
	if len(v.Input) > 0 {
		v.Input = json.RawMessage(privacy.ScrubJSON(v.Input))
	}
	return v
}

// Decisions lists recorded verdicts with what their hooks did with them,
// newest first (ties by id): what vibe denied, blocked, asked and warned.
func (s *Store) Decisions(ctx context.Context, f record.DecisionFilter) ([]record.Decision, error) {
	if f.Limit <= 0 {
		f.Limit = 50
	}
	var b strings.Builder
	b.WriteString(`
SELECT a.id, COALESCE(a.session_id,''), a.project_path, a.event, COALESCE(a.tool_use_id,''), COALESCE(d.tool,''),
       COALESCE(d.file,''), a.check_name, a.result, a.severity, COALESCE(d.kind,''), a.reason,
       COALESCE(a.recommendation,''), COALESCE(a.evidence,''), a.decision_hash, a.ts
FROM advisories a LEFT JOIN hook_decisions d ON d.advisory_id = a.id
WHERE 1`)
	var args []any
	if f.Project != "" {
		b.WriteString(" AND a.project_path = ?")
		args = append(args, f.Project)
	}
	if f.Session != "" {
		b.WriteString(" AND a.session_id = ?")
		args = append(args, f.Session)
	}
	if !f.Since.IsZero() {
		b.WriteString(" AND a.ts >= ?")
		args = append(args, f.Since.UnixMilli())
	}
	if len(f.Kinds) > 0 {
		b.WriteString(" AND COALESCE(d.kind,'') IN (" + placeholders(len(f.Kinds)) + ")")
		for _, k := range f.Kinds {
			args = append(args, k)
		}
	} else {
		b.WriteString(" AND COALESCE(d.kind,'') <> '" + record.DecisionRecorded + "' AND a.result <> 'PASS'")
	}
	if len(f.Checks) > 0 {
		b.WriteString(" AND a.check_name IN (" + placeholders(len(f.Checks)) + ")")
		for _, c := range f.Checks {
			args = append(args, c)
		}
	}
	if f.Claim != "" {
		b.WriteString(" AND json_valid(a.evidence) AND EXISTS (SELECT 1 FROM json_each(a.evidence, '$.claims') WHERE value = ?)")
		args = append(args, f.Claim)
	}
	b.WriteString(" ORDER BY a.ts DESC, a.id DESC LIMIT ?")
	args = append(args, f.Limit)
	rows, err := s.db.QueryContext(ctx, b.String(), args...)
	if err != nil {
		return nil, classify("list decisions", err)
	}
	defer rows.Close()
	var out []record.Decision
	for rows.Next() {
		var d record.Decision
		var ev string
		var ts int64
		if err := rows.Scan(&d.ID, &d.SessionID, &d.ProjectPath, &d.Event, &d.ToolUseID, &d.Tool, &d.File, &d.Check,
			&d.Result, &d.Severity, &d.Kind, &d.Reason, &d.Recommendation, &ev, &d.DecisionHash, &ts); err != nil {
			return nil, classify("list decisions", err)
		}
		var e verdict.Evidence
		if ev != "" && json.Unmarshal([]byte(ev), &e) == nil {
			d.Paths, d.Claims = e.Paths, e.Claims
		}
		d.At = time.UnixMilli(ts).UTC()
		out = append(out, d)
	}
	return out, classify("list decisions", rows.Err())
}

// placeholders is "?, ?, ?" for n values.
func placeholders(n int) string {
	return strings.TrimSuffix(strings.Repeat("?, ", n), ", ")
}

// DecisionCounts counts a project's decisions by kind (every kind but
// recorded), for the viewer's overview.
func (s *Store) DecisionCounts(ctx context.Context, project string) ([]record.NameCount, error) {
	rows, err := s.db.QueryContext(ctx, `
SELECT COALESCE(d.kind,''), count(*) FROM advisories a LEFT JOIN hook_decisions d ON d.advisory_id = a.id
WHERE a.project_path = ? AND a.result <> 'PASS' AND COALESCE(d.kind,'') <> ?
GROUP BY 1`, project, record.DecisionRecorded)
	if err != nil {
		return nil, classify("count decisions", err)
	}
	defer rows.Close()
	var out []record.NameCount
	for rows.Next() {
		var c record.NameCount
		if err := rows.Scan(&c.Name, &c.Count); err != nil {
			return nil, classify("count decisions", err)
		}
		out = append(out, c)
	}
	return out, classify("count decisions", rows.Err())
}

// AdvisoriesByCheck lists a project's verdicts of one check recorded since
// a time, newest first: SessionStart uses it to repeat what must not be
// forgotten (protected files changed in an earlier session).
func (s *Store) AdvisoriesByCheck(ctx context.Context, project, check string, since time.Time, limit int) ([]Advisory, error) {
	rows, err := s.db.QueryContext(ctx, `
SELECT id, COALESCE(session_id,''), reason, COALESCE(recommendation,''), ts FROM advisories
WHERE project_path = ? AND check_name = ? AND ts >= ? ORDER BY ts DESC, id DESC LIMIT ?`, project, check, since.UnixMilli(), limit)
	if err != nil {
		return nil, classify("list advisories", err)
	}
	defer rows.Close()
	var out []Advisory
	for rows.Next() {
		var a Advisory
		var ts int64
		if err := rows.Scan(&a.ID, &a.SessionID, &a.Verdict.Reason, &a.Verdict.Recommendation, &ts); err != nil {
			return nil, classify("list advisories", err)
		}
		a.ProjectPath, a.Verdict.Check, a.At = project, check, time.UnixMilli(ts).UTC()
		out = append(out, a)
	}
	return out, classify("list advisories", rows.Err())
}

// Advisory is one stored verdict.
type Advisory struct {
	ID          int64
	SessionID   string
	ProjectPath string
	Event       string
	Verdict     verdict.Verdict
	At          time.Time
}
