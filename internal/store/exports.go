package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"strings"
	"time"

	"github.com/vibe-science/vibe/internal/store/record"
)

// openSeedStatuses are the seed statuses that still need a decision; KILLED
// and PROMOTED_TO_CLAIM are closed.
const openSeedStatuses = `('PENDING_TRIAGE', 'QUEUED', 'TESTING')`

// PendingSeeds lists a project's open seeds, longest pending first, at most
// limit of them (<= 0 means 20).
func (s *Store) PendingSeeds(ctx context.Context, project string, limit int) ([]record.PendingSeed, error) {
	if limit <= 0 {
		limit = 20
	}
	rows, err := s.db.QueryContext(ctx, `
SELECT seed_id, status, COALESCE(causal_question,''), sessions_pending, escalated FROM serendipity_seeds
WHERE project_path = ? AND status IN `+openSeedStatuses+`
ORDER BY sessions_pending DESC, seed_id LIMIT ?`, project, limit)
	if err != nil {
		return nil, classify("list pending seeds", err)
	}
	defer rows.Close()
	var out []record.PendingSeed
	for rows.Next() {
		var p record.PendingSeed
		var esc int
		if err := rows.Scan(&p.SeedID, &p.Status, &p.CausalQuestion, &p.SessionsPending, &esc); err != nil {
			return nil, classify("list pending seeds", err)
		}
		p.Escalated = esc != 0
		out = append(out, p)
	}
	return out, classify("list pending seeds", rows.Err())
}

func spineMarkKey(project string) string { return "spine_export:" + project }

// SpineMark reads the project's export mark inside the transaction; the zero
// mark means nothing was exported yet from this database.
func (t *Tx) SpineMark(ctx context.Context, project string) (record.SpineMark, error) {
	var v string
	err := t.tx.QueryRowContext(ctx, "SELECT value FROM meta WHERE key = ?", spineMarkKey(project)).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return record.SpineMark{}, nil
	}
	if err != nil {
		return record.SpineMark{}, classify("read spine export mark", err)
	}
	var m record.SpineMark
	if err := json.Unmarshal([]byte(v), &m); err != nil {
		// A damaged mark restarts the export rather than blocking it forever.
		return record.SpineMark{}, nil
	}
	return m, nil
}

// SetSpineMark records the project's export mark.
func (t *Tx) SetSpineMark(ctx context.Context, project string, m record.SpineMark) error {
	raw, _ := json.Marshal(m)
	_, err := t.tx.ExecContext(ctx, `INSERT INTO meta (key, value) VALUES (?, ?)
ON CONFLICT(key) DO UPDATE SET value = excluded.value`, spineMarkKey(project), string(raw))
	return classify("write spine export mark", err)
}

// SpineAfter lists a project's spine entries with an id above afterID, in id
// order, at most limit of them. It walks the rowid range (the unary + keeps
// SQLite off the project index, which would sort the project's whole spine).
func (t *Tx) SpineAfter(ctx context.Context, project string, afterID int64, limit int) ([]record.SpineEntry, error) {
	rows, err := t.tx.QueryContext(ctx, `
SELECT id, session_id, ts, action_type, tool_name, input_summary, COALESCE(agent_type,''), COALESCE(gate_result,'')
FROM spine_entries WHERE id > ? AND +project_path = ? ORDER BY id LIMIT ?`, afterID, project, limit)
	if err != nil {
		return nil, classify("list spine for export", err)
	}
	defer rows.Close()
	var out []record.SpineEntry
	for rows.Next() {
		var e record.SpineEntry
		var ts int64
		if err := rows.Scan(&e.ID, &e.SessionID, &ts, &e.ActionType, &e.ToolName, &e.InputSummary, &e.AgentType,
			&e.GateResult); err != nil {
			return nil, classify("list spine for export", err)
		}
		e.ProjectPath = project
		e.At = time.UnixMilli(ts).UTC()
		out = append(out, e)
	}
	return out, classify("list spine for export", rows.Err())
}

// PassedGatesFor returns, for each of the given claims that has any, the
// gates with a PASS recorded for it: claim id → gate id → true. It is
// PassedGates for many claims in one query, with the same rule (any PASS
// counts), so vibe's STATE.md section names the same missing gates the
// promotion check will.
func (s *Store) PassedGatesFor(ctx context.Context, project string, claims []string) (map[string]map[string]bool, error) {
	out := map[string]map[string]bool{}
	if len(claims) == 0 {
		return out, nil
	}
	args := make([]any, 0, len(claims)+1)
	args = append(args, project)
	for _, c := range claims {
		args = append(args, c)
	}
	rows, err := s.db.QueryContext(ctx, `
SELECT DISTINCT claim_id, gate_id FROM gate_checks
WHERE project_path = ? AND status = 'PASS' AND claim_id IN (?`+strings.Repeat(", ?", len(claims)-1)+`)`, args...)
	if err != nil {
		return nil, classify("read passed gates", err)
	}
	defer rows.Close()
	for rows.Next() {
		var c, g string
		if err := rows.Scan(&c, &g); err != nil {
			return nil, classify("read passed gates", err)
		}
		if out[c] == nil {
			out[c] = map[string]bool{}
		}
		out[c][g] = true
	}
	return out, classify("read passed gates", rows.Err())
}

// FailingGates lists the gates whose latest result, among the project's last
// window gate runs (<= 0 means 2000), is FAIL, newest first. The window keeps
// the query bounded on a long project; a gate that failed that long ago and
// was never rerun is history, not a pending task.
func (s *Store) FailingGates(ctx context.Context, project string, window int) ([]record.GateState, error) {
	latest, err := s.LatestGates(ctx, project, window)
	if err != nil {
		return nil, classify("read failing gates", err)
	}
	var out []record.GateState
	for _, g := range latest {
		if g.Status == "FAIL" {
			out = append(out, g)
		}
	}
	return out, nil
}

// LatestGates lists the latest result of each gate (per claim, for a gate
// run on a claim) among the project's last window gate runs (<= 0 means
// 2000), newest first: what TREE-STATE.json records as the gates' state.
func (s *Store) LatestGates(ctx context.Context, project string, window int) ([]record.GateState, error) {
	if window <= 0 {
		window = 2000
	}
	rows, err := s.db.QueryContext(ctx, `
SELECT gate_id, COALESCE(claim_id,''), status, ts FROM gate_checks
WHERE project_path = ? ORDER BY id DESC LIMIT ?`, project, window)
	if err != nil {
		return nil, classify("read latest gates", err)
	}
	defer rows.Close()
	seen := map[[2]string]bool{}
	var out []record.GateState
	for rows.Next() {
		var g record.GateState
		var ts int64
		if err := rows.Scan(&g.GateID, &g.ClaimID, &g.Status, &ts); err != nil {
			return nil, classify("read latest gates", err)
		}
		k := [2]string{g.GateID, g.ClaimID}
		if seen[k] {
			continue
		}
		seen[k] = true
		g.At = time.UnixMilli(ts).UTC()
		out = append(out, g)
	}
	return out, classify("read latest gates", rows.Err())
}
