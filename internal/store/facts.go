package store

import (
	"context"
	"database/sql"

	"github.com/vibe-science/vibe/internal/store/record"
)

// Facts reads a session's facts.
func (t *Tx) Facts(ctx context.Context, session string) (record.SessionFacts, error) {
	f := record.SessionFacts{SessionID: session, Actions: map[string]int{}}
	q := t.tx
	if err := q.QueryRowContext(ctx, "SELECT project_path FROM sessions WHERE id = ?", session).Scan(&f.ProjectPath); err != nil && err != sql.ErrNoRows {
		return f, classify("read session", err)
	}
	rows, err := q.QueryContext(ctx, "SELECT action_type, count(*) FROM spine_entries WHERE session_id = ? GROUP BY action_type", session)
	if err != nil {
		return f, classify("count actions", err)
	}
	for rows.Next() {
		var k string
		var n int
		if err := rows.Scan(&k, &n); err != nil {
			rows.Close()
			return f, classify("count actions", err)
		}
		f.Actions[k] = n
		f.Total += n
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return f, classify("count actions", err)
	}

	rows, err = q.QueryContext(ctx, `
SELECT claim_id, event_type, COALESCE(new_status,''), confidence, COALESCE(kill_reason,''), COALESCE(narrative,'')
FROM claim_events e WHERE session_id = ?1 AND id = (
    SELECT max(id) FROM claim_events WHERE session_id = ?1 AND claim_id = e.claim_id)
ORDER BY claim_id`, session)
	if err != nil {
		return f, classify("read claims", err)
	}
	for rows.Next() {
		var c record.ClaimState
		var conf sql.NullFloat64
		if err := rows.Scan(&c.ClaimID, &c.EventType, &c.NewStatus, &conf, &c.KillReason, &c.Narrative); err != nil {
			rows.Close()
			return f, classify("read claims", err)
		}
		if conf.Valid {
			v := conf.Float64
			c.Confidence = &v
		}
		f.Claims = append(f.Claims, c)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return f, classify("read claims", err)
	}

	rows, err = q.QueryContext(ctx, `
SELECT gate_id, COALESCE(claim_id,''), status, COALESCE(details,'') FROM gate_checks WHERE session_id = ? ORDER BY ts, id`, session)
	if err != nil {
		return f, classify("read gates", err)
	}
	for rows.Next() {
		var g record.GateOutcome
		if err := rows.Scan(&g.GateID, &g.ClaimID, &g.Status, &g.Details); err != nil {
			rows.Close()
			return f, classify("read gates", err)
		}
		f.Gates = append(f.Gates, g)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return f, classify("read gates", err)
	}

	// The counts above say whether there is any correction to list: most
	// sessions have none, and the query walks every entry of the session
	// (0.23 ms for 2,300 entries, on every Stop's narrative checkpoint).
	if f.Actions["BUG_FIX"]+f.Actions["DESIGN_CHANGE"] > 0 {
		if err := t.corrections(ctx, &f); err != nil {
			return f, err
		}
	}

	rows, err = q.QueryContext(ctx, "SELECT query FROM literature_searches WHERE session_id = ? ORDER BY ts, id", session)
	if err != nil {
		return f, classify("read literature", err)
	}
	defer rows.Close()
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return f, classify("read literature", err)
		}
		f.Literature = append(f.Literature, s)
	}
	return f, classify("read literature", rows.Err())
}

// Session reads one session inside a transaction.
func (t *Tx) Session(ctx context.Context, id string) (record.Session, error) {
	out, err := scanSession(t.tx.QueryRowContext(ctx, "SELECT "+sessionCols+" FROM sessions WHERE id = ?", id))
	return out, classify("read session", err)
}

// corrections reads the session's BUG_FIX and DESIGN_CHANGE entries in order.
func (t *Tx) corrections(ctx context.Context, f *record.SessionFacts) error {
	rows, err := t.tx.QueryContext(ctx, `
SELECT action_type, input_summary FROM spine_entries
WHERE session_id = ? AND action_type IN ('BUG_FIX','DESIGN_CHANGE') ORDER BY ts, id`, f.SessionID)
	if err != nil {
		return classify("read corrections", err)
	}
	for rows.Next() {
		var e record.SpineEntry
		if err := rows.Scan(&e.ActionType, &e.InputSummary); err != nil {
			rows.Close()
			return classify("read corrections", err)
		}
		f.Corrections = append(f.Corrections, e)
	}
	rows.Close()
	return classify("read corrections", rows.Err())
}
