package store

import (
	"context"
	"encoding/json"
	"time"

	"github.com/vibe-science/vibe/internal/privacy"
	"github.com/vibe-science/vibe/internal/record"
	"github.com/vibe-science/vibe/internal/verdict"
)

// AppendAdvisories appends verdicts to the advisory log. The table refuses
// updates and deletes (triggers), so the log is a true record.
func (t *Tx) AppendAdvisories(ctx context.Context, c record.AdvisoryContext, vs []verdict.Verdict) error {
	for _, v := range vs {
		v = scrubVerdict(v)
		raw, _ := json.Marshal(v.Evidence)
		ev := string(raw)
		var in any
		if len(v.Input) > 0 {
			in = string(v.Input)
		}
		if _, err := t.tx.ExecContext(ctx, `
INSERT INTO advisories (session_id, project_path, event, tool_use_id, check_name, result, severity, reason,
    evidence, recommendation, input, decision_hash, ts)
VALUES (NULLIF(?, ''), ?, ?, NULLIF(?, ''), ?, ?, ?, ?, ?, NULLIF(?, ''), ?, ?, ?)`,
			c.SessionID, c.ProjectPath, c.Event, c.ToolUseID, v.Check, string(v.Result), string(v.Severity),
			v.Reason, ev, v.Recommendation, in, v.DecisionHash, c.At.UnixMilli()); err != nil {
			return classify("append advisory", err)
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

// Advisory is one stored verdict.
type Advisory struct {
	ID          int64
	SessionID   string
	ProjectPath string
	Event       string
	Verdict     verdict.Verdict
	At          time.Time
}

// Advisories lists stored verdicts of a session (or of a project when
// session is ""), newest first, optionally only those at or above WARN.
func (s *Store) Advisories(ctx context.Context, project, session string, onlyProblems bool, limit int) ([]Advisory, error) {
	if limit <= 0 {
		limit = 50
	}
	rows, err := s.db.QueryContext(ctx, `
SELECT id, COALESCE(session_id,''), project_path, event, check_name, result, severity, reason, COALESCE(evidence,''),
       COALESCE(recommendation,''), COALESCE(input,''), decision_hash, ts
FROM advisories
WHERE (?1 = '' OR project_path = ?1) AND (?2 = '' OR session_id = ?2) AND (?3 = 0 OR result <> 'PASS')
ORDER BY ts DESC, id DESC LIMIT ?4`, project, session, onlyProblems, limit)
	if err != nil {
		return nil, classify("list advisories", err)
	}
	defer rows.Close()
	var out []Advisory
	for rows.Next() {
		var a Advisory
		var res, sev, ev, in string
		var ts int64
		if err := rows.Scan(&a.ID, &a.SessionID, &a.ProjectPath, &a.Event, &a.Verdict.Check, &res, &sev,
			&a.Verdict.Reason, &ev, &a.Verdict.Recommendation, &in, &a.Verdict.DecisionHash, &ts); err != nil {
			return nil, classify("list advisories", err)
		}
		a.Verdict.Result = verdict.Result(res)
		a.Verdict.Severity = verdict.Severity(sev)
		if ev != "" {
			_ = json.Unmarshal([]byte(ev), &a.Verdict.Evidence)
		}
		if in != "" {
			a.Verdict.Input = json.RawMessage(in)
		}
		a.At = time.UnixMilli(ts).UTC()
		out = append(out, a)
	}
	return out, classify("list advisories", rows.Err())
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
