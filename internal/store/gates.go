package store

import (
	"context"
	"encoding/json"
	"strings"
	"time"

	"github.com/vibe-science/vibe/internal/fault"
	"github.com/vibe-science/vibe/internal/privacy"
	"github.com/vibe-science/vibe/internal/store/record"
	"github.com/vibe-science/vibe/internal/verdict"
)

// DefaultGateHistoryLimit is how many gate checks GateHistory returns when
// the caller names no limit.
const DefaultGateHistoryLimit = 50

// gateDetails is the JSON of the details column.
type gateDetails struct {
	Checks  []record.GateItem `json:"checks"`
	Numbers []string          `json:"numbers,omitempty"`
}

// worst is the result's status as its checks make it, so a Result whose
// Status field was not kept up to date is still recorded truthfully.
func worst(r record.GateResult) record.GateStatus {
	rank := map[record.GateStatus]int{record.GatePass: 0, record.GateWarn: 1, record.GateFail: 2}
	st := r.Status
	if _, ok := rank[st]; !ok {
		st = record.GatePass
	}
	for _, c := range r.Checks {
		if rank[c.Status] > rank[st] {
			st = c.Status
		}
	}
	return st
}

// GateDecisionHash is the decision hash of a gate check: SHA-256 over the
// canonical JSON of the gate, the status and the input {claim, checks,
// unmatched numbers, input files with their hashes}. The session, the
// time, the project and the paths the gate was handed are left out, so the
// same gate on the same files for the same claim hashes the same wherever
// the project is checked out.
func GateDecisionHash(c record.GateCheck) string {
	st := worst(c.Result)
	res := verdict.Pass
	switch st {
	case record.GateWarn:
		res = verdict.Warn
	case record.GateFail:
		res = verdict.Block
	}
	inputs := c.Inputs
	if inputs == nil {
		inputs = []record.GateInput{}
	}
	checks := c.Result.Checks
	if checks == nil {
		checks = []record.GateItem{}
	}
	input := map[string]any{"claim": c.ClaimID, "checks": checks, "numbers": c.Result.Numbers, "inputs": inputs}
	raw, err := verdict.Canonical(input)
	if err != nil {
		raw = nil
	}
	return verdict.Hash(c.Result.Gate, raw, res)
}

// AddGateCheck records one gate result in gate_checks: its status and the
// count of checks per status, the checks and unmatched numbers as details,
// the inputs with their hashes, and the decision hash. Every text is
// scrubbed of secrets first. It returns the row as stored.
func (t *Tx) AddGateCheck(ctx context.Context, c record.GateCheck) (record.GateRecord, error) {
	const op = "record gate check"
	if strings.TrimSpace(c.Result.Gate) == "" || strings.TrimSpace(c.Project) == "" {
		return record.GateRecord{}, fault.Errorf(fault.Invalid, op, "a gate check needs its gate and its project")
	}
	rec := record.GateRecord{Session: c.Session, Project: c.Project, GateID: c.Result.Gate, ClaimID: c.ClaimID,
		Status: worst(c.Result), DecisionHash: GateDecisionHash(c), At: c.At}
	for _, ch := range c.Result.Checks {
		switch ch.Status {
		case record.GatePass:
			rec.Passed++
		case record.GateWarn:
			rec.Warned++
		case record.GateFail:
			rec.Failed++
		}
		rec.Checks = append(rec.Checks, record.GateItem{Name: ch.Name, Status: ch.Status,
			Detail: privacy.Scrub(ch.Detail), Fix: privacy.Scrub(ch.Fix)})
	}
	for _, n := range c.Result.Numbers {
		rec.Numbers = append(rec.Numbers, privacy.Scrub(n))
	}
	for _, in := range c.Inputs {
		rec.Inputs = append(rec.Inputs, record.GateInput{Path: privacy.Scrub(in.Path), SHA256: in.SHA256})
	}
	checks := rec.Checks
	if checks == nil {
		checks = []record.GateItem{}
	}
	details, err := json.Marshal(gateDetails{Checks: checks, Numbers: rec.Numbers})
	if err != nil {
		return record.GateRecord{}, fault.E(fault.Internal, op, err)
	}
	inputs := rec.Inputs
	if inputs == nil {
		inputs = []record.GateInput{}
	}
	inputsJSON, err := json.Marshal(inputs)
	if err != nil {
		return record.GateRecord{}, fault.E(fault.Internal, op, err)
	}
	res, err := t.tx.ExecContext(ctx, `
INSERT INTO gate_checks (session_id, project_path, gate_id, claim_id, status, checks_passed, checks_warned,
    checks_failed, details, inputs, decision_hash, ts)
VALUES (NULLIF(?, ''), ?, ?, NULLIF(?, ''), ?, ?, ?, ?, ?, ?, ?, ?)`,
		c.Session, c.Project, rec.GateID, c.ClaimID, string(rec.Status), rec.Passed, rec.Warned, rec.Failed,
		string(details), string(inputsJSON), rec.DecisionHash, c.At.UnixMilli())
	if err != nil {
		return record.GateRecord{}, classify(op, err)
	}
	rec.ID, err = res.LastInsertId()
	if err != nil {
		return record.GateRecord{}, classify(op, err)
	}
	return rec, nil
}

// GateHistory lists recorded gate checks, newest first: of one project
// ("" for every project), one gate ("" for all) and one claim ("" for all),
// at most limit of them (DefaultGateHistoryLimit when limit <= 0).
func (s *Store) GateHistory(ctx context.Context, project, gateID, claimID string, limit int) ([]record.GateRecord, error) {
	const op = "read gate history"
	if limit <= 0 {
		limit = DefaultGateHistoryLimit
	}
	rows, err := s.db.QueryContext(ctx, `
SELECT id, COALESCE(session_id, ''), project_path, gate_id, COALESCE(claim_id, ''), status,
       checks_passed, checks_warned, checks_failed, COALESCE(details, ''), COALESCE(inputs, ''),
       COALESCE(decision_hash, ''), ts
FROM gate_checks
WHERE (?1 = '' OR project_path = ?1) AND (?2 = '' OR gate_id = ?2) AND (?3 = '' OR claim_id = ?3)
ORDER BY ts DESC, id DESC
LIMIT ?4`, project, gateID, claimID, limit)
	if err != nil {
		return nil, classify(op, err)
	}
	defer rows.Close()
	var out []record.GateRecord
	for rows.Next() {
		var r record.GateRecord
		var status, details, inputs string
		var ts int64
		if err := rows.Scan(&r.ID, &r.Session, &r.Project, &r.GateID, &r.ClaimID, &status, &r.Passed, &r.Warned,
			&r.Failed, &details, &inputs, &r.DecisionHash, &ts); err != nil {
			return nil, classify(op, err)
		}
		r.Status = record.GateStatus(status)
		r.At = time.UnixMilli(ts).UTC()
		if details != "" {
			var d gateDetails
			// Rows written by older code may hold other details; they are
			// listed without their checks rather than failing the history.
			if json.Unmarshal([]byte(details), &d) == nil {
				r.Checks, r.Numbers = d.Checks, d.Numbers
			}
		}
		if inputs != "" {
			var in []record.GateInput
			if json.Unmarshal([]byte(inputs), &in) == nil && len(in) > 0 {
				r.Inputs = in
			}
		}
		out = append(out, r)
	}
	return out, classify(op, rows.Err())
}
