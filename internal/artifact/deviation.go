package artifact

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/vibe-science/vibe/internal/gate"
	"github.com/vibe-science/vibe/internal/gatecheck"
	"github.com/vibe-science/vibe/internal/research"
)

// dc0 judges a research question's design against the data files that
// appeared (executed), when it has a design file, by one rule: a departure
// from the design puts no research record at risk until a claim or a
// finding rests on it. So:
//
//   - the design's own problems (it does not parse, a deviation lacks its
//     why) are one WARN on the design, a Deviation;
//   - each new data file that no planned step reads or writes and no
//     deviation names (a scratch table, a sorted copy, a sample) is a WARN
//     of its own, a Deviation, that names the file and the deviation entry
//     that records it (the design's next DEV id, the file's date);
//   - such a file that a claim's evidence or a findings file of the
//     research question names is a FAIL: the record rests on something the
//     design does not account for;
//   - with resting set (a findings file changed), every unplanned data file
//     of the research question a findings file now names is that FAIL too.
//
// What passes is recorded as one PASS on the design.
func (j *judge) dc0(rq string, executed []string, resting bool) {
	design, ok := findFold(rq, "DESIGN.md", "DESIGN.json")
	if !ok || !j.once("DC0", design) {
		return
	}
	deviations, _ := findFold(rq, "DEVIATIONS.md")
	toRQ := func(abs string) string {
		return filepath.ToSlash(strings.TrimPrefix(abs, rq+string(filepath.Separator)))
	}
	rels := make([]string, len(executed))
	for i, e := range executed {
		rels[i] = toRQ(e)
	}
	sort.Strings(rels)
	res, err := gate.DC0(design, deviations, rels)
	if err != nil {
		j.undecided("DC0", design, fmt.Sprintf("DC0 could not read %s: %v", relTo(j.root, design), err), "check the design file can be read")
		return
	}
	plan := gatecheck.DesignPlan(res)
	unplanned, err := gate.Unplanned(design, deviations, rels)
	if err != nil {
		unplanned = nil
	}
	j.add(design, plan, false)
	j.out[len(j.out)-1].Deviation = plan.Status == gate.StatusWarn
	candidates := map[string]bool{} // RQ-relative: judged even when nothing rests on them
	for _, u := range unplanned {
		candidates[u] = true
	}
	if resting {
		// Every data file of the research question, for the findings that
		// may now rest on one the design does not plan.
		if all, err := gate.DataFiles(rq); err == nil {
			if more, err := gate.Unplanned(design, deviations, all); err == nil {
				for _, m := range more {
					if !candidates[m] {
						unplanned = append(unplanned, m)
					}
				}
			}
		}
	}
	if len(unplanned) == 0 {
		return
	}
	abs := make([]string, len(unplanned))
	for i, u := range unplanned {
		abs[i] = filepath.Join(rq, filepath.FromSlash(u))
	}
	citing := gatecheck.ClaimsCiting(j.root, abs)
	next := gate.NextDeviation(design, deviations)
	n := 0
	fmt.Sscanf(next, "DEV-%d", &n)
	designRel := relTo(j.root, design)
	for i, u := range unplanned {
		rests := append(append([]string(nil), citing[abs[i]]...), j.findingsNaming(rq, u)...)
		if len(rests) == 0 && !candidates[u] {
			continue
		}
		info, err := os.Stat(abs[i])
		if err != nil {
			continue // gone again
		}
		date := info.ModTime().UTC() // the deviation's date is the file's
		c := gatecheck.UnplannedCheck(u, design, gatecheck.DeviationFix(designRel, n, date.Format("2006-01-02"), u), rests)
		n++
		prev := j.trigger
		if candidates[u] {
			j.trigger = abs[i] // the file itself appeared in this call
		}
		j.add(abs[i], gate.Result{Gate: "DC0", Status: c.Status, Inputs: []string{design}, Checks: []gate.Check{c}}, false)
		j.trigger = prev
		j.out[len(j.out)-1].Deviation = c.Status == gate.StatusWarn
	}
}

// findingsNaming lists the findings files of research question rq (and of
// no research question) that name the data file rel (relative to rq) by
// its path or its file name.
func (j *judge) findingsNaming(rq, rel string) []string {
	findings := map[string][]byte{}
	for _, k := range j.known {
		if k.kind != gate.FileFindings || (k.rq != "" && k.rq != rq) {
			continue
		}
		if content, ok := j.text(k.abs); ok {
			findings[relTo(j.root, k.abs)] = content
		}
	}
	return gatecheck.FindingsNaming(rel, findings)
}

// text reads a small text file once per judge.
func (j *judge) text(abs string) ([]byte, bool) {
	if b, ok := j.texts[abs]; ok {
		return b, b != nil
	}
	if j.texts == nil {
		j.texts = map[string][]byte{}
	}
	info, err := os.Stat(abs)
	if err != nil || info.Size() > MaxGateBytes {
		j.texts[abs] = nil
		return nil, false
	}
	b, err := os.ReadFile(abs)
	if err != nil {
		b = nil
	}
	j.texts[abs] = b
	return b, b != nil
}

// scratch turns the failures of the data gates (gatecheck.ScratchGate)
// on a file its research question's design does not plan, and that no
// claim's evidence and no findings file names, into a deviation: a scratch
// table, a sorted copy or a sample is exploration, and a leak or a
// constant column in it is worth a warning, not a block, until the record
// rests on it (the design plans it, a claim cites it, a finding names it).
// A research question without a design plans nothing to tell them apart,
// so its failures stay failures.
// rqOf gives the research question of a judged file.
func (j *judge) scratch(rqOf map[string]string) {
	type plan struct{ design, deviations string }
	plans := map[string]*plan{}
	for i := range j.out {
		jd := &j.out[i]
		if !gatecheck.ScratchGate(jd.Result.Gate) || jd.Result.Status != gate.StatusFail || jd.Undecided {
			continue
		}
		rq := rqOf[jd.Abs]
		if rq == "" || len(jd.Claims) > 0 {
			continue
		}
		p, ok := plans[rq]
		if !ok {
			p = &plan{}
			if design, found := findFold(rq, "DESIGN.md", "DESIGN.json"); found {
				p.design = design
				p.deviations, _ = findFold(rq, "DEVIATIONS.md")
			}
			plans[rq] = p
		}
		if p.design == "" {
			continue
		}
		rel := filepath.ToSlash(strings.TrimPrefix(jd.Abs, rq+string(filepath.Separator)))
		if un, err := gate.Unplanned(p.design, p.deviations, []string{rel}); err != nil || len(un) == 0 {
			continue // planned: the findings will rest on it
		}
		if len(j.findingsNaming(rq, rel)) > 0 {
			continue
		}
		res := gatecheck.Scratch(jd.Result, rel, p.design)
		jd.Result, jd.Deviation = res, true
	}
}

// Resting judges what a change of the claim ledger may have done: in each
// research question of the project with a design, a data file the design
// does not plan that a claim's evidence now names is a DC0 FAIL (a claim
// rests on a deviation nobody recorded). Only those failures come back.
func Resting(root string) []Judgement {
	j := judge{root: root, done: map[string]bool{}}
	for _, parent := range []string{root, filepath.Join(root, ".vibe-science")} {
		for _, rq := range rqFolders(parent) {
			j.dc0(rq, nil, true)
		}
	}
	if len(j.out) == 0 {
		return nil
	}
	paths := make([]string, len(j.out))
	for i, x := range j.out {
		paths[i] = x.Abs
	}
	citing := gatecheck.ClaimsCiting(root, paths)
	var out []Judgement
	for _, x := range j.out {
		if x.Result.Status == gate.StatusFail && x.Result.Gate == "DC0" && x.Abs != "" && len(citing[x.Abs]) > 0 {
			x.Claims = citing[x.Abs]
			out = append(out, x)
		}
	}
	return out
}

// rqFolders lists the research-question folders directly in parent.
func rqFolders(parent string) []string {
	entries, err := os.ReadDir(parent)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		if e.IsDir() && research.IsRQ(e.Name()) {
			out = append(out, filepath.Join(parent, e.Name()))
		}
	}
	return out
}
