package citation

import (
	"fmt"
	"strings"

	"github.com/vibe-science/vibe/internal/verdict"
)

// Check is the check name of the citation audit's verdicts.
const CheckCitation = "citation"

// Says is what a finding says of its id, with where it is ("line 7", or
// "line 12 of CLAIM-LEDGER.md"): why vibe cannot vouch for it.
func (f Finding) Says(where string) string {
	id := Display(f.ID)
	switch {
	case f.Status == StatusInvalid && f.Problem.Form:
		return fmt.Sprintf("%s (%s) cannot exist: %s", id, where, f.Problem.Reason)
	case f.Status == StatusInvalid:
		return fmt.Sprintf("%s (%s) cannot exist: %s, and no recorded literature search retrieved it", id, where, f.Problem.Reason)
	}
	return fmt.Sprintf("%s (%s) was retrieved by no literature search vibe recorded in this project", id, where)
}

// fix says how to make the findings vouched for.
func fix(fs []Finding) string {
	var fetch []string
	invalid := false
	for _, f := range fs {
		if f.Status == StatusInvalid {
			invalid = true
			continue
		}
		if u := URL(f.ID); u != "" && len(fetch) < 3 {
			fetch = append(fetch, u)
		}
	}
	var parts []string
	if len(fetch) > 0 {
		parts = append(parts, "look each paper up so vibe records it (WebFetch "+strings.Join(fetch, ", ")+
			", or a literature search whose results carry the id)",
			"if the researcher holds a paper, they add it with `vibe citations add ID --title \"...\"`")
	}
	if invalid {
		parts = append(parts, "correct an id that cannot exist from the paper itself, or remove the citation")
	}
	return strings.Join(parts, "; ")
}

// WrittenVerdict warns that the file rel, just written, cites ids the
// record does not vouch for (fs, not empty). Nothing is blocked: a WARN
// when written, a BLOCK only when a claim is promoted on them.
func WrittenVerdict(rel string, fs []Finding) verdict.Verdict {
	says := make([]string, len(fs))
	ids := make([]string, len(fs))
	for i, f := range fs {
		says[i] = f.Says(fmt.Sprintf("line %d", f.Line))
		ids[i] = f.ID
	}
	noun := "a paper id"
	if len(fs) > 1 {
		noun = fmt.Sprintf("%d paper ids", len(fs))
	}
	v := verdict.New(CheckCitation, verdict.Warn, verdict.Med,
		fmt.Sprintf("%s cites %s vibe cannot vouch for: %s. A model can invent a plausible reference; only a paper that was retrieved is on the record.",
			rel, noun, strings.Join(says, "; ")),
		map[string]any{"path": rel, "ids": ids})
	v.Recommendation = strings.ToUpper(fix(fs)[:1]) + fix(fs)[1:] + ". A claim promoted on them is blocked until then; `vibe citations` lists every citation."
	v.Evidence.Paths = []string{rel}
	return v
}

// PromotionVerdict blocks the promotion of claim to status while its
// entry in the ledger rel cites ids the record does not vouch for (fs, not
// empty).
func PromotionVerdict(claim, status, rel string, fs []Finding) verdict.Verdict {
	says := make([]string, len(fs))
	ids := make([]string, len(fs))
	for i, f := range fs {
		says[i] = f.Says(fmt.Sprintf("line %d of %s", f.Line, rel))
		ids[i] = f.ID
	}
	v := verdict.New(CheckCitation, verdict.Block, verdict.High,
		fmt.Sprintf("%s cannot become %s while it cites papers vibe cannot vouch for: %s. A claim rests on what was read, not on a reference that may have been invented.",
			claim, status, strings.Join(says, "; ")),
		map[string]any{"claim": claim, "status": status, "ids": ids})
	f := fix(fs)
	v.Recommendation = strings.ToUpper(f[:1]) + f[1:] + fmt.Sprintf("; then promote %s again.", claim)
	v.Evidence.Claims = []string{claim}
	v.Evidence.Paths = []string{rel}
	return v
}
