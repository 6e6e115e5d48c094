package gatecheck

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/vibe-science/vibe/internal/gate"
)

// designItems is DC0 on a research question with a design, as the hooks
// judge it (deviation.go): one item on the design, whose own problems
// warn, and one per data file of the research question the design does
// not plan, a WARN until a claim or a findings file rests on it.
func (r *repo) designItems(rq, design string) []Item {
	executed, err := gate.DataFiles(rq)
	if err != nil {
		return []Item{r.errorItem("DC0", design, err, "fix the design file and the data folders so they can be read")}
	}
	deviations := fileIn(rq, "DEVIATIONS.md")
	res, err := gate.DC0(design, deviations, executed)
	if err != nil {
		return []Item{r.errorItem("DC0", design, err, "fix the design file and the data folders so they can be read")}
	}
	items := []Item{r.resultItem(DesignPlan(res), design, "")}
	unplanned, err := gate.Unplanned(design, deviations, executed)
	if err != nil || len(unplanned) == 0 {
		return items
	}
	n := 0
	fmt.Sscanf(gate.NextDeviation(design, deviations), "DEV-%d", &n)
	for _, u := range unplanned {
		abs := filepath.Join(rq, filepath.FromSlash(u))
		info, err := os.Stat(abs)
		if err != nil {
			continue
		}
		fix := DeviationFix(r.rel(design), n, info.ModTime().UTC().Format("2006-01-02"), u)
		n++
		c := UnplannedCheck(u, design, fix, r.rests(rq, abs, u))
		items = append(items, r.resultItem(gate.Result{Gate: "DC0", Status: c.Status, Inputs: []string{design}, Checks: []gate.Check{c}}, abs, ""))
	}
	return items
}

// scratch is it, an item of a data gate on file, as a warning when the
// file's research question has a design that does not plan the file and
// no claim or findings file rests on it (Scratch).
func (r *repo) scratch(it Item, file string) Item {
	failed := false
	for _, f := range it.Findings {
		failed = failed || f.Level == Error
	}
	if !ScratchGate(it.Gate) || !failed {
		return it
	}
	rq := r.rqOf(file)
	if rq == "" {
		return it
	}
	design, ok := designOf(rq)
	if !ok {
		return it
	}
	rel := filepath.ToSlash(strings.TrimPrefix(file, rq+string(filepath.Separator)))
	if un, err := gate.Unplanned(design, fileIn(rq, "DEVIATIONS.md"), []string{rel}); err != nil || len(un) == 0 {
		return it
	}
	if len(r.rests(rq, file, rel)) > 0 {
		return it
	}
	for i := range it.Findings {
		it.Findings[i].Level = Warning
	}
	d := Scratch(gate.Result{}, rel, design).Checks[0]
	it.Findings = append(it.Findings, Finding{Gate: it.Gate, Level: Warning, File: it.File, Message: d.Detail})
	return it
}

// rests lists what rests on a data file of research question rq (abs, and
// rel to rq): the claims whose evidence cites it, the findings files of rq
// (or of no research question) that name it.
func (r *repo) rests(rq, abs, rel string) []string {
	out := append([]string(nil), ClaimsCiting(r.root, []string{abs})[abs]...)
	findings := map[string][]byte{}
	for _, f := range r.filesOf(gate.FileFindings, "") {
		if q := r.rqOf(f); q != "" && q != rq {
			continue
		}
		if b, ok := readSmall(f); ok {
			findings[r.rel(f)] = b
		}
	}
	return append(out, FindingsNaming(rel, findings)...)
}

// fileIn is the file of rq named name in any case, "" when there is none.
func fileIn(rq, name string) string {
	entries, err := os.ReadDir(rq)
	if err != nil {
		return ""
	}
	for _, e := range entries {
		if !e.IsDir() && strings.EqualFold(e.Name(), name) {
			return filepath.Join(rq, e.Name())
		}
	}
	return ""
}
