package gatecheck

import (
	"bytes"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/vibe-science/vibe/internal/gate"
)

// The deviation rule, one for the hooks (artifact.Judge) and for `vibe gate
// check`: a departure from a research question's design puts no research
// record at risk until a claim or a finding rests on it. So a data file
// the design does not plan (a scratch table, a sorted copy, a sample) is a
// DC0 WARN, and a FAIL once a claim's evidence or a findings file names
// it; the design's own problems (it does not parse, a deviation lacks its
// why) are warnings; and a failure of a data gate (DQ1, DD0, DQ2, DQ3) on
// such a file warns until the record rests on it.

// ScratchGate reports whether a gate's failure on a file the design does
// not plan waits until the record rests on the file: the data gates (DQ1,
// DD0, DQ2, DQ3) do; a findings file is the record itself.
func ScratchGate(id string) bool { return id == "DQ1" || id == "DD0" || id == "DQ2" || id == "DQ3" }

// DesignPlan is the DC0 result on the design file itself: its failures
// but the executed-files check (each unplanned file is judged on its own,
// UnplannedCheck) become warnings.
func DesignPlan(res gate.Result) gate.Result {
	plan := gate.Result{Gate: "DC0", Status: gate.StatusPass, Inputs: res.Inputs}
	for _, c := range res.Checks {
		switch {
		case c.Name == "executed" && c.Status == gate.StatusFail:
			continue
		case c.Status == gate.StatusFail:
			c.Status = gate.StatusWarn // a design that does not parse risks no record
			plan.Status = gate.StatusWarn
		}
		plan.Checks = append(plan.Checks, c)
	}
	return plan
}

// UnplannedCheck is DC0's check of one data file u (relative to the
// research question) that design does not plan: a WARN, or a FAIL when
// rests (claim ids, findings files) is not empty. fix says how to record
// the deviation.
func UnplannedCheck(u, design, fix string, rests []string) gate.Check {
	if len(rests) == 0 {
		return gate.Check{Name: "executed", Status: gate.StatusWarn,
			Detail: fmt.Sprintf("%s is not in the plan of %s (no planned step reads or writes it, no deviation names it)", u, filepath.Base(design)),
			Fix:    fix + " if it is kept; a scratch file can stay unrecorded until a finding or claim uses it"}
	}
	verb := "rest"
	if len(rests) == 1 {
		verb = "rests"
	}
	return gate.Check{Name: "executed", Status: gate.StatusFail,
		Detail: fmt.Sprintf("%s %s on %s, which %s does not plan and no deviation names", strings.Join(rests, " and "), verb, u, filepath.Base(design)),
		Fix:    fix + ", or let the finding or claim rest on planned data"}
}

// DeviationFix is how to record u (relative to the research question) as
// deviation DEV-n of the design, dated date (YYYY-MM-DD).
func DeviationFix(designRel string, n int, date, u string) string {
	return fmt.Sprintf("record it in %s under `## Deviations` as `### DEV-%03d: %s` with `- what:`, `- why:` and `- files: %s`",
		designRel, n, date, u)
}

// Scratch is res, a failing table gate on rel (relative to the research
// question), when design does not plan rel and nothing rests on it: its
// failures become warnings and a "scratch" check says why.
func Scratch(res gate.Result, rel, design string) gate.Result {
	res.Checks = append([]gate.Check(nil), res.Checks...)
	for k := range res.Checks {
		if res.Checks[k].Status == gate.StatusFail {
			res.Checks[k].Status = gate.StatusWarn
		}
	}
	res.Checks = append(res.Checks, gate.Check{Name: "scratch", Status: gate.StatusWarn,
		Detail: fmt.Sprintf("%s is not in the plan of %s and no claim or finding rests on it, so this warns; it blocks once one does", rel, filepath.Base(design))})
	res.Status = gate.StatusWarn
	return res
}

// FindingsNaming lists, of the findings files given (project-relative
// name → content), those that name the data file rel (relative to its
// research question) by its path or its file name, sorted.
func FindingsNaming(rel string, findings map[string][]byte) []string {
	var out []string
	base := []byte(filepath.Base(rel))
	for name, content := range findings {
		if bytes.Contains(content, []byte(rel)) || bytes.Contains(content, base) {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}
