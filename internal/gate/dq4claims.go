package gate

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/vibe-science/vibe/internal/lazyre"
)

// proseLine is a line of a findings file as the claim checks read it:
// fenced code and HTML comments already gone (markdownLines), inline code
// blanked, and the lower-cased text kept for matching.
type proseLine struct {
	No      int
	Text    string
	Lower   string
	Level   int // heading level, 0 for a body line
	Heading string
}

func proseLines(content []byte) []proseLine {
	md := markdownLines(content)
	out := make([]proseLine, 0, len(md))
	for _, l := range md {
		t := blankInlineCode(l.Text)
		p := proseLine{No: l.No, Text: t, Lower: strings.ToLower(t)}
		if lvl, h, ok := heading(t); ok {
			p.Level, p.Heading = lvl, h
		}
		out = append(out, p)
	}
	return out
}

// blankInlineCode replaces `code spans` with spaces: words inside code are
// names, not claims.
func blankInlineCode(s string) string {
	if !strings.Contains(s, "`") {
		return s
	}
	b := []byte(s)
	for i := 0; i < len(b); i++ {
		if b[i] != '`' {
			continue
		}
		j := bytes.IndexByte(b[i+1:], '`')
		if j < 0 {
			break
		}
		for k := i; k <= i+1+j; k++ {
			b[k] = ' '
		}
		i += j + 1
	}
	return string(b)
}

// findPhrase returns the byte offset of phrase (lower case) in lower as a
// whole word or words, or -1.
func findPhrase(lower, phrase string) int {
	phrase = strings.ToLower(strings.TrimSpace(phrase))
	if phrase == "" {
		return -1
	}
	from := 0
	for {
		i := strings.Index(lower[from:], phrase)
		if i < 0 {
			return -1
		}
		at := from + i
		end := at + len(phrase)
		before, _ := utf8.DecodeLastRuneInString(lower[:at])
		after, _ := utf8.DecodeRuneInString(lower[end:])
		if (at == 0 || !isWordRune(before)) && (end == len(lower) || !isWordRune(after)) {
			return at
		}
		from = at + 1
	}
}

// section is a heading and the lines under it, up to the next heading of
// the same or a higher level.
type section struct {
	line, level int
	title       string
	from, to    int // indexes into the lines, body only
}

func sections(lines []proseLine) []section {
	var out []section
	for i, l := range lines {
		if l.Level == 0 {
			continue
		}
		s := section{line: l.No, level: l.Level, title: l.Heading, from: i + 1, to: len(lines)}
		for j := i + 1; j < len(lines); j++ {
			if lines[j].Level > 0 && lines[j].Level <= l.Level {
				s.to = j
				break
			}
		}
		out = append(out, s)
	}
	return out
}

func (s section) empty(lines []proseLine) bool {
	for _, l := range lines[s.from:s.to] {
		if l.Level == 0 && strings.TrimSpace(l.Text) != "" {
			return false
		}
	}
	return true
}

// ratioBefore: "fold change of 12", "odds ratio = 0.08", "hazard ratio 3.1";
// run only on lines that mention a ratio or a fold change.
var ratioBefore = lazyre.New(`(?i)\b(fold[- ]change|odds ratio|hazard ratio|risk ratio|rate ratio)\s*(?:of|=|:|was|is|≈|~)?\s*(\d+(?:\.\d+)?)`)

// foldNotEffect are the words after "N-fold" that make it a design, not
// an effect: 5-fold cross-validation, 10-fold CV.
var foldNotEffect = []string{"cross", "cv", "split", "splits", "stratified", "nested", "validation", "validated", "repeated", "grouped", "group", "groups"}

// effectMention is one surprising effect found in a line.
type effectMention struct {
	line int
	text string
}

// surprisingEffects finds the fold changes and ratios of a line whose size
// (a ratio r below 1 counts as 1/r) is at least min; min <= 0 finds none.
func surprisingEffects(l proseLine, min float64) []effectMention {
	if min <= 0 {
		return nil
	}
	var out []effectMention
	add := func(text, num string) {
		v, err := strconv.ParseFloat(num, 64)
		if err != nil || v <= 0 {
			return
		}
		if v < 1 {
			v = 1 / v
		}
		if v >= min {
			out = append(out, effectMention{line: l.No, text: text})
		}
	}
	t := l.Text
	for i := 0; i < len(t); {
		if !isDigit(t[i]) || (i > 0 && isWordByte(t[i-1])) {
			i++
			continue
		}
		j := i
		for j < len(t) && isDigit(t[j]) {
			j++
		}
		if j+1 < len(t) && t[j] == '.' && isDigit(t[j+1]) {
			j++
			for j < len(t) && isDigit(t[j]) {
				j++
			}
		}
		num := t[i:j]
		end, fold := effectSuffix(t, j)
		start := i
		i = j
		if end < 0 {
			continue
		}
		after := t[end:]
		if r, _ := utf8.DecodeRuneInString(after); unicode.IsLetter(r) || unicode.IsDigit(r) {
			continue // "5 folds", "12xyz"
		}
		if fold {
			if nextWordIn(strings.ToLower(after), foldNotEffect) {
				continue // 5-fold cross-validation is a design
			}
		} else if r, _ := utf8.DecodeRuneInString(strings.TrimLeft(after, " ")); unicode.IsDigit(r) {
			continue // 1.2×10⁻⁵ and 2 × 3 are notation
		} else if strings.HasSuffix(t[start:end], "x") && unicode.IsUpper(r) {
			continue // a name: 10x Genomics
		}
		add(strings.TrimSpace(t[start:end]), num)
	}
	if !strings.Contains(l.Lower, "ratio") && !strings.Contains(l.Lower, "fold") {
		return out
	}
	for _, m := range ratioBefore.Re().FindAllStringSubmatch(t, -1) {
		add(m[0], m[2])
	}
	return out
}

// effectSuffix reads what follows a number at j: "-fold", " fold",
// "×" (spaces allowed before it) or a glued "x". It returns the end of the
// suffix (-1 for none) and whether it was a fold.
func effectSuffix(t string, j int) (int, bool) {
	if strings.HasPrefix(t[j:], "x") {
		return j + 1, false
	}
	k := j
	for k < len(t) && t[k] == ' ' {
		k++
	}
	switch {
	case strings.HasPrefix(t[k:], "×"):
		return k + len("×"), false
	case strings.HasPrefix(t[k:], "-"):
		k++
		for k < len(t) && t[k] == ' ' {
			k++
		}
		if strings.HasPrefix(t[k:], "fold") {
			return k + 4, true
		}
	case k > j && strings.HasPrefix(t[k:], "fold"):
		return k + 4, true
	}
	return -1, false
}

func isWordByte(c byte) bool { return isAlnum(c) || c == '_' || c == '.' }

// nextWordIn reports whether the word after s's leading spaces and hyphens
// is one of words.
func nextWordIn(s string, words []string) bool {
	s = strings.TrimLeft(s, " -")
	end := strings.IndexFunc(s, func(r rune) bool { return !unicode.IsLetter(r) })
	if end < 0 {
		end = len(s)
	}
	w := s[:end]
	for _, x := range words {
		if w == x {
			return true
		}
	}
	return false
}

// quoteAt returns the words of l at byte offset at of its lower-cased
// text, as written when lower-casing kept the byte offsets (it does not
// for a few letters, such as İ).
func quoteAt(l proseLine, at int, phrase string) string {
	end := at + len(strings.ToLower(strings.TrimSpace(phrase)))
	if len(l.Text) == len(l.Lower) {
		return l.Text[at:end]
	}
	return l.Lower[at:end]
}

// maxClaimMentions caps how many claims the overclaim failure quotes.
const maxClaimMentions = 3

// dq4Overclaim fails a findings file that reports a surprising result (a
// claim word of dq4.claim_words, or a fold change or ratio of at least
// dq4.surprising_effect) without a non-empty section whose heading
// contains one of dq4.alternatives_headings: the blueprint's M9, an
// overclaim nobody tried to explain away. Words inside that section do
// not count.
func dq4Overclaim(res *Result, base string, lines []proseLine, cfg DQ4Config) {
	secs := sections(lines)
	var alt *section
	inAlt := make([]bool, len(lines))
	for i := range secs {
		title := strings.ToLower(secs[i].title)
		for _, h := range cfg.AlternativesHeadings {
			if findPhrase(title, h) >= 0 || strings.Contains(title, strings.ToLower(strings.TrimSpace(h))) {
				if alt == nil {
					alt = &secs[i]
				}
				for j := secs[i].from - 1; j < secs[i].to; j++ {
					inAlt[j] = true
				}
				break
			}
		}
	}
	var mentions []string
	total := 0
	for i, l := range lines {
		if inAlt[i] {
			continue
		}
		for _, w := range cfg.ClaimWords {
			if at := findPhrase(l.Lower, w); at >= 0 {
				total++
				if len(mentions) < maxClaimMentions {
					mentions = append(mentions, fmt.Sprintf("line %d: %q", l.No, quoteAt(l, at, w)))
				}
			}
		}
		for _, e := range surprisingEffects(l, cfg.SurprisingEffect) {
			total++
			if len(mentions) < maxClaimMentions {
				mentions = append(mentions, fmt.Sprintf("line %d: %s (at least %s)", e.line, e.text, formatFloat(cfg.SurprisingEffect)))
			}
		}
	}
	if total == 0 {
		return
	}
	listed := strings.Join(mentions, "; ")
	if total > len(mentions) {
		listed += fmt.Sprintf("; and %d more", total-len(mentions))
	}
	want := "Alternative explanations"
	if len(cfg.AlternativesHeadings) > 0 {
		want = cfg.AlternativesHeadings[0]
	}
	fix := fmt.Sprintf("add a section `## %s` listing what else could produce the result (confounders, batch or assay artefacts, leakage, selection, chance) and how each was ruled out or remains open, or state the result without the strong wording", want)
	switch {
	case alt == nil:
		res.fail("overclaim", fmt.Sprintf("%s makes a strong or surprising claim (%s) but has no section headed %q", base, listed, want), fix)
	case alt.empty(lines):
		res.fail("overclaim", fmt.Sprintf("%s makes a strong or surprising claim (%s) and its %q section (line %d) is empty", base, listed, alt.title, alt.line), fix)
	default:
		res.pass("overclaim", fmt.Sprintf("strong or surprising claims (%s) come with the section %q (line %d)", listed, alt.title, alt.line))
	}
}

// dq4Terms warns for each misuse of a domain term the findings file
// contains (the blueprint's M10): a warning, never a block, since only a
// reader can tell a misuse from a quotation.
func dq4Terms(res *Result, lines []proseLine, terms []Term) {
	for _, t := range terms {
		for _, m := range t.Misuses {
			first, count := 0, 0
			for _, l := range lines {
				if findPhrase(l.Lower, m) >= 0 {
					if count == 0 {
						first = l.No
					}
					count++
				}
			}
			if count == 0 {
				continue
			}
			where := fmt.Sprintf("line %d", first)
			if count > 1 {
				where += fmt.Sprintf(" and %d more", count-1)
			}
			note := ""
			if t.Note != "" {
				note = ": " + t.Note
			}
			res.warn("terms", fmt.Sprintf("%q (%s) misuses the domain term %q%s", m, where, t.Term, note),
				fmt.Sprintf("write %q, or say why the other wording is right here", t.Term))
		}
	}
}

// headlineValue is a number a source JSON marks as a headline result.
type headlineValue struct {
	path  string
	value float64
}

// headlines collects the numbers under every "headline" key of a JSON
// document: an object or array of numbers (labelled by their key path), or
// a list of key paths ("auc_guide_split", "coverage.mean") naming numbers
// elsewhere in the document.
func headlines(raw []byte) []headlineValue {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var doc any
	if dec.Decode(&doc) != nil {
		return nil
	}
	var out []headlineValue
	var numbersUnder func(path string, v any)
	numbersUnder = func(path string, v any) {
		switch t := v.(type) {
		case map[string]any:
			for _, k := range sortedKeys(t) {
				numbersUnder(path+"."+k, t[k])
			}
		case []any:
			for i, e := range t {
				if s, ok := e.(string); ok {
					if f, ok := lookupPath(doc, s); ok {
						out = append(out, headlineValue{s, f})
					}
					continue
				}
				numbersUnder(fmt.Sprintf("%s[%d]", path, i), e)
			}
		default:
			if f, ok := toFloat(v); ok {
				out = append(out, headlineValue{path, f})
			}
		}
	}
	var walk func(path string, v any)
	walk = func(path string, v any) {
		switch t := v.(type) {
		case map[string]any:
			for _, k := range sortedKeys(t) {
				p := k
				if path != "" {
					p = path + "." + k
				}
				if k == "headline" {
					numbersUnder(p, t[k])
					continue
				}
				walk(p, t[k])
			}
		case []any:
			for i, e := range t {
				walk(fmt.Sprintf("%s[%d]", path, i), e)
			}
		}
	}
	walk("", doc)
	return out
}

// lookupPath finds the number at a dotted key path of a JSON document.
func lookupPath(doc any, path string) (float64, bool) {
	cur := doc
	for _, k := range strings.Split(path, ".") {
		m, ok := cur.(map[string]any)
		if !ok {
			return 0, false
		}
		if cur, ok = m[k]; !ok {
			return 0, false
		}
	}
	return toFloat(cur)
}

// dq4Headlines fails each headline value of the sources that no reported
// number of the findings file matches (the blueprint's M6: FINDINGS.json
// rewritten by a newer run while FINDINGS.md still tells the old story).
// The numbers check catches a stale number that is still written; this
// catches the new result that is not written at all.
func dq4Headlines(res *Result, base string, reported []reported, sources []source, cfg DQ4Config) {
	checked, missing := 0, 0
	for _, src := range sources {
		label := "the source JSON"
		if src.name != "" {
			label = fileBase(src.name)
		}
		for _, h := range headlines(src.raw) {
			checked++
			found := false
			for _, n := range reported {
				if matchNumber(n, []float64{h.value}, cfg) {
					found = true
					break
				}
			}
			if !found {
				missing++
				res.fail("headline", fmt.Sprintf("%s marks `%s` = %s as a headline result, and %s does not report it", label, h.path, formatFloat(h.value), base),
					fmt.Sprintf("%s is stale or leaves the result out: write it from %s", base, label))
			}
		}
	}
	if checked > 0 && missing == 0 {
		res.pass("headline", fmt.Sprintf("all %d headline values of the source are reported", checked))
	}
}

func fileBase(p string) string {
	if i := strings.LastIndexAny(p, `/\`); i >= 0 {
		return p[i+1:]
	}
	return p
}
