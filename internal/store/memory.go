package store

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"time"

	"github.com/vibe-science/vibe/internal/privacy"
)

// Memory kinds recall knows about.
const (
	KindNarrative   = "narrative"
	KindDecision    = "decision"
	KindGateFailure = "gate_failure"
	KindClaimEvent  = "claim_event"
	KindSeed        = "seed"
	KindNote        = "note"
	KindAction      = "action"
	// KindFailure is a tool call that failed, with its error: what was
	// tried and what went wrong.
	KindFailure = "failure"
	// KindPattern is a regularity seen more than once ("batch 3 always
	// fails QC"); KindInsight an understanding reached; KindHypothesis a
	// conjecture not yet tested; KindOpenThread a question or task left
	// open, to pick up later.
	KindPattern    = "pattern"
	KindInsight    = "insight"
	KindHypothesis = "hypothesis"
	KindOpenThread = "open_thread"
)

// NewMemory is a text to remember.
type NewMemory struct {
	ProjectPath string
	SessionID   string
	Kind        string
	Text        string
	Ref         string
	Source      string // hook, cli, import
	// SourceType is where the knowledge comes from (SourceCode …); empty
	// takes the default of Source (see DefaultSourceType).
	SourceType string
	// Trust in 0..1; nil takes the trust of the source type (SourceTrust),
	// and 0 is kept as 0.
	Trust *float64
	At    time.Time
	// Checked says the caller has linked the memory with those it
	// contradicts (recall.AddMemory, an import); otherwise the worker does
	// it later (recall.CheckPending), so a hook never pays for the check.
	Checked bool `json:",omitempty"`
}

// Source types, from most to least trusted by default: what code computed
// or observed (a gate result, a tool call, a claim event parsed from the
// ledger) and a person's note, a paper, a web page or blog, model output.
const (
	SourceCode   = "code"
	SourcePaper  = "paper"
	SourcePerson = "person"
	SourceBlog   = "blog"
	SourceModel  = "model"
)

// SourceTrust is the default trust of each source type (the Sylk seed's
// ordering: code > paper > blog > model output). A person's note — what the
// researcher records with `vibe memory add` or imports — is trusted as code
// is: it is the researcher's own statement.
var SourceTrust = map[string]float64{SourceCode: 1.0, SourcePerson: 1.0, SourcePaper: 0.85, SourceBlog: 0.5, SourceModel: 0.35}

// DefaultSourceType is the source type of a memory whose source type is
// not given: what the hooks record is code's observation, `vibe memory add`
// is a person's note, an import is a person's note too.
func DefaultSourceType(source string) string {
	switch source {
	case "hook", "bench":
		return SourceCode
	}
	return SourcePerson
}

// TrustOf is the trust a new memory is stored with.
func TrustOf(m NewMemory) float64 {
	if m.Trust != nil {
		return *m.Trust
	}
	st := m.SourceType
	if st == "" {
		st = DefaultSourceType(m.Source)
	}
	if t, ok := SourceTrust[st]; ok {
		return t
	}
	return SourceTrust[SourcePerson]
}

// Trust is a helper for setting NewMemory.Trust.
func Trust(t float64) *float64 { return &t }

// ContentHash identifies a memory's text within a project, so the same text
// is stored once.
func ContentHash(kind, text string) string {
	sum := sha256.Sum256([]byte(kind + "\x00" + strings.TrimSpace(text)))
	return hex.EncodeToString(sum[:16])
}

// AddMemory stores a memory (FTS5 is kept by triggers) and queues it for
// embedding. A duplicate text in the same project returns the existing id
// and queues nothing.
func (t *Tx) AddMemory(ctx context.Context, m NewMemory) (id int64, added bool, err error) {
	if m.Source == "" {
		m.Source = "hook"
	}
	trust := TrustOf(m)
	m.Text, m.Ref = privacy.Scrub(m.Text), privacy.Scrub(m.Ref)
	hash := ContentHash(m.Kind, m.Text)
	ms := m.At.UnixMilli()
	res, err := t.tx.ExecContext(ctx, `
INSERT INTO memories (project_path, session_id, kind, text, ref, source, trust, content_hash, created_at, unchecked)
VALUES (?, NULLIF(?, ''), ?, ?, NULLIF(?, ''), ?, ?, ?, ?, ?)
ON CONFLICT(project_path, content_hash) DO NOTHING`,
		m.ProjectPath, m.SessionID, m.Kind, m.Text, m.Ref, m.Source, trust, hash, ms, !m.Checked)
	if err != nil {
		return 0, false, classify("add memory", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		err := t.tx.QueryRowContext(ctx, "SELECT id FROM memories WHERE project_path = ? AND content_hash = ?",
			m.ProjectPath, hash).Scan(&id)
		return id, false, classify("find memory", err)
	}
	id, err = res.LastInsertId()
	if err != nil {
		return 0, false, classify("add memory", err)
	}
	if _, err := t.tx.ExecContext(ctx, `
INSERT INTO embed_queue (memory_id, created_at, updated_at) VALUES (?, ?, ?)`, id, ms, ms); err != nil {
		return 0, false, classify("queue embedding", err)
	}
	return id, true, nil
}
