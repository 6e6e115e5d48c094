package gate

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/vibe-science/vibe/internal/filememo"
)

// Finding ids are F, one to three digits and an optional lower-case letter
// (F1, F12, F6b), written as a word of their own. They are the single
// source of truth of the blueprint's M12: the progress log, the claim
// ledger and the findings files must name a finding the same way.
//
// An "F1" that is the F1 score is not an id: one followed by "score",
// "-score" or "measure", or by a comparison (F1 = 0.8, F1 > 0.7), or
// after macro, micro, weighted, mean, average, best, max or min, or glued
// to a hyphen or letter (macro-F1). Nor is a generation or a key (F1
// hybrids, the F2 population, the F1 key).
//
// In a findings file, an id after "formerly", "previously", "renamed
// from" or "was called" is an alias: "## F7: Mismatch effect (formerly
// F6b)" lets the log keep saying F6b.

// idHit is one finding id in a line.
type idHit struct {
	id    string
	alias bool
}

var notIDBefore = map[string]bool{"macro": true, "micro": true, "weighted": true, "mean": true,
	"average": true, "best": true, "max": true, "min": true}

// notIDAfter are the words that make F1, F2 a generation or a key, not a
// finding: F1 hybrids, the F2 population, the F1 key.
var notIDAfter = []string{"hybrid", "hybrids", "generation", "generations", "population", "populations",
	"progeny", "offspring", "cross", "crosses", "plants", "mice", "animals", "key"}

var aliasBefore = []string{"formerly", "previously", "renamed from", "was called"}

// findingIDs returns the finding ids of a line, in order.
func findingIDs(line string) []idHit {
	var out []idHit
	for i := 0; i < len(line); i++ {
		if line[i] != 'F' {
			continue
		}
		if i > 0 {
			if c := line[i-1]; isAlnum(c) || c == '-' || c == '_' || c == '.' || c >= 0x80 {
				continue
			}
		}
		j := i + 1
		for j < len(line) && isDigit(line[j]) && j-i <= 3 {
			j++
		}
		if j == i+1 || (j < len(line) && isDigit(line[j])) {
			continue
		}
		if j < len(line) && line[j] >= 'a' && line[j] <= 'z' {
			j++
		}
		if j < len(line) && (isAlnum(line[j]) || line[j] == '_') {
			continue
		}
		if j+1 < len(line) && line[j] == '.' && isDigit(line[j+1]) {
			continue // F1.2 is a number, not an id
		}
		rest := strings.ToLower(strings.TrimLeft(line[j:], " -"))
		if strings.HasPrefix(rest, "score") || strings.HasPrefix(rest, "measure") || nextWordIn(rest, notIDAfter) {
			continue
		}
		if comparison(strings.TrimLeft(line[j:], " ")) {
			continue
		}
		// Only the last words before the id matter: look at a short window.
		from := i - 24
		if from < 0 {
			from = 0
		}
		before := strings.ToLower(strings.TrimRight(line[from:i], " (*_[:"))
		if w := lastWord(before); notIDBefore[w] {
			continue
		}
		alias := false
		for _, a := range aliasBefore {
			if strings.HasSuffix(before, a) {
				alias = true
			}
		}
		out = append(out, idHit{id: line[i:j], alias: alias})
		i = j - 1
	}
	return out
}

// comparison reports whether s starts with a comparison sign: the F1
// before it is a score being compared.
func comparison(s string) bool {
	for _, op := range []string{"=", "<", ">", "≥", "≤", "≈"} {
		if strings.HasPrefix(s, op) {
			return true
		}
	}
	return false
}

func lastWord(s string) string {
	i := strings.LastIndexFunc(s, func(r rune) bool { return !isWordRune(r) })
	return s[i+1:]
}

// isFindingID reports whether s is exactly a finding id.
func isFindingID(s string) bool {
	h := findingIDs(s)
	return len(h) == 1 && h[0].id == s
}

// place is where a finding id appears: a file and a line.
type place struct {
	file string
	line int
}

func (p place) String() string { return fmt.Sprintf("%s line %d", p.file, p.line) }

func placeList(ps []place) string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.String()
	}
	return strings.Join(out, ", ")
}

// idPlaces maps a finding id to where it appears.
type idPlaces map[string][]place

func (p idPlaces) add(id string, at place) { p[id] = append(p[id], at) }

func (p idPlaces) ids() []string {
	out := make([]string, 0, len(p))
	for id := range p {
		out = append(out, id)
	}
	sort.Slice(out, func(i, j int) bool { return idLess(out[i], out[j]) })
	return out
}

// idLess orders F2 before F10 and F6 before F6b.
func idLess(a, b string) bool {
	na, sa := splitID(a)
	nb, sb := splitID(b)
	if na != nb {
		return na < nb
	}
	return sa < sb
}

func splitID(id string) (int, string) {
	n, i := 0, 1
	for i < len(id) && isDigit(id[i]) {
		n = n*10 + int(id[i]-'0')
		i++
	}
	return n, id[i:]
}

// mdIDs are the finding ids of one findings file: defined in a heading,
// named in the body, or declared as an alias.
type mdIDs struct {
	defs, refs, aliases idPlaces
}

func findingsIDs(name string, content []byte) mdIDs {
	m := mdIDs{defs: idPlaces{}, refs: idPlaces{}, aliases: idPlaces{}}
	for _, l := range markdownLines(content) {
		if !strings.Contains(l.Text, "F") {
			continue
		}
		hits := findingIDs(blankInlineCode(l.Text))
		if len(hits) == 0 {
			continue
		}
		_, _, isHeading := heading(l.Text)
		at := place{name, l.No}
		for _, h := range hits {
			switch {
			case h.alias:
				m.aliases.add(h.id, at)
			case isHeading:
				m.defs.add(h.id, at)
			default:
				m.refs.add(h.id, at)
			}
		}
	}
	return m
}

// jsonFindingIDs collects the keys and string values of a JSON document
// that are exactly a finding id.
func jsonFindingIDs(raw []byte) map[string]bool {
	out := map[string]bool{}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var doc any
	if dec.Decode(&doc) != nil {
		return out
	}
	var walk func(v any)
	walk = func(v any) {
		switch t := v.(type) {
		case map[string]any:
			for k, e := range t {
				if isFindingID(k) {
					out[k] = true
				}
				walk(e)
			}
		case []any:
			for _, e := range t {
				walk(e)
			}
		case string:
			if isFindingID(strings.TrimSpace(t)) {
				out[strings.TrimSpace(t)] = true
			}
		}
	}
	walk(doc)
	return out
}

// The ids of the progress log, the ledger and the other findings files and
// JSONs are kept per file until it changes: the resident worker judges
// every findings write, and a 2,000-entry log costs milliseconds to scan.
// The kept values are read, never changed.
var (
	idMemo     filememo.Memo[mdIDs]
	jsonIDMemo filememo.Memo[map[string]bool]
)

// maxSiblingSize: a progress log, ledger or findings file larger than
// this is not read for ids.
const maxSiblingSize = 16 << 20

func memoFindingsIDs(p string) (mdIDs, bool) {
	if info, err := os.Stat(p); err != nil || info.Size() > maxSiblingSize {
		return mdIDs{}, false
	}
	m, err := idMemo.Load(p, func(raw []byte) (mdIDs, error) { return findingsIDs(filepath.Base(p), raw), nil })
	return m, err == nil
}

// Project files the id check reads, found by walking up from the findings
// file to the folder that holds them (.vibe-science).
const (
	ProgressFile = "PROGRESS.md"
	LedgerFile   = "CLAIM-LEDGER.md"
)

// maxWalkUp is how many folders above a findings file the id check looks
// for the progress log and the ledger (04-results → RQ folder →
// .vibe-science is two).
const maxWalkUp = 4

// researchRoot finds the folder above a findings file that holds
// PROGRESS.md or CLAIM-LEDGER.md, or "". A folder's .vibe-science counts
// as the folder: findings written at the project's own results/ answer to
// the progress log and ledger vibe keeps in .vibe-science/.
func researchRoot(findingsPath string) string {
	dir := filepath.Dir(findingsPath)
	for i := 0; i <= maxWalkUp; i++ {
		for _, d := range []string{dir, filepath.Join(dir, ".vibe-science")} {
			for _, f := range []string{ProgressFile, LedgerFile} {
				if _, ok := existsFold(filepath.Join(d, f)); ok {
					return d
				}
			}
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			break
		}
		dir = parent
	}
	return ""
}

// projectFindings lists the findings files of a research root: in it, in
// each folder below it, and in each of those folders' 04-results.
func projectFindings(root string) []string {
	var out []string
	visit := func(dir string) {
		entries, err := os.ReadDir(dir)
		if err != nil {
			return
		}
		for _, e := range entries {
			low := strings.ToLower(e.Name())
			if !e.IsDir() && strings.HasSuffix(low, ".md") && strings.Contains(low, "findings") {
				out = append(out, filepath.Join(dir, e.Name()))
			}
		}
	}
	visit(root)
	entries, _ := os.ReadDir(root)
	for _, e := range entries {
		if e.IsDir() && !strings.HasPrefix(e.Name(), ".") {
			visit(filepath.Join(root, e.Name()))
			visit(filepath.Join(root, e.Name(), "04-results"))
		}
	}
	return out
}

// dq4FindingIDs checks that finding ids agree between the findings file
// (content), its source JSONs, the project's other findings files and
// their JSONs, the progress log and the claim ledger:
//   - when the sources name finding ids, every id a heading of the
//     findings file defines is in them, and every id they hold is named
//     in the findings file;
//   - every id named in the findings file's body, PROGRESS.md or
//     CLAIM-LEDGER.md is defined by some findings file (heading or alias)
//     or held by some findings JSON.
//
// A project whose findings files and JSONs name no finding id is not
// judged: an "F1" in the log is then as likely a score as a finding.
func dq4FindingIDs(res *Result, findingsPath string, content []byte, sources []source) {
	base := filepath.Base(findingsPath)
	cur := findingsIDs(base, content)
	srcIDs := map[string]bool{}
	var srcNames []string
	for _, s := range sources {
		for id := range jsonFindingIDs(s.raw) {
			srcIDs[id] = true
		}
		srcNames = append(srcNames, fileBase(s.name))
	}
	known := map[string]bool{}
	for id := range srcIDs {
		known[id] = true
	}
	for _, p := range []idPlaces{cur.defs, cur.aliases} {
		for id := range p {
			known[id] = true
		}
	}
	root := researchRoot(findingsPath)
	curAbs, _ := filepath.Abs(findingsPath)
	if root != "" {
		for _, other := range projectFindings(root) {
			if abs, _ := filepath.Abs(other); abs == curAbs {
				continue
			}
			o, ok := memoFindingsIDs(other)
			if !ok {
				continue
			}
			for _, p := range []idPlaces{o.defs, o.aliases} {
				for id := range p {
					known[id] = true
				}
			}
			if js, ok := existsFold(strings.TrimSuffix(other, filepath.Ext(other)) + ".json"); ok {
				ids, err := jsonIDMemo.Load(js, func(raw []byte) (map[string]bool, error) { return jsonFindingIDs(raw), nil })
				if err == nil {
					for id := range ids {
						known[id] = true
					}
				}
			}
		}
	}
	if len(known) == 0 {
		return
	}
	failed := 0
	srcLabel := strings.Join(srcNames, ", ")
	if len(srcIDs) > 0 {
		for _, id := range cur.defs.ids() {
			if !srcIDs[id] {
				failed++
				res.fail("finding_ids", fmt.Sprintf("finding %s is defined in %s (%s) but %s does not hold it", id, base, placeList(cur.defs[id]), srcLabel),
					fmt.Sprintf("have the script write %s to %s, or use the id the JSON gives this finding", id, srcLabel))
			}
		}
		named := map[string]bool{}
		for _, p := range []idPlaces{cur.defs, cur.refs, cur.aliases} {
			for id := range p {
				named[id] = true
			}
		}
		var missing []string
		for id := range srcIDs {
			if !named[id] {
				missing = append(missing, id)
			}
		}
		sort.Slice(missing, func(i, j int) bool { return idLess(missing[i], missing[j]) })
		for _, id := range missing {
			failed++
			res.fail("finding_ids", fmt.Sprintf("finding %s is in %s but %s never names it", id, srcLabel, base),
				fmt.Sprintf("report %s in %s (a `## %s: …` section), or remove it from the JSON if it is no longer a finding", id, base, id))
		}
	}
	unknown := idPlaces{}
	for id, places := range cur.refs {
		if !known[id] {
			unknown[id] = append(unknown[id], places...)
		}
	}
	read := []string{base}
	if root != "" {
		for _, f := range []string{ProgressFile, LedgerFile} {
			p, ok := existsFold(filepath.Join(root, f))
			if !ok {
				continue
			}
			m, ok := memoFindingsIDs(p)
			if !ok {
				continue
			}
			read = append(read, f)
			for _, ps := range []idPlaces{m.defs, m.refs, m.aliases} {
				for id, places := range ps {
					if !known[id] {
						unknown[id] = append(unknown[id], places...)
					}
				}
			}
		}
	}
	for _, id := range unknown.ids() {
		failed++
		places := unknown[id]
		sort.Slice(places, func(i, j int) bool {
			if places[i].file != places[j].file {
				return places[i].file < places[j].file
			}
			return places[i].line < places[j].line
		})
		more := ""
		if len(places) > 3 {
			more = fmt.Sprintf(" and %d more places", len(places)-3)
			places = places[:3]
		}
		res.fail("finding_ids", fmt.Sprintf("finding %s is named in %s%s, but no findings file or findings JSON defines it", id, placeList(places), more),
			fmt.Sprintf("use the id the findings give this finding; if it was renamed, write the new id with \"(formerly %s)\" in its FINDINGS.md heading", id))
	}
	if failed == 0 {
		res.pass("finding_ids", fmt.Sprintf("%d finding ids agree across %s and the project's findings", len(known), strings.Join(read, ", ")))
	}
}
