package store

import (
	"context"
	"encoding/json"
	"strings"
	"time"

	"github.com/vibe-science/vibe/internal/fault"
	"github.com/vibe-science/vibe/internal/gate"
	"github.com/vibe-science/vibe/internal/privacy"
	"github.com/vibe-science/vibe/internal/verdict"
)

// DefaultGateHistoryLimit is how many gate checks GateHistory returns when
// the caller names no limit.
const DefaultGateHistoryLimit = 50

// GateInput is one file a gate read: its path (project-relative when it is
// inside the project) and the SHA-256 of its content, empty when the file
// could not be read, so a later reader can tell whether the file changed
// since the gate judged it.
type GateInput struct {
	Path   string `json:"path"`
	SHA256 string `json:"sha256,omitempty"`
}

// GateCheck is one computed gate result to record.
type GateCheck struct {
	// Session is Claude's session id; "" records NULL (a run from the CLI
	// outside a session). A session must already have its row.
	Session string
	Project string
	// ClaimID is the claim the gate was run for; "" records NULL.
	ClaimID string
	Result  gate.Result
	Inputs  []GateInput
	At      time.Time
}

// GateRecord is one recorded gate check.
type GateRecord struct {
	ID      int64
	Session string
	Project string
	GateID  string
	ClaimID string
	Status  gate.Status
	// Passed, Warned and Failed count the result's checks by status.
	Passed, Warned, Failed int
	Checks                 []gate.Check
	Numbers                []string
	Inputs                 []GateInput
	DecisionHash           string
	At                     time.Time
}

// gateDetails is the JSON of the details column.
type gateDetails struct {
	Checks  []gate.Check `json:"checks"`
	Numbers []string     `json:"numbers,omitempty"`
}

// worst is the result's status as its checks make it, so a Result whose
// Status field was not kept up to date is still recorded truthfully.
func worst(r gate.Result) gate.Status {
	rank := map[gate.Status]int{gate.StatusPass: 0, gate.StatusWarn: 1, gate.StatusFail: 2}
	st := r.Status
	if _, ok := rank[st]; !ok {
		st = gate.StatusPass
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
func GateDecisionHash(c GateCheck) string {
	st := worst(c.Result)
	res := verdict.Pass
	switch st {
	case gate.StatusWarn:
		res = verdict.Warn
	case gate.StatusFail:
		res = verdict.Block
	}
	inputs := c.Inputs
	if inputs == nil {
		inputs = []GateInput{}
	}
	checks := c.Result.Checks
	if checks == nil {
		checks = []gate.Check{}
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
func (t *Tx) AddGateCheck(ctx context.Context, c GateCheck) (GateRecord, error) {
	const op = "record gate check"
	if strings.TrimSpace(c.Result.Gate) == "" || strings.TrimSpace(c.Project) == "" {
		return GateRecord{}, fault.Errorf(fault.Invalid, op, "a gate check needs its gate and its project")
	}
	rec := GateRecord{Session: c.Session, Project: c.Project, GateID: c.Result.Gate, ClaimID: c.ClaimID,
		Status: worst(c.Result), DecisionHash: GateDecisionHash(c), At: c.At}
	for _, ch := range c.Result.Checks {
		switch ch.Status {
		case gate.StatusPass:
			rec.Passed++
		case gate.StatusWarn:
			rec.Warned++
		case gate.StatusFail:
			rec.Failed++
		}
		rec.Checks = append(rec.Checks, gate.Check{Name: ch.Name, Status: ch.Status,
			Detail: privacy.Scrub(ch.Detail), Fix: privacy.Scrub(ch.Fix)})
	}
	for _, n := range c.Result.Numbers {
		rec.Numbers = append(rec.Numbers, privacy.Scrub(n))
	}
	for _, in := range c.Inputs {
		rec.Inputs = append(rec.Inputs, GateInput{Path: privacy.Scrub(in.Path), SHA256: in.SHA256})
	}
	checks := rec.Checks
	if checks == nil {
		checks = []gate.Check{}
	}
	details, err := json.Marshal(gateDetails{Checks: checks, Numbers: rec.Numbers})
	if err != nil {
		return GateRecord{}, fault.E(fault.Internal, op, err)
	}
	inputs := rec.Inputs
	if inputs == nil {
		inputs = []GateInput{}
	}
	inputsJSON, err := json.Marshal(inputs)
	if err != nil {
		return GateRecord{}, fault.E(fault.Internal, op, err)
	}
	res, err := t.tx.ExecContext(ctx, `
INSERT INTO gate_checks (session_id, project_path, gate_id, claim_id, status, checks_passed, checks_warned,
    checks_failed, details, inputs, decision_hash, ts)
VALUES (NULLIF(?, ''), ?, ?, NULLIF(?, ''), ?, ?, ?, ?, ?, ?, ?, ?)`,
		c.Session, c.Project, rec.GateID, c.ClaimID, string(rec.Status), rec.Passed, rec.Warned, rec.Failed,
		string(details), string(inputsJSON), rec.DecisionHash, c.At.UnixMilli())
	if err != nil {
		return GateRecord{}, classify(op, err)
	}
	rec.ID, err = res.LastInsertId()
	if err != nil {
		return GateRecord{}, classify(op, err)
	}
	return rec, nil
}

// GateHistory lists recorded gate checks, newest first: of one project
// ("" for every project), one gate ("" for all) and one claim ("" for all),
// at most limit of them (DefaultGateHistoryLimit when limit <= 0).
func (s *Store) GateHistory(ctx context.Context, project, gateID, claimID string, limit int) ([]GateRecord, error) {
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
	var out []GateRecord
	for rows.Next() {
		var r GateRecord
		var status, details, inputs string
		var ts int64
		if err := rows.Scan(&r.ID, &r.Session, &r.Project, &r.GateID, &r.ClaimID, &status, &r.Passed, &r.Warned,
			&r.Failed, &details, &inputs, &r.DecisionHash, &ts); err != nil {
			return nil, classify(op, err)
		}
		r.Status = gate.Status(status)
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
			var in []GateInput
			if json.Unmarshal([]byte(inputs), &in) == nil && len(in) > 0 {
				r.Inputs = in
			}
		}
		out = append(out, r)
	}
	return out, classify(op, rows.Err())
}
