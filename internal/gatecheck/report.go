package gatecheck

import (
	"sort"

	"github.com/vibe-science/vibe/internal/claim"
	"github.com/vibe-science/vibe/internal/gate"
)

// Level is how much a finding matters: an error fails the check (exit 1),
// a warning is reported and lets it pass.
type Level string

// The two levels; the names are SARIF's and GitHub's.
const (
	Error   Level = "error"
	Warning Level = "warning"
)

// Finding is one problem: the rule it breaks, where it is (a path relative
// to the checked root, with forward slashes, and a 1-based line when one is
// known), what is wrong and how to fix it.
type Finding struct {
	Gate    string `json:"gate"`
	Level   Level  `json:"level"`
	File    string `json:"file,omitempty"`
	Line    int    `json:"line,omitempty"`
	Message string `json:"message"`
	Fix     string `json:"fix,omitempty"`
}

// Item is one thing the check judged: a gate on a file, or a rule on a
// claim of a ledger (Subject is then the claim id). Its status is the worst
// of its findings: FAIL with an error, WARN with only warnings, else PASS.
type Item struct {
	Gate     string      `json:"gate"`
	File     string      `json:"file,omitempty"`
	Subject  string      `json:"subject,omitempty"`
	Status   gate.Status `json:"status"`
	Findings []Finding   `json:"findings,omitempty"`
}

// Report is the outcome of Check: every item judged, grouped and ordered
// by rule, then by file, subject and line.
type Report struct {
	// Domain is the domain config the thresholds came from.
	Domain string `json:"domain"`
	Items  []Item `json:"items"`
}

// Findings lists every finding of the report in item order.
func (r Report) Findings() []Finding {
	out := []Finding{}
	for _, it := range r.Items {
		out = append(out, it.Findings...)
	}
	return out
}

// Failed reports whether any finding is an error: `vibe gate check` then
// exits 1.
func (r Report) Failed() bool {
	for _, it := range r.Items {
		if it.Status == gate.StatusFail {
			return true
		}
	}
	return false
}

// Counts returns how many items passed, warned and failed, and how many
// error and warning findings there are.
func (r Report) Counts() (pass, warn, fail, errors, warnings int) {
	for _, it := range r.Items {
		switch it.Status {
		case gate.StatusFail:
			fail++
		case gate.StatusWarn:
			warn++
		default:
			pass++
		}
		for _, f := range it.Findings {
			if f.Level == Error {
				errors++
			} else {
				warnings++
			}
		}
	}
	return
}

// Rule is one check `vibe gate check` can report: a gate of the registry,
// or one of the ledger rules CI judges from files.
type Rule struct {
	ID      string `json:"id"`
	Name    string `json:"name"`
	Purpose string `json:"purpose"`
}

// Rule ids that are not gates of the registry.
const (
	RuleDomainConfig = "domain-config"
	RuleLedger       = "claim-ledger"
	RulePromotion    = "claim-promotion"
	RuleReview       = "LAW4-review"
	RuleCircular     = claim.CheckCircular
)

// ruleOrder is the order of the groups in every output: the project's
// configuration, the ledger rules, literature, the data gates, then the
// schema-validated artifacts in the registry's order.
var ruleOrder = []string{
	RuleDomainConfig, RuleLedger, RulePromotion, RuleReview, RuleCircular,
	"L-1", RuleCitation, "DQ4", "DQ1", "DD0", "DQ2", "DQ3", "DC0",
	"B0", "L0", "L2", "D1", "D2", "S4", "S5", "V0", "J0",
}

var ledgerRules = map[string]Rule{
	RuleDomainConfig: {RuleDomainConfig, "Domain config",
		"The project's .vibe-science/domain-config.json names a shipped domain, uses only known keys and keeps every threshold in range, so no gate silently runs on a default."},
	RuleLedger: {RuleLedger, "Claim ledger consistency",
		"Every entry of CLAIM-LEDGER.md parses, so its claims are tracked, and every claim killed for a reason that may hide a good question names its salvaged seed."},
	RulePromotion: {RulePromotion, "Promoted claims have their gates",
		"A PROMOTED or VERIFIED claim has, in the repository, the artifacts of every gate its tier requires and of D1, each of those gates passes when recomputed now, and a Reviewer 2 report cites it."},
	RuleReview: {RuleReview, "Claims are reviewed (LAW 4)",
		"A PROVISIONAL claim is cited by at least one Reviewer 2 report under 05-reviewer2/ (a promoted one, by claim-promotion)."},
	RuleCitation: {RuleCitation, "Cited papers can exist",
		"Every DOI, PMID, PMCID, arXiv id and ISBN that findings, the claim ledger, reviews and directions cite can exist: a valid check digit and month, no test or placeholder DOI prefix, no PubMed id above those assigned. Which papers a session retrieved only the hooks know."},
	RuleCircular: {RuleCircular, "No circular support (D1)",
		"No claim rests, through its evidence, dependencies and the reviews that cite it, on itself."},
}

// Rules lists every rule `vibe gate check` can report, in output order,
// with the registry's name and purpose for gates.
func Rules() []Rule {
	out := make([]Rule, 0, len(ruleOrder))
	for _, id := range ruleOrder {
		out = append(out, ruleFor(id))
	}
	return out
}

func ruleFor(id string) Rule {
	if r, ok := ledgerRules[id]; ok {
		return r
	}
	if g, ok := gate.Lookup(id); ok {
		return Rule{ID: g.ID, Name: g.Name, Purpose: g.Purpose}
	}
	return Rule{ID: id, Name: id, Purpose: id}
}

func ruleRank(id string) int {
	for i, r := range ruleOrder {
		if r == id {
			return i
		}
	}
	return len(ruleOrder)
}

// finish sets each item's status from its findings and orders items and
// findings, so every output is deterministic.
func (r *Report) finish() {
	for i := range r.Items {
		it := &r.Items[i]
		it.Status = gate.StatusPass
		for _, f := range it.Findings {
			if f.Level == Error {
				it.Status = gate.StatusFail
			} else if it.Status != gate.StatusFail {
				it.Status = gate.StatusWarn
			}
		}
		sort.SliceStable(it.Findings, func(a, b int) bool {
			fa, fb := it.Findings[a], it.Findings[b]
			if fa.File != fb.File {
				return fa.File < fb.File
			}
			return fa.Line < fb.Line
		})
	}
	sort.SliceStable(r.Items, func(a, b int) bool {
		ia, ib := r.Items[a], r.Items[b]
		if ra, rb := ruleRank(ia.Gate), ruleRank(ib.Gate); ra != rb {
			return ra < rb
		}
		if ia.File != ib.File {
			return ia.File < ib.File
		}
		return ia.Subject < ib.Subject
	})
}
