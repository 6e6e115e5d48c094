package claim

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/vibe-science/vibe/internal/verdict"
)

// CheckCircular is the check name of the D1 circular-logic verdict.
const CheckCircular = "D1-circular-logic"

// CycleVerdict judges the cycles found in a claim's support (SupportCycles),
// or in the whole graph when claimID is "": PASS when there are none; BLOCK
// when the claim is being promoted, because a claim cannot be promoted on
// evidence that rests on itself; WARN otherwise, so the loop is seen before
// anyone tries. Both non-passing results are HIGH severity. The evidence
// lists the claims and paths on the cycles and each cycle as a note
// ("C-001 → C-002 → C-001"); the decision hash covers the claim, the cycles
// and whether it was a promotion.
func CycleVerdict(claimID string, cycles [][]string, promoting bool) verdict.Verdict {
	// An empty cycle names nothing to break; dropping it keeps the reason
	// and the hash about real loops only.
	kept := make([][]string, 0, len(cycles))
	for _, c := range cycles {
		if len(c) > 0 {
			kept = append(kept, c)
		}
	}
	cycles = kept
	input := map[string]any{"claim": claimID, "cycles": cycles, "promoting": promoting}
	subject := claimID
	if subject == "" {
		subject = "the evidence graph"
	}
	if len(cycles) == 0 {
		v := verdict.New(CheckCircular, verdict.Pass, verdict.Low,
			fmt.Sprintf("%s: no cycle among the claims, evidence and reviews it rests on (D1 circular logic).", subject), input)
		if claimID != "" {
			v.Evidence.Claims = []string{claimID}
		}
		return v
	}
	first := renderCycle(cycles[0])
	count := "a cycle"
	if len(cycles) > 1 {
		count = fmt.Sprintf("%d cycles, the first", len(cycles))
	}
	var v verdict.Verdict
	switch {
	case promoting && claimID != "":
		v = verdict.New(CheckCircular, verdict.Block, verdict.High,
			fmt.Sprintf("%s cannot be promoted: its support is circular (D1 circular logic), %s %s.", claimID, count, first), input)
	case claimID != "":
		v = verdict.New(CheckCircular, verdict.Warn, verdict.High,
			fmt.Sprintf("%s rests on circular support (D1 circular logic): %s %s.", claimID, count, first), input)
	default:
		v = verdict.New(CheckCircular, verdict.Warn, verdict.High,
			fmt.Sprintf("The evidence graph holds circular support (D1 circular logic): %s %s.", count, first), input)
	}
	from, to := editableLink(cycles[0])
	v.Recommendation = fmt.Sprintf("Break each cycle by removing one of its links (for example %s → %s) or by resting one claim on independent evidence, then check again.", from, to)
	claims := map[string]bool{}
	paths := map[string]bool{}
	if claimID != "" {
		claims[claimID] = true
	}
	for _, c := range cycles {
		v.Evidence.Notes = append(v.Evidence.Notes, renderCycle(c))
		for _, id := range c {
			if isClaimID(id) {
				claims[id] = true
			} else {
				paths[id] = true
			}
		}
	}
	v.Evidence.Claims = sortedKeys(claims, compareIDs)
	v.Evidence.Paths = sortedKeys(paths, strings.Compare)
	v.Evidence.Numbers = []string{"cycles=" + strconv.Itoa(len(cycles))}
	return v
}

// editableLink picks the link of a cycle to name in the recommendation: the
// first one that leaves a claim, because the ledger is where a person can
// remove it (a review's citation of a claim cannot be taken back).
func editableLink(c []string) (string, string) {
	for i, id := range c {
		if isClaimID(id) {
			return id, c[(i+1)%len(c)]
		}
	}
	return c[0], c[1%len(c)]
}

// renderCycle writes a cycle as a closed walk: "A → B → A".
func renderCycle(c []string) string {
	if len(c) == 0 {
		return ""
	}
	return strings.Join(c, " → ") + " → " + c[0]
}

func sortedKeys(m map[string]bool, cmp func(a, b string) int) []string {
	if len(m) == 0 {
		return nil
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return cmp(keys[i], keys[j]) < 0 })
	return keys
}
