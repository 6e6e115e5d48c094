package record

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"strings"
	"time"
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
// is: it is the researcher's own statement. A paper counts as one only
// with an identifier to look it up by (see TrustPaperNoID).
var SourceTrust = map[string]float64{SourceCode: 1.0, SourcePerson: 1.0, SourcePaper: 0.85, SourceBlog: 0.5, SourceModel: 0.35}

// TrustPaperNoID is the default trust of a memory of source type paper
// whose text and ref name no DOI, PMID, PMCID, arXiv id or ISBN
// (recall.Sourced reads them): a paper nobody can look up is below one
// that can be checked, and above a blog.
const TrustPaperNoID = 0.6

// TrustScale is SourceTrust as a list for people to read, most trusted
// first: "code 1.00, person 1.00, paper 0.85, blog 0.50, model 0.35".
func TrustScale() string {
	var b strings.Builder
	for i, st := range []string{SourceCode, SourcePerson, SourcePaper, SourceBlog, SourceModel} {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(st + " " + strconv.FormatFloat(SourceTrust[st], 'f', 2, 64))
	}
	return b.String()
}

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

// TrustOf is the trust a new memory is stored with: its own, else its
// source type's. Recall sets TrustPaperNoID on a paper without an
// identifier (recall.Sourced) before it stores one.
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

// TrustLabel names the source a trust is the default of, for a line that
// says who disputes a memory: "model-sourced", "blog-sourced",
// "paper-sourced", "unidentified-paper", and for a trust no source type
// starts at (or code's and a person's 1, which no disputing memory has),
// "trust 0.42".
func TrustLabel(t float64) string {
	switch t {
	case SourceTrust[SourceModel]:
		return "model-sourced"
	case SourceTrust[SourceBlog]:
		return "blog-sourced"
	case SourceTrust[SourcePaper]:
		return "paper-sourced"
	case TrustPaperNoID:
		return "unidentified-paper"
	}
	return "trust " + strconv.FormatFloat(t, 'f', 2, 64)
}

// Outranks reports whether memory a stands over memory b when the two
// contradict: the more trusted one, and of two equally trusted the newer
// (created later, by the millisecond the store keeps, then the larger id).
// The store's superseded_by (Tx.LinkConflict) decides by the same rule.
func Outranks(aTrust float64, aAt time.Time, aID int64, bTrust float64, bAt time.Time, bID int64) bool {
	if aTrust != bTrust {
		return aTrust > bTrust
	}
	x, y := aAt.UnixMilli(), bAt.UnixMilli()
	return x > y || (x == y && aID > bID)
}

// Trust is a helper for setting NewMemory.Trust.
func Trust(t float64) *float64 { return &t }

// ContentHash identifies a memory's text within a project, so the same text
// is stored once.
func ContentHash(kind, text string) string {
	sum := sha256.Sum256([]byte(kind + "\x00" + strings.TrimSpace(text)))
	return hex.EncodeToString(sum[:16])
}
