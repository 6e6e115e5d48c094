package gatecheck

import (
	"os"
	"path/filepath"
	"sort"

	"github.com/vibe-science/vibe/internal/claim"
	"github.com/vibe-science/vibe/internal/gate"
	"github.com/vibe-science/vibe/internal/project"
	"github.com/vibe-science/vibe/internal/research"
)

// ClaimInputs fills the inputs of gate id from claim c's evidence wherever
// in leaves a field empty, for `vibe gate run ID --claim C`. Evidence
// paths are relative to .vibe-science/ (else to root); the first evidence
// file of the right kind by the domain's file patterns is used:
//   - DQ4: a findings file, or the findings file beside an evidence JSON of
//     the same name (FINDINGS.json#auc stands for FINDINGS.md);
//   - DQ1: a features table; DQ2: a metrics file; DQ3: a calibration file;
//   - DD0: a features table, and a data dictionary from the evidence or, with
//     none, the one gate.FindDictionary finds for the table;
//   - DC0: the DESIGN.md of the first research question the evidence names;
//   - schema gates: an evidence file with the artifact's documented name
//     (for D1, <claim>-promotion.json), else the first such file in the
//     claim's research question.
//
// Fields given by the caller are never replaced.
func ClaimInputs(root string, c claim.Claim, id string, in gate.Inputs, d gate.Domain) gate.Inputs {
	abs, err := filepath.Abs(root)
	if err != nil {
		return in
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	r := &repo{root: abs, vibe: filepath.Join(abs, project.Dir), d: d, cache: map[string]cached{}, kinds: map[string]research.Artifact{}}
	r.rqs = listRQs(abs, r.vibe)
	ev := r.evidenceOf(c)
	first := func(kind string) string {
		if fs := r.evidenceOfKind(ev, kind); len(fs) > 0 {
			return fs[0]
		}
		return ""
	}
	fill := func(field *string, v string) {
		if *field == "" {
			*field = v
		}
	}
	g, _ := gate.Lookup(id)
	switch g.ID {
	case "DQ4":
		fill(&in.Findings, first(gate.FileFindings))
	case "DQ1":
		fill(&in.Features, first(gate.FileFeatures))
	case "DQ2":
		fill(&in.Metrics, first(gate.FileMetrics))
	case "DQ3":
		fill(&in.Calibration, first(gate.FileCalibration))
	case "DD0":
		fill(&in.Features, first(gate.FileFeatures))
		fill(&in.Dictionary, first(gate.FileDictionary))
		if in.Dictionary == "" && in.Features != "" {
			if p, err := gate.FindDictionary(in.Features, abs, d); err == nil {
				in.Dictionary = p
			}
		}
	case "DC0":
		for _, rq := range ev.rqs {
			if p, ok := designOf(rq); ok {
				fill(&in.Design, p)
				break
			}
		}
	default:
		if g.Kind == gate.KindSchema && in.Artifact == "" {
			files, _ := r.gateArtifactsOnDisk(c, ev, g.ID)
			if len(files) > 0 {
				in.Artifact = files[0]
			}
		}
	}
	return in
}

// gateArtifactsOnDisk lists the artifacts of schema gate id for a claim:
// its evidence files with the documented name (for D1, the claim's own
// <claim>-promotion.json), else the files with that name in the claim's
// research questions. pattern is "" for a gate without artifacts.
func (r *repo) gateArtifactsOnDisk(c claim.Claim, ev claimEvidence, id string) (files []string, pattern string) {
	for _, a := range Artifacts {
		if a.Gate != id {
			continue
		}
		pattern = a.Pattern
		if id == "D1" {
			// A promotion record belongs to one claim.
			pattern = "04-results/" + c.ID + "-promotion.json"
		}
		for _, f := range ev.files {
			if ok, _ := filepath.Match(filepath.Base(filepath.FromSlash(pattern)), filepath.Base(f)); ok {
				files = append(files, f)
			}
		}
		if len(files) == 0 {
			for _, rq := range ev.rqs {
				m, _ := filepath.Glob(filepath.Join(rq, filepath.FromSlash(pattern)))
				files = append(files, m...)
			}
		}
		return files, pattern
	}
	return nil, ""
}

// listRQs lists the research-question folders directly under root and
// .vibe-science/, sorted.
func listRQs(root, vibe string) []string {
	var out []string
	for _, dir := range []string{root, vibe} {
		entries, err := os.ReadDir(dir)
		if err != nil {
			continue
		}
		for _, e := range entries {
			if e.IsDir() && rqName.MatchString(e.Name()) {
				out = append(out, filepath.Join(dir, e.Name()))
			}
		}
	}
	sort.Strings(out)
	return out
}

// PromotionRecord names claim c's D1 record (project-relative, forward
// slashes): the file `vibe gate run D1 --claim` validates when there is one
// (exists), else where to write it, 04-results/<claim>-promotion.json in
// the first research question its evidence names, or in the project's
// first research question, or at .vibe-science/04-results/ with none.
func PromotionRecord(root string, c claim.Claim) (rel string, exists bool) {
	abs, err := filepath.Abs(root)
	if err != nil {
		abs = root
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	r := &repo{root: abs, vibe: filepath.Join(abs, project.Dir), cache: map[string]cached{}}
	r.rqs = listRQs(abs, r.vibe)
	ev := r.evidenceOf(c)
	if files, _ := r.gateArtifactsOnDisk(c, ev, claim.PromotionGate); len(files) > 0 {
		return r.rel(files[0]), true
	}
	dir := r.vibe
	switch {
	case len(ev.rqs) > 0:
		dir = ev.rqs[0]
	case len(r.rqs) > 0:
		dir = r.rqs[0]
	}
	return r.rel(filepath.Join(dir, "04-results", c.ID+"-promotion.json")), false
}
