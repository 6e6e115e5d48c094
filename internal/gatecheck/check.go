package gatecheck

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/vibe-science/vibe/internal/gate"
)

// Options tune Check.
type Options struct {
	// Domain replaces the project's domain config; nil reads
	// .vibe-science/domain-config.json (the generic domain without one).
	Domain *gate.Domain
	// Now is the clock of the citation rule (a PubMed id above those
	// assigned by now, an arXiv month after now); zero skips the rule.
	Now time.Time
}

// Artifact names where the schema-validated gates' artifacts live inside a
// research-question folder, as skill/vibe/protocols/schema-validation.md
// documents them (a test holds the two together). Pattern uses
// path.Match syntax relative to the research question.
type Artifact struct {
	Gate    string
	Pattern string
}

// Artifacts lists the documented artifact names of the schema gates, in
// the registry's order.
var Artifacts = []Artifact{
	{"L0", "05-reviewer2/L0-*.json"},
	{"L2", "05-reviewer2/L2-*.json"},
	{"D1", "04-results/C-*-promotion.json"},
	{"D2", "D2-conclusion.json"},
	{"B0", "00-brainstorm/B0.json"},
	{"S4", "08-tree/S4-exit.json"},
	{"S5", "08-tree/S5-exit.json"},
	{"V0", "05-reviewer2/V0-*.json"},
	{"J0", "05-reviewer2/judge-reports/J-*.json"},
}

// Check judges a repository from its files alone, as CI must (see the
// package documentation for what it can and cannot judge). root is the
// project root; it must be a folder. The error is for a root that cannot be
// read; everything wrong inside the repository is a finding.
func Check(root string, opt Options) (Report, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return Report{}, fmt.Errorf("gate check: %w", err)
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	info, err := os.Stat(abs)
	if err != nil {
		return Report{}, fmt.Errorf("gate check: %w", err)
	}
	if !info.IsDir() {
		return Report{}, fmt.Errorf("gate check: %s is not a folder", root)
	}

	var rep Report
	var d gate.Domain
	if opt.Domain != nil {
		d = *opt.Domain
	} else {
		var it *Item
		d, it, err = loadDomain(abs)
		if err != nil {
			return Report{}, fmt.Errorf("gate check: %w", err)
		}
		if it != nil {
			rep.Items = append(rep.Items, *it)
		}
	}
	rep.Domain = d.Name

	r, err := scan(abs, d)
	if err != nil {
		return Report{}, err
	}
	r.origins = MirrorOrigins(abs)
	rep.Items = append(rep.Items, r.ledgerItems()...)
	rep.Items = append(rep.Items, r.directionItems()...)
	if !opt.Now.IsZero() {
		rep.Items = append(rep.Items, r.citationItems(opt.Now)...)
	}
	rep.Items = append(rep.Items, r.dataItems()...)
	rep.Items = append(rep.Items, r.artifactItems()...)
	rep.finish()
	return rep, nil
}

// dataItems runs the code gates on every file recognised as their input:
// DQ4 on findings files, DQ1 and DD0 on feature tables, DQ2 on metrics,
// DQ3 on calibration results, and DC0 on each research question's design.
func (r *repo) dataItems() []Item {
	var items []Item
	for _, f := range r.filesOf(gate.FileFindings, "") {
		items = append(items, r.gateItem("DQ4", f, gate.Inputs{Findings: f}, "fix the findings file so it can be read"))
	}
	for _, f := range r.filesOf(gate.FileFeatures, "") {
		items = append(items, r.scratch(r.gateItem("DQ1", f, gate.Inputs{Features: f}, "fix the table so it can be read"), f))
		if res, err := r.dd0(f); err != nil {
			items = append(items, r.errorItem("DD0", f, err,
				"write DATA-DICTIONARY.md beside the table (or in a folder above it) with a section for it (skill/vibe/formats/data-dictionary.md)"))
		} else {
			items = append(items, r.scratch(r.resultItem(res, f, ""), f))
		}
	}
	for _, f := range r.filesOf(gate.FileMetrics, "") {
		items = append(items, r.scratch(r.gateItem("DQ2", f, gate.Inputs{Metrics: f}, "fix the metrics file so it can be read"), f))
	}
	for _, f := range r.filesOf(gate.FileCalibration, "") {
		items = append(items, r.scratch(r.gateItem("DQ3", f, gate.Inputs{Calibration: f}, "fix the calibration file so it can be read"), f))
	}
	for _, rq := range r.rqs {
		if design, ok := designOf(rq); ok {
			items = append(items, r.designItems(rq, design)...)
		}
	}
	return items
}

func (r *repo) gateItem(id, file string, in gate.Inputs, fix string) Item {
	res, err := r.runGate(id, file, in)
	if err != nil {
		return r.errorItem(id, file, err, fix)
	}
	return r.resultItem(res, file, "")
}

// artifactItems validates every artifact found under its documented name in
// a research question against its gate's schema.
func (r *repo) artifactItems() []Item {
	var items []Item
	for _, rq := range r.rqs {
		for _, a := range Artifacts {
			for _, f := range r.artifactFiles(rq, a.Pattern) {
				items = append(items, r.gateItem(a.Gate, f, gate.Inputs{Artifact: f}, "fix the artifact so it can be read"))
			}
		}
	}
	return items
}

// artifactFiles lists the walked files of rq matching a documented pattern.
func (r *repo) artifactFiles(rq, pattern string) []string {
	var out []string
	prefix := rq + string(filepath.Separator)
	for _, f := range r.files {
		rest, ok := strings.CutPrefix(f, prefix)
		if !ok {
			continue
		}
		if ok, _ := filepath.Match(filepath.FromSlash(pattern), rest); ok {
			out = append(out, f)
		}
	}
	return out
}
