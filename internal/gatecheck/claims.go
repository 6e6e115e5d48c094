package gatecheck

import (
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/vibe-science/vibe/internal/claim"
	"github.com/vibe-science/vibe/internal/gate"
	"github.com/vibe-science/vibe/internal/lineage"
	"github.com/vibe-science/vibe/internal/verdict"
)

// LedgerName is the claim ledger's file name.
const LedgerName = "CLAIM-LEDGER.md"

// reviewDir is the folder segment that holds Reviewer 2's reports.
const reviewDir = "05-reviewer2"

// FindLedgers returns the claim ledgers of a project: .vibe-science/
// CLAIM-LEDGER.md and CLAIM-LEDGER.md at the root (the name compared
// ignoring case), those that exist.
func FindLedgers(root string) []string {
	var out []string
	for _, dir := range []string{filepath.Join(root, ".vibe-science"), root} {
		if p, ok := siblingFold(dir, LedgerName); ok {
			out = append(out, p)
		}
	}
	return out
}

// FindClaim looks a claim up in the project's ledgers; it returns the claim
// and the ledger it is in, or false.
func FindClaim(root, id string) (claim.Claim, string, bool) {
	for _, p := range FindLedgers(root) {
		raw, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		l, _ := claim.ParseLedger(raw)
		if c, ok := l.Find(id); ok {
			return c, p, true
		}
	}
	return claim.Claim{}, "", false
}

type ledgerClaim struct {
	c      claim.Claim
	ledger string // absolute
}

// ledgerItems judges the ledgers: each parses (claim-ledger), each PROMOTED
// or VERIFIED claim has its tier's gates (claim-promotion), each
// PROVISIONAL or PROMOTED claim is cited by a review (LAW4-review), and no
// support is circular.
func (r *repo) ledgerItems() []Item {
	ledgers := FindLedgers(r.root)
	if len(ledgers) == 0 {
		return nil
	}
	var items []Item
	var all []ledgerClaim
	var merged claim.Ledger
	for _, p := range ledgers {
		rel := r.rel(p)
		it := Item{Gate: RuleLedger, File: rel}
		raw, err := os.ReadFile(p)
		if err != nil {
			items = append(items, r.errorItem(RuleLedger, p, err, "make the ledger readable"))
			continue
		}
		l, errs := claim.ParseLedger(raw)
		for _, e := range errs {
			f := Finding{Gate: RuleLedger, Level: Error, File: rel, Message: e.Error(),
				Fix: "follow the format in skill/vibe/formats/claim-ledger.md; an entry vibe cannot read is not tracked"}
			var pe *claim.ParseError
			if errors.As(e, &pe) {
				f.Line = pe.Line
				f.Message = pe.Msg
				if pe.Claim != "" {
					f.Message = pe.Claim + ": " + pe.Msg
				}
			}
			it.Findings = append(it.Findings, f)
		}
		for _, c := range l.Claims {
			if claim.MissingSalvage(c) {
				it.Findings = append(it.Findings, Finding{Gate: RuleLedger, Level: Error, File: rel, Line: c.Line,
					Message: fmt.Sprintf("%s is KILLED for %s but names no salvaged-seed (Salvagente rule)", c.ID, c.KillReason),
					Fix:     "add `- salvaged-seed: SEED-YYYYMMDD-NNN` naming the seed in SERENDIPITY.md that keeps its question"})
			}
			if c.Status != claim.StatusKilled {
				for _, e := range c.Evidence {
					if _, isClaim := claim.NormaliseID(e); isClaim {
						continue
					}
					if _, ok := r.resolveEvidence(e); !ok {
						it.Findings = append(it.Findings, Finding{Gate: RuleLedger, Level: Warning, File: rel, Line: c.Line,
							Message: fmt.Sprintf("%s cites evidence %s, which is not in the repository", c.ID, e),
							Fix:     "commit the file, or correct the path (relative to .vibe-science/)"})
					}
				}
			}
			all = append(all, ledgerClaim{c, p})
			merged.Claims = append(merged.Claims, c)
		}
		items = append(items, it)
	}

	reviews := r.reviews()
	cited := map[string]bool{}
	for _, content := range reviews {
		for _, id := range claim.CitedClaims(content) {
			cited[id] = true
		}
	}
	graph := claim.BuildGraph(merged, reviews)
	circular := Item{Gate: RuleCircular, File: r.rel(ledgers[0])}
	for _, lc := range all {
		c, rel := lc.c, r.rel(lc.ledger)
		if c.Status == claim.StatusProvisional {
			// A promoted claim's review is part of its promotion
			// (claim-promotion, claim.PromotionShortfall).
			it := Item{Gate: RuleReview, File: rel, Subject: c.ID}
			if !cited[c.ID] {
				it.Findings = append(it.Findings, Finding{Gate: RuleReview, Level: Error, File: rel, Line: c.Line,
					Message: fmt.Sprintf("%s is %s and no review under %s/ cites it (LAW 4)", c.ID, c.Status, reviewDir),
					Fix:     "have reviewer2 review it (`/vibe:review`) and write the report under the research question's 05-reviewer2/, or mark it KILLED or DISPUTED with a reason"})
			}
			items = append(items, it)
		}
		if c.Status == claim.StatusPromoted || c.Status == claim.StatusVerified {
			items = append(items, r.promotionItem(c, rel, cited[c.ID]))
			if cycles := graph.SupportCycles(c.ID); len(cycles) > 0 {
				circular.Findings = append(circular.Findings, verdictFinding(RuleCircular, rel, c.Line,
					claim.CycleVerdict(c.ID, cycles, true)))
			}
		}
	}
	if len(circular.Findings) == 0 {
		if v := claim.CycleVerdict("", graph.Cycles(), false); v.Result != verdict.Pass {
			circular.Findings = append(circular.Findings, verdictFinding(RuleCircular, circular.File, 0, v))
		}
	}
	items = append(items, circular)
	return items
}

func verdictFinding(rule, file string, line int, v verdict.Verdict) Finding {
	lvl := Warning
	if v.Result.Blocks() {
		lvl = Error
	}
	return Finding{Gate: rule, Level: lvl, File: file, Line: line, Message: strings.TrimSuffix(v.Reason, "."),
		Fix: strings.TrimSuffix(v.Recommendation, ".")}
}

// reviews reads every file under a 05-reviewer2/ folder, keyed by its path
// relative to .vibe-science/ when it is under it (the form evidence paths
// take), else relative to the root.
func (r *repo) reviews() map[string][]byte {
	out := map[string][]byte{}
	for _, f := range r.files {
		rel := r.rel(f)
		if !strings.Contains("/"+rel, "/"+reviewDir+"/") {
			continue
		}
		b, ok := readSmall(f)
		if !ok {
			continue
		}
		key := rel
		if k, ok := strings.CutPrefix(rel, ".vibe-science/"); ok {
			key = k
		}
		out[key] = b
	}
	return out
}

// resolveEvidence finds the file an evidence entry names: relative to
// .vibe-science/ (the ledger's convention), else to the root; a #fragment
// (a key inside a JSON file) is dropped.
func (r *repo) resolveEvidence(e string) (string, bool) {
	if i := strings.IndexByte(e, '#'); i >= 0 {
		e = e[:i]
	}
	e = strings.TrimSpace(e)
	if e == "" {
		return "", false
	}
	if filepath.IsAbs(e) {
		return e, existsFile(e)
	}
	for _, base := range []string{r.vibe, r.root} {
		p := filepath.Join(base, filepath.FromSlash(e))
		if existsFile(p) {
			return p, true
		}
	}
	return "", false
}

// claimEvidence is what a claim's evidence points at: the files that exist
// and the research questions named (by the files' folders, or by the first
// path segment of an evidence path that does not exist yet).
type claimEvidence struct {
	files []string
	rqs   []string
}

func (r *repo) evidenceOf(c claim.Claim) claimEvidence {
	var ev claimEvidence
	addRQ := func(rq string) {
		for _, x := range ev.rqs {
			if x == rq {
				return
			}
		}
		ev.rqs = append(ev.rqs, rq)
	}
	for _, e := range c.Evidence {
		if _, isClaim := claim.NormaliseID(e); isClaim {
			continue
		}
		if p, ok := r.resolveEvidence(e); ok {
			ev.files = append(ev.files, p)
			if rq := r.rqOf(p); rq != "" {
				addRQ(rq)
			}
			continue
		}
		seg := strings.SplitN(path.Clean(strings.TrimPrefix(filepath.ToSlash(e), ".vibe-science/")), "/", 2)[0]
		for _, rq := range r.rqs {
			if filepath.Base(rq) == seg {
				addRQ(rq)
			}
		}
	}
	return ev
}

// kindFiles lists the claim's evidence files of a kind (see
// evidenceOfKind); with none, every file of the kind in the claim's
// research questions counts.
func (r *repo) kindFiles(ev claimEvidence, kind string) []string {
	if out := r.evidenceOfKind(ev, kind); len(out) > 0 {
		return out
	}
	var out []string
	for _, rq := range ev.rqs {
		out = append(out, r.filesOf(kind, rq)...)
	}
	return out
}

// evidenceOfKind lists the claim's evidence files of a kind; an evidence
// JSON beside a findings file of the same name (FINDINGS.json#auc) stands
// for that findings file.
func (r *repo) evidenceOfKind(ev claimEvidence, kind string) []string {
	var out []string
	seen := map[string]bool{}
	add := func(p string) {
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	for _, f := range ev.files {
		if r.kind(f).Kind == kind {
			add(f)
			continue
		}
		if kind == gate.FileFindings && strings.EqualFold(filepath.Ext(f), ".json") {
			name := strings.TrimSuffix(filepath.Base(f), filepath.Ext(f)) + ".md"
			if md, ok := siblingFold(filepath.Dir(f), name); ok && r.kind(md).Kind == gate.FileFindings {
				add(md)
			}
		}
	}
	return out
}

// gateKinds maps the code gates to the kind of file they read.
var gateKinds = map[string]string{
	"DQ4": gate.FileFindings, "DQ1": gate.FileFeatures, "DD0": gate.FileFeatures,
	"DQ2": gate.FileMetrics, "DQ3": gate.FileCalibration,
}

var kindNouns = map[string]string{
	gate.FileFindings: "findings file", gate.FileFeatures: "features table",
	gate.FileMetrics: "metrics file", gate.FileCalibration: "calibration file",
}

// promotionItem judges a PROMOTED or VERIFIED claim by what the hooks ask
// of a promotion (claim.PromotionGates): each gate its tier requires and D1
// must have their artifacts in the repository and pass when recomputed
// now, and a Reviewer 2 report must cite it (reviewed).
func (r *repo) promotionItem(c claim.Claim, rel string, reviewed bool) Item {
	it := Item{Gate: RulePromotion, File: rel, Subject: c.ID}
	required := claim.PromotionGates(c, r.d.Promotion)
	ev := r.evidenceOf(c)
	intro := fmt.Sprintf("%s is %s (tier %d requires %s and a review)", c.ID, c.Status, claim.EffectiveTier(c), strings.Join(required, ", "))
	add := func(lvl Level, msg, fix string) {
		it.Findings = append(it.Findings, Finding{Gate: RulePromotion, Level: lvl, File: rel, Line: c.Line,
			Message: intro + " but " + msg, Fix: fix})
	}
	demote := ", or set the claim back to PROVISIONAL"
	for _, id := range required {
		files, noun, run := r.gateArtifacts(c, ev, id)
		if noun == "" {
			add(Warning, fmt.Sprintf("%s cannot be confirmed from files: it is a prompt-level gate, or judged from session records", id),
				fmt.Sprintf("make sure %s passed as skill/vibe/gates.md describes; CI cannot see it", id))
			continue
		}
		if len(files) == 0 {
			fix := fmt.Sprintf("add the %s to the claim's evidence and pass `vibe gate run %s --claim %s`%s", noun, id, c.ID, demote)
			if id == claim.PromotionGate {
				record, _ := PromotionRecord(r.root, c)
				fix = fmt.Sprintf("write %s (confounder harness ROBUST, 3+ falsification attempts, a counter-evidence search; its shape: `vibe help schemas claim-promotion`) and pass `vibe gate run D1 --claim %s`%s",
					record, c.ID, demote)
			}
			if id == "DC0" {
				fix = fmt.Sprintf("write DESIGN.md in the research question the claim's evidence names (skill/vibe/formats/design-file.md) and pass `vibe gate run DC0 --claim %s`%s", c.ID, demote)
			}
			add(Error, fmt.Sprintf("no %s for %s is among its evidence or in the research questions its evidence names", noun, id), fix)
			continue
		}
		for _, f := range files {
			res, err := run(f)
			switch {
			case err != nil:
				add(Error, fmt.Sprintf("%s cannot be computed on %s: %s", id, r.rel(f), r.clean(err.Error())),
					fmt.Sprintf("fix what stops %s, then run `vibe gate run %s --claim %s`%s", id, id, c.ID, demote))
			case res.Status == gate.StatusFail:
				add(Error, fmt.Sprintf("%s fails now on %s (see its %s findings)", id, r.rel(f), id),
					fmt.Sprintf("fix what %s reports and run `vibe gate run %s --claim %s`%s", id, id, c.ID, demote))
			}
		}
	}
	for _, u := range r.unbacked(c, r.origins) {
		add(Error, fmt.Sprintf("it rests on %s, and a promotion rests only on results a computation wrote", u),
			fmt.Sprintf("re-run the script that computes %s through Bash (vibe records how it was made) and commit %s%s", u.Rel, lineage.MirrorFile, demote))
	}
	if !reviewed {
		add(Error, fmt.Sprintf("no review under %s/ cites it", reviewDir),
			fmt.Sprintf("have reviewer2 review it (`/vibe:review %s`) and write the report under the research question's 05-reviewer2/%s", c.ID, demote))
	}
	return it
}

// gateArtifacts returns the files a claim's gate is judged on, the noun for
// them, and how to compute the gate on one; noun is "" when no file can
// confirm the gate (prompt gates, L-1).
func (r *repo) gateArtifacts(c claim.Claim, ev claimEvidence, id string) ([]string, string, func(string) (gate.Result, error)) {
	if kind, ok := gateKinds[id]; ok {
		run := func(f string) (gate.Result, error) { return r.codeGate(id, f) }
		return r.kindFiles(ev, kind), kindNouns[kind], run
	}
	if id == "DC0" {
		var designs []string
		for _, rq := range ev.rqs {
			if d, ok := designOf(rq); ok {
				designs = append(designs, d)
			}
		}
		return designs, "design file (DESIGN.md)", r.dc0
	}
	g, ok := gate.Lookup(id)
	if !ok || g.Kind != gate.KindSchema {
		return nil, "", nil
	}
	files, pattern := r.gateArtifactsOnDisk(c, ev, g.ID)
	if pattern == "" {
		return nil, "", nil
	}
	run := func(f string) (gate.Result, error) { return r.runGate(g.ID, f, gate.Inputs{Artifact: f}) }
	return files, pattern + " artifact", run
}

// codeGate computes a file-reading code gate the way the sweep does, so the
// two share the cache.
func (r *repo) codeGate(id, f string) (gate.Result, error) {
	switch id {
	case "DQ4":
		return r.runGate(id, f, gate.Inputs{Findings: f})
	case "DQ1":
		return r.runGate(id, f, gate.Inputs{Features: f})
	case "DD0":
		return r.dd0(f)
	case "DQ2":
		return r.runGate(id, f, gate.Inputs{Metrics: f})
	case "DQ3":
		return r.runGate(id, f, gate.Inputs{Calibration: f})
	}
	return gate.Result{}, fmt.Errorf("%s is not a file gate", id)
}
