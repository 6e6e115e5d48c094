package gate

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
)

// SourceNotFoundError says that a findings file has no source JSON, and
// where the lookup looked.
type SourceNotFoundError struct {
	Findings string
	// Declared lists the declared sources that do not exist.
	Declared []string
	Tried    []string
}

func (e *SourceNotFoundError) Error() string {
	if len(e.Declared) > 0 {
		return fmt.Sprintf("no source JSON for %s: the declared source %s does not exist", e.Findings, strings.Join(e.Declared, ", "))
	}
	return fmt.Sprintf("no source JSON for %s (looked for %s)", e.Findings, strings.Join(e.Tried, ", "))
}

// FindSourceJSON finds the JSON a findings file reports from: the first
// path declared in the file by a <!-- source: PATH --> comment (relative to
// the findings file's folder), else the file with the findings file's name
// and the extension .json beside it (FINDINGS.md → FINDINGS.json; the name
// is compared ignoring case). A findings file that does not exist yet is
// looked up by its path alone. SourcesFor returns every declared source.
func FindSourceJSON(findingsPath string) (string, error) {
	content, err := os.ReadFile(findingsPath)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("find source json: %w", err)
	}
	srcs, err := SourcesFor(findingsPath, content)
	if err != nil {
		return "", err
	}
	return srcs[0], nil
}

// SourcesFor returns the source JSON files of a findings file whose
// content is given (at PreToolUse, the proposed content): every path the
// content declares with <!-- source: PATH --> (each must exist), or,
// when it declares none, the default of FindSourceJSON. The error is a
// *SourceNotFoundError when a source is missing.
func SourcesFor(findingsPath string, content []byte) ([]string, error) {
	dir := filepath.Dir(findingsPath)
	declared := extractNumbers(content).sources
	if len(declared) > 0 {
		var out, missing []string
		for _, d := range declared {
			p := d
			if !filepath.IsAbs(p) {
				p = filepath.Join(dir, filepath.FromSlash(d))
			}
			if st, err := os.Stat(p); err == nil && !st.IsDir() {
				out = append(out, p)
			} else {
				missing = append(missing, p)
			}
		}
		if len(missing) > 0 {
			return nil, &SourceNotFoundError{Findings: findingsPath, Declared: missing, Tried: missing}
		}
		return out, nil
	}
	name := filepath.Base(findingsPath)
	want := filepath.Join(dir, strings.TrimSuffix(name, filepath.Ext(name))+".json")
	if p, ok := existsFold(want); ok {
		return []string{p}, nil
	}
	return nil, &SourceNotFoundError{Findings: findingsPath, Tried: []string{want}}
}

// FindingsFor returns the findings file a source JSON belongs to by
// default: the Markdown file of the same name beside it (FINDINGS.json →
// FINDINGS.md, ignoring case), when it exists. After a script rewrites
// the JSON, running DQ4File on that file says at once whether the prose
// went stale (the numbers and headline checks).
func FindingsFor(sourceJSON string) (string, bool) {
	return existsFold(strings.TrimSuffix(sourceJSON, filepath.Ext(sourceJSON)) + ".md")
}

// existsFold finds p, or a file in p's folder whose name equals p's
// ignoring case (the exact name wins).
func existsFold(p string) (string, bool) {
	if st, err := os.Stat(p); err == nil && !st.IsDir() {
		return p, true
	}
	dir, base := filepath.Split(p)
	entries, err := os.ReadDir(filepath.Clean(dir))
	if err != nil {
		return "", false
	}
	for _, e := range entries {
		if !e.IsDir() && strings.EqualFold(e.Name(), base) {
			return filepath.Join(dir, e.Name()), true
		}
	}
	return "", false
}

// SourceOrigin is how a source JSON's current content was written, as the
// recorded lineage tells (internal/lineage).
type SourceOrigin struct {
	// Hand says it was written by hand (a Write or Edit, a shell command
	// that only echoes or edits text) and no computation produced it.
	Hand bool
	// By says what wrote it ("Write", "Bash: sed"), At when.
	By string
	At time.Time
}

// Origins says how the source at path, whose content is raw, was written;
// ok is false when nothing is known, which never counts against it.
type Origins func(path string, raw []byte) (o SourceOrigin, ok bool)

// DQ4File runs DQ4 on a findings file: content is the proposed content (a
// PreToolUse write), or nil to read the file. Its sources are found with
// SourcesFor, and a number may match any of them; none found is a FAIL
// that says where it looked. DQ4FileFrom also says how each source was
// written.
func DQ4File(findingsPath string, content []byte, d Domain) (Result, error) {
	return DQ4FileFrom(findingsPath, content, d, nil)
}

// DQ4FileFrom is DQ4File with the sources' origins: a source written by
// hand backs no number (see the package documentation). nil origins know
// nothing of any source.
func DQ4FileFrom(findingsPath string, content []byte, d Domain, origins Origins) (Result, error) {
	if content == nil {
		raw, err := os.ReadFile(findingsPath)
		if err != nil {
			return Result{}, fmt.Errorf("dq4: read findings: %w", err)
		}
		content = raw
	}
	srcs, err := SourcesFor(findingsPath, content)
	var nf *SourceNotFoundError
	if errors.As(err, &nf) {
		res := newResult("DQ4", findingsPath)
		res.fail("source", nf.Error(), noSourceFix(findingsPath))
		return res, nil
	}
	if err != nil {
		return Result{}, fmt.Errorf("dq4: %w", err)
	}
	sources := make([]source, len(srcs))
	for i, p := range srcs {
		raw, err := os.ReadFile(p)
		if err != nil {
			return Result{}, fmt.Errorf("dq4: read source json: %w", err)
		}
		sources[i] = source{name: p, raw: raw}
		if origins != nil {
			if o, ok := origins(p, raw); ok && o.Hand {
				sources[i].hand = &o
			}
		}
	}
	res := dq4(findingsPath, content, sources, d)
	if !hasCheck(res, "source", StatusFail) {
		dq4FindingIDs(&res, findingsPath, content, sources)
	}
	return res, nil
}

func hasCheck(r Result, name string, st Status) bool {
	for _, c := range r.Checks {
		if c.Name == name && c.Status == st {
			return true
		}
	}
	return false
}

func noSourceFix(findingsPath string) string {
	name := filepath.Base(findingsPath)
	return "have the script that computes the results write them to " + strings.TrimSuffix(name, filepath.Ext(name)) + ".json beside the findings, or declare the source with <!-- source: FILE.json -->"
}

type source struct {
	name string // path, or "" when the caller passed bytes only
	raw  []byte
	// hand: the source was written by hand, so it backs no number.
	hand *SourceOrigin
}

// DQ4 checks that every number reported in findings equals a number of
// sourceJSON under the domain's rounding rule (see the package
// documentation for the rule and the exclusions). A nil sourceJSON fails
// with "no source JSON". Each unmatched number is one failed check naming
// its line, its context and the nearest source value.
func DQ4(findingsName string, findings []byte, sourceJSON []byte, d Domain) Result {
	if sourceJSON == nil {
		res := newResult("DQ4", findingsName)
		res.fail("source", fmt.Sprintf("no source JSON for %s", findingsName), noSourceFix(findingsName))
		return res
	}
	return dq4(findingsName, findings, []source{{raw: sourceJSON}}, d)
}

func dq4(findingsName string, findings []byte, sources []source, d Domain) Result {
	res := newResult("DQ4", findingsName)
	var names []string
	var vals, all []float64 // the numbers that back findings; with those of hand-written sources
	var hands []handSource
	for _, src := range sources {
		label := "the source JSON"
		if src.name != "" {
			res.Inputs = append(res.Inputs, src.name)
			label = filepath.Base(src.name)
		}
		names = append(names, label)
		v, err := jsonNumbers(src.raw)
		if err != nil {
			res.fail("source", fmt.Sprintf("%s does not parse: %v", label, err), "fix the JSON so the findings can be checked against it")
			continue
		}
		all = append(all, v...)
		if src.hand != nil {
			hands = append(hands, handSource{label: label, origin: *src.hand, vals: v})
			continue
		}
		vals = append(vals, v...)
	}
	if res.Status == StatusFail {
		return res
	}
	vals, all = sortUnique(vals), sortUnique(all)
	srcLabel := strings.Join(names, ", ")
	res.pass("source", fmt.Sprintf("%s: %d distinct numbers", srcLabel, len(all)))

	x := extractNumbers(findings)
	var unmatched []reported
	handBacked := make([][]reported, len(hands))
	for _, n := range x.numbers {
		if matchNumber(n, vals, d.DQ4) {
			continue
		}
		if i := handMatch(n, hands, d.DQ4); i >= 0 {
			handBacked[i] = append(handBacked[i], n)
			res.Numbers = append(res.Numbers, n.Text)
			continue
		}
		unmatched = append(unmatched, n)
		res.Numbers = append(res.Numbers, n.Text)
	}

	switch {
	case len(unmatched) == 1:
		n := unmatched[0]
		res.fail("number", fmt.Sprintf("line %d: %s in %q matches no number in %s%s", n.Line, n.Text, n.Context, srcLabel, nearestNote(n, all, d.DQ4)),
			"correct it from the JSON, have the script write the value to the JSON, or mark a computed value (derived)")
	case len(unmatched) > 1:
		// One line for all of them: a snippet per number made a reply of
		// hundreds of characters that said the same thing each time.
		listed := make([]string, 0, maxListedNumbers)
		for i, n := range unmatched {
			if i == maxListedNumbers {
				listed = append(listed, fmt.Sprintf("and %d more", len(unmatched)-i))
				break
			}
			note := strings.TrimSuffix(strings.TrimPrefix(nearestNote(n, all, d.DQ4), " ("), ")")
			listed = append(listed, fmt.Sprintf("%s (line %d; %s)", n.Text, n.Line, note))
		}
		res.fail("number", fmt.Sprintf("line %d: %d reported numbers match no number in %s: %s",
			unmatched[0].Line, len(unmatched), srcLabel, strings.Join(listed, ", ")),
			"correct them from the JSON, have the script write the values to the JSON, or mark computed values (derived)")
	}
	for i, h := range hands {
		if len(handBacked[i]) > 0 {
			res.fail("source_lineage", h.detail(handBacked[i]), h.fix())
		}
	}
	if len(unmatched) == 0 && !hasCheck(res, "source_lineage", StatusFail) {
		detail := fmt.Sprintf("all %d reported numbers match %s", len(x.numbers), srcLabel)
		if x.derived > 0 {
			detail += fmt.Sprintf(" (%d more marked derived)", x.derived)
		}
		res.pass("numbers", detail)
	}
	var checked []float64 // the reported numbers a source backs
	for _, n := range x.numbers {
		if matchNumber(n, vals, d.DQ4) {
			checked = append(checked, n.Value)
		}
	}
	if under := underived(x.derivedNumbers, append(append([]float64(nil), vals...), checked...), d.DQ4); len(under) > 0 {
		var listed []string
		for _, n := range under {
			listed = append(listed, fmt.Sprintf("%s (line %d)", n.Text, n.Line))
		}
		res.warn("derived", fmt.Sprintf("%s marked derived, but no sum, difference, product, ratio, percentage or complement of the numbers of %s and the checked findings gives %s",
			strings.Join(listed, ", "), srcLabel, map[bool]string{true: "it", false: "them"}[len(under) == 1]),
			"say how each is derived from numbers the JSON holds (derived: 0.71 - 0.61), or have the script compute it and write it to the JSON")
	}
	if x.openDerivedLine > 0 {
		res.warn("derived_region", fmt.Sprintf("the <!-- derived --> region opened on line %d is never closed, so every number after it is exempt", x.openDerivedLine), "close it with <!-- /derived -->")
	}
	if len(x.numbers) > 0 && !x.sampleSize {
		res.warn("sample_size", "no sample size is stated (n = …)", "state n for each estimate")
	}
	dq4Headlines(&res, filepath.Base(findingsName), x.numbers, sources, d.DQ4)
	lines := proseLines(findings)
	dq4Overclaim(&res, filepath.Base(findingsName), lines, d.DQ4)
	dq4Terms(&res, lines, d.Terms)
	return res
}

// jsonNumbers collects every number of a JSON document, and every string
// that is a number as a whole (an optional trailing % is dropped), sorted
// and without duplicates.
func jsonNumbers(raw []byte) ([]float64, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var doc any
	if err := dec.Decode(&doc); err != nil {
		return nil, err
	}
	var out []float64
	var walk func(v any)
	walk = func(v any) {
		switch t := v.(type) {
		case map[string]any:
			for _, e := range t {
				walk(e)
			}
		case []any:
			for _, e := range t {
				walk(e)
			}
		case json.Number:
			if f, err := strconv.ParseFloat(string(t), 64); err == nil && !math.IsInf(f, 0) {
				out = append(out, f)
			}
		case string:
			s := strings.TrimSuffix(strings.TrimSpace(t), "%")
			if f, err := strconv.ParseFloat(s, 64); err == nil && !math.IsInf(f, 0) && !math.IsNaN(f) {
				out = append(out, f)
			}
		}
	}
	walk(doc)
	return sortUnique(out), nil
}

func sortUnique(xs []float64) []float64 {
	sort.Float64s(xs)
	uniq := xs[:0]
	for i, f := range xs {
		if i == 0 || f != xs[i-1] {
			uniq = append(uniq, f)
		}
	}
	return uniq
}

// matchNumber applies the rounding rule: the reported value v, written
// with its last digit worth unit, matches a source value s when
// |s − v| ≤ unit/2 (s rounds to v); with round_or_truncate also when s
// lies between v and v + unit away from zero (s truncates to v). A
// percentage also matches s × 100 when percent_of_fraction is set.
func matchNumber(n reported, vals []float64, cfg DQ4Config) bool {
	if inWindow(vals, n.Value, n.Unit, cfg.Rounding) {
		return true
	}
	return n.Percent && cfg.PercentOfFraction && inWindow(vals, n.Value/100, n.Unit/100, cfg.Rounding)
}

func inWindow(vals []float64, v, unit float64, rounding string) bool {
	// slack absorbs binary representation error: 0.875 rounds to 0.88
	// whether stored as 0.87499999… or 0.8750000…
	slack := 1e-9*unit + 1e-12*math.Abs(v)
	lo, hi := v-unit/2-slack, v+unit/2+slack
	if rounding == RoundingRoundOrTruncate {
		if v >= 0 {
			hi = math.Max(hi, v+unit-slack)
		} else {
			lo = math.Min(lo, v-unit+slack)
		}
	}
	i := sort.SearchFloat64s(vals, lo)
	return i < len(vals) && vals[i] <= hi
}

// maxListedNumbers caps the unmatched numbers DQ4's one line lists.
const maxListedNumbers = 12

func nearestNote(n reported, vals []float64, cfg DQ4Config) string {
	if len(vals) == 0 {
		return " (it holds no numbers)"
	}
	flipped := n
	flipped.Value = -n.Value
	if n.Value != 0 && matchNumber(flipped, vals, cfg) {
		f, _ := nearest(vals, -n.Value)
		if n.Percent && cfg.PercentOfFraction {
			if g, gd := nearest(vals, -n.Value/100); gd*100 < math.Abs(f+n.Value) {
				f = g
			}
		}
		return fmt.Sprintf(" (the source has %s: the sign differs)", formatFloat(f))
	}
	best, dist := nearest(vals, n.Value)
	note := fmt.Sprintf(" (nearest: %s)", formatFloat(best))
	if n.Percent && cfg.PercentOfFraction {
		if f, fd := nearest(vals, n.Value/100); fd*100 < dist {
			note = fmt.Sprintf(" (nearest: %s = %s%%)", formatFloat(f), formatFloat(f*100))
		}
	}
	return note
}

func nearest(vals []float64, v float64) (float64, float64) {
	i := sort.SearchFloat64s(vals, v)
	best, dist := 0.0, math.Inf(1)
	for _, j := range []int{i - 1, i} {
		if j >= 0 && j < len(vals) {
			if d := math.Abs(vals[j] - v); d < dist {
				best, dist = vals[j], d
			}
		}
	}
	return best, dist
}

// handSource is a source written by hand: its numbers back no finding.
type handSource struct {
	label  string
	origin SourceOrigin
	vals   []float64
}

// handMatch is the index of the first hand-written source that holds n,
// -1 for none.
func handMatch(n reported, hands []handSource, cfg DQ4Config) int {
	for i, h := range hands {
		if matchNumber(n, h.vals, cfg) {
			return i
		}
	}
	return -1
}

// detail says which reported numbers rest on a hand-written source alone,
// and how it was written.
func (h handSource) detail(ns []reported) string {
	how := fmt.Sprintf("%s was written by hand (%s)", h.label, h.origin.By)
	if !h.origin.At.IsZero() {
		how += " at " + h.origin.At.UTC().Format("2006-01-02 15:04 UTC")
	}
	how += ", and no computation produced it, so it backs no finding"
	if len(ns) == 1 {
		return fmt.Sprintf("line %d: %s in %q rests on %s alone; %s", ns[0].Line, ns[0].Text, ns[0].Context, h.label, how)
	}
	listed := make([]string, 0, maxListedNumbers)
	for i, n := range ns {
		if i == maxListedNumbers {
			listed = append(listed, fmt.Sprintf("and %d more", len(ns)-i))
			break
		}
		listed = append(listed, fmt.Sprintf("%s (line %d)", n.Text, n.Line))
	}
	return fmt.Sprintf("line %d: %d reported numbers rest on %s alone (%s); %s", ns[0].Line, len(ns), h.label, strings.Join(listed, ", "), how)
}

func (h handSource) fix() string {
	return "re-run the script that computes " + h.label + " through Bash (vibe records how it was made), then write the findings again"
}

// maxDerivationBase bounds the numbers whose pairs underived combines: a
// source of more numbers leaves a derived number unchecked (its pairs
// would give almost any value anyway).
const maxDerivationBase = 120

// underived returns the numbers marked derived that no one arithmetic
// step gives from base (the source numbers and the checked findings): a+b,
// a-b, a*b, a/b, a/b and (a-b)/b as percentages, 1-a and 100-a, each
// under the rounding rule of the written number. A "(derived)" marker
// exempts a number from DQ4's match, so a value that no step of the
// source gives was likely not derived from it. Nil when base is too large
// to tell.
func underived(marked []reported, base []float64, cfg DQ4Config) []reported {
	if len(marked) == 0 {
		return nil
	}
	base = sortUnique(base)
	if len(base) > maxDerivationBase {
		return nil
	}
	cands := make([]float64, 0, 6*len(base)*len(base)+3*len(base))
	for _, a := range base {
		cands = append(cands, a, 1-a, 100-a)
		for _, b := range base {
			cands = append(cands, a+b, a-b, a*b)
			if b != 0 {
				cands = append(cands, a/b, 100*a/b, 100*(a-b)/b)
			}
		}
	}
	cands = sortUnique(cands)
	var out []reported
	for _, n := range marked {
		if !matchNumber(n, cands, cfg) {
			out = append(out, n)
		}
	}
	return out
}
