package gate

import (
	"bytes"
	"math"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/vibe-science/vibe/internal/citation"
	"github.com/vibe-science/vibe/internal/markdown"
)

// reported is one number a findings file reports as a value.
type reported struct {
	Text    string  // as written, with its sign and a trailing % if any
	Value   float64 // the value, in the units written (87.5 for "87.5%")
	Unit    float64 // one unit of the last written digit
	Percent bool
	Line    int
	Context string
}

// extraction is what the findings scanner found.
type extraction struct {
	numbers []reported
	// derived counts numbers exempted by a (derived) marker or region;
	// derivedNumbers are the ones a marker exempts, one by one.
	derived        int
	derivedNumbers []reported
	// sources are the paths declared in <!-- source: PATH --> comments.
	sources []string
	// openDerivedLine is the line of a <!-- derived --> region never
	// closed (0 when every region is closed).
	openDerivedLine int
	// sampleSize reports whether an "n = …" statement appears.
	sampleSize bool
}

// referenceWords name things numbered in a document (figures, tables,
// sections, pages, stages): the number right after one is a reference,
// not a reported value. Compared lower-case, with a trailing dot kept
// where the abbreviation needs it to be unambiguous (p., pp.).
var referenceWords = map[string]bool{
	"figure": true, "figures": true, "fig": true, "fig.": true, "figs": true, "figs.": true,
	"table": true, "tables": true, "tab.": true,
	"section": true, "sections": true, "sec": true, "sec.": true, "§": true,
	"eq": true, "eq.": true, "eqs": true, "eqs.": true, "equation": true, "equations": true,
	"appendix": true, "chapter": true, "chapters": true, "page": true, "pages": true,
	"p.": true, "pp.": true, "line": true, "lines": true, "step": true, "steps": true,
	"stage": true, "stages": true, "phase": true, "cycle": true, "cycles": true,
	"round": true, "item": true, "items": true, "part": true, "panel": true, "panels": true,
	"version": true, "release": true, "law": true, "laws": true, "tier": true, "node": true,
}

var monthWords = map[string]bool{
	"jan": true, "january": true, "feb": true, "february": true, "mar": true, "march": true,
	"apr": true, "april": true, "may": true, "jun": true, "june": true, "jul": true, "july": true,
	"aug": true, "august": true, "sep": true, "sept": true, "september": true, "oct": true,
	"october": true, "nov": true, "november": true, "dec": true, "december": true,
}

// idPrefixes start a token that is an identifier of a publication.
var idPrefixes = []string{"doi:", "arxiv:", "pmid:", "pmid ", "pmcid:", "isbn:", "isbn ", "issn:", "orcid:"}

// extractNumbers scans a findings document for the numbers it reports.
// See the package documentation for what is excluded and why.
func extractNumbers(text []byte) extraction {
	var x extraction
	var st scanState
	line := 0
	for len(text) > 0 {
		line++
		i := bytes.IndexByte(text, '\n')
		var l []byte
		if i < 0 {
			l, text = text, nil
		} else {
			l, text = text[:i], text[i+1:]
		}
		l = bytes.TrimSuffix(l, []byte{'\r'})
		st.scanLine(&x, line, l)
	}
	if st.derived {
		x.openDerivedLine = st.derivedLine
	}
	return x
}

type scanState struct {
	fences      markdown.Fences // fenced code blocks (CommonMark: nested and longer fences)
	inComment   bool
	comment     []byte
	derived     bool
	derivedLine int
	frontMatter bool
	buf         []byte
	lower       []byte
	exempt      []bool
}

func (st *scanState) scanLine(x *extraction, lineNo int, raw []byte) {
	trimmed := bytes.TrimSpace(raw)
	if lineNo == 1 && string(trimmed) == "---" {
		st.frontMatter = true
		return
	}
	if st.frontMatter {
		if s := string(trimmed); s == "---" || s == "..." {
			st.frontMatter = false
		}
		return
	}
	if st.fences.In() || !st.inComment {
		if st.fences.Step(string(raw)) {
			return
		}
	}

	st.buf = append(st.buf[:0], raw...)
	buf := st.buf
	if cap(st.exempt) < len(buf) {
		st.exempt = make([]bool, len(buf))
	}
	exempt := st.exempt[:len(buf)]

	// Pass 1: HTML comments (masked; their directives change the state)
	// and derived regions (exempt).
	for i := 0; i < len(buf); {
		if st.inComment {
			end := bytes.Index(buf[i:], []byte("-->"))
			stop := len(buf)
			if end >= 0 {
				stop = i + end + 3
				st.comment = append(st.comment, buf[i:i+end]...)
			} else {
				st.comment = append(st.comment, buf[i:]...)
				st.comment = append(st.comment, ' ')
			}
			for j := i; j < stop; j++ {
				buf[j] = ' '
				exempt[j] = st.derived
			}
			i = stop
			if end >= 0 {
				st.inComment = false
				st.directive(x, lineNo)
			}
			continue
		}
		if bytes.HasPrefix(buf[i:], []byte("<!--")) {
			st.inComment = true
			st.comment = st.comment[:0]
			for j := i; j < i+4; j++ {
				buf[j] = ' '
				exempt[j] = st.derived
			}
			i += 4
			continue
		}
		exempt[i] = st.derived
		i++
	}

	maskStructure(buf)
	// A paper id is a locator, never a value: the citation audit's own
	// reading of ids says where one is (ISBN-13: 978-…, PMCID: PMC…).
	citation.Scan(buf, func(_ string, from, to int) bool {
		blank(buf, from, to)
		return true
	})
	st.lower = asciiLowerInto(st.lower[:0], buf)
	maskSpans(buf, st.lower)
	scanNumbers(x, lineNo, raw, buf, exempt)
}

func (st *scanState) directive(x *extraction, lineNo int) {
	c := strings.TrimSpace(string(st.comment))
	low := strings.ToLower(c)
	switch {
	case low == "derived":
		if !st.derived {
			st.derived, st.derivedLine = true, lineNo
		}
	case low == "/derived" || low == "end derived":
		st.derived = false
	case strings.HasPrefix(low, "source:"):
		if p := strings.TrimSpace(c[len("source:"):]); p != "" && indexOf(x.sources, p) < 0 {
			x.sources = append(x.sources, p)
		}
	}
}

// maskStructure blanks the enumerator of a heading ("## 2.1 Results",
// "## 3) Methods") and the marker of an ordered list item ("3. ", "3) "):
// they number the document, they do not report anything.
func maskStructure(buf []byte) {
	i := 0
	for i < len(buf) && (buf[i] == ' ' || buf[i] == '\t' || buf[i] == '>') {
		i++
	}
	heading := false
	if i < len(buf) && buf[i] == '#' {
		j := i
		for j < len(buf) && buf[j] == '#' {
			j++
		}
		if j-i <= 6 && (j == len(buf) || buf[j] == ' ' || buf[j] == '\t') {
			heading = true
			i = skipSpaces(buf, j, -1)
		}
	}
	j := i
	for j < len(buf) && isDigit(buf[j]) {
		j++
	}
	if j == i {
		return
	}
	spaceOrEnd := func(k int) bool { return k == len(buf) || buf[k] == ' ' || buf[k] == '\t' }
	if heading {
		for j+1 < len(buf) && buf[j] == '.' && isDigit(buf[j+1]) {
			j++
			for j < len(buf) && isDigit(buf[j]) {
				j++
			}
		}
		if j < len(buf) && (buf[j] == '.' || buf[j] == ')') {
			j++
		}
		if spaceOrEnd(j) {
			blank(buf, i, j)
		}
		return
	}
	if j < len(buf) && (buf[j] == '.' || buf[j] == ')') && spaceOrEnd(j+1) {
		blank(buf, i, j+1)
	}
}

// maskSpans blanks what is a locator or code, not a value: inline code,
// URLs, DOIs, publication identifiers (doi:, arXiv:, PMID …), Markdown
// links (their text and target), footnote references, HTML tags and
// bracketed numeric citations ([3], [4, 7–9]). Other bracketed text, such
// as a confidence interval [0.88, 0.94], stays checked.
func maskSpans(buf, lower []byte) {
	// next finds the next c at or after i, remembering the last answer so
	// a line full of unclosed brackets costs one scan, not one per bracket.
	type cached struct{ from, at int }
	closeBracket, closeAngle := cached{-1, 0}, cached{-1, 0}
	next := func(c byte, i int) int {
		m := &closeBracket
		if c == '>' {
			m = &closeAngle
		}
		if m.from >= 0 && m.from <= i && (m.at < 0 || m.at >= i) {
			return m.at
		}
		at := bytes.IndexByte(buf[i:], c)
		if at >= 0 {
			at += i
		}
		m.from, m.at = i, at
		return at
	}
	for i := 0; i < len(buf); i++ {
		switch {
		case buf[i] == '`':
			if end, ok := codeSpan(buf, i); ok {
				blank(buf, i, end)
				i = end - 1
			} else {
				// no closing run of this length: the rest of the line
				// holds none, so skip the whole run
				for i+1 < len(buf) && buf[i+1] == '`' {
					i++
				}
			}
		case hasPrefixAt(lower, i, "http://") || hasPrefixAt(lower, i, "https://") ||
			hasPrefixAt(lower, i, "ftp://") || (hasPrefixAt(lower, i, "www.") && (i == 0 || !isAlnum(buf[i-1]))):
			i = blankToken(buf, i) - 1
		case hasPrefixAt(buf, i, "10.") && isDOI(buf, i):
			i = blankToken(buf, i) - 1
		case buf[i] == '[' && i+1 < len(buf) && buf[i+1] == '^':
			if end := next(']', i); end > 0 {
				blank(buf, i, end+1)
				i = end
			}
		case buf[i] == '[':
			close := next(']', i)
			if close < 0 {
				continue
			}
			if close+1 < len(buf) && (buf[close+1] == '(' || buf[close+1] == '[') {
				end := close + 1
				if buf[close+1] == '(' {
					end = matchParen(buf, close+1)
				} else if k := bytes.IndexByte(buf[close+1:], ']'); k > 0 {
					end = close + 1 + k + 1
				}
				blank(buf, i, end)
				i = end - 1
			} else if end, ok := numericCitation(buf, i); ok {
				blank(buf, i, end)
				i = end - 1
			}
		case buf[i] == '<' && i+1 < len(buf) && (isLetter(buf[i+1]) || buf[i+1] == '/' || buf[i+1] == '!'):
			if end := next('>', i); end > 0 {
				blank(buf, i, end+1)
				i = end
			}
		default:
			if i == 0 || !isAlnum(buf[i-1]) {
				for _, p := range idPrefixes {
					if hasPrefixAt(lower, i, p) {
						j := skipSpaces(buf, i+len(p), -1)
						end := blankToken(buf, j)
						blank(buf, i, end)
						i = end - 1
						break
					}
				}
			}
		}
	}
}

// codeSpan finds the end of an inline code span opened by the backtick
// run at i (CommonMark: closed by a run of the same length).
func codeSpan(buf []byte, i int) (int, bool) {
	n := 0
	for i+n < len(buf) && buf[i+n] == '`' {
		n++
	}
	for j := i + n; j < len(buf); {
		if buf[j] != '`' {
			j++
			continue
		}
		m := 0
		for j+m < len(buf) && buf[j+m] == '`' {
			m++
		}
		if m == n {
			return j + m, true
		}
		j += m
	}
	return 0, false
}

func isDOI(buf []byte, i int) bool {
	if i > 0 && (isAlnum(buf[i-1]) || buf[i-1] == '.') {
		return false
	}
	j := i + 3
	n := 0
	for j < len(buf) && isDigit(buf[j]) {
		j++
		n++
	}
	return n >= 4 && n <= 9 && j < len(buf) && buf[j] == '/'
}

// numericCitation matches "[3]", "[3, 4]", "[3–5]" (integers only).
func numericCitation(buf []byte, i int) (int, bool) {
	j := i + 1
	digits := false
	for j < len(buf) {
		c := buf[j]
		switch {
		case isDigit(c):
			digits = true
			j++
		case c == ',' || c == ' ' || c == '-':
			j++
		case hasPrefixAt(buf, j, "–"):
			j += len("–")
		case c == ']':
			return j + 1, digits
		default:
			return 0, false
		}
	}
	return 0, false
}

func matchParen(buf []byte, open int) int {
	depth := 0
	for j := open; j < len(buf); j++ {
		switch buf[j] {
		case '(':
			depth++
		case ')':
			depth--
			if depth == 0 {
				return j + 1
			}
		}
	}
	return len(buf)
}

// blankToken blanks from i to the next whitespace, quote, angle bracket or
// backtick and returns where it stopped.
func blankToken(buf []byte, i int) int {
	j := i
	for j < len(buf) {
		c := buf[j]
		if c == ' ' || c == '\t' || c == '<' || c == '>' || c == '"' || c == '`' {
			break
		}
		j++
	}
	blank(buf, i, j)
	return j
}

func blank(buf []byte, from, to int) {
	for k := from; k < to && k < len(buf); k++ {
		buf[k] = ' '
	}
}

func hasPrefixAt(b []byte, i int, p string) bool {
	return i+len(p) <= len(b) && string(b[i:i+len(p)]) == p
}

// asciiLowerInto appends buf to dst with ASCII letters lower-cased, so
// offsets stay those of buf even when the line is not valid UTF-8
// (bytes.ToLower would replace invalid bytes with three-byte runes and
// shift every index).
func asciiLowerInto(dst, buf []byte) []byte {
	for _, c := range buf {
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		dst = append(dst, c)
	}
	return dst
}

func isDigit(c byte) bool  { return c >= '0' && c <= '9' }
func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func isAlnum(c byte) bool  { return isDigit(c) || isLetter(c) }

// runeBefore returns the rune ending at i (exclusive) and its start.
func runeBefore(buf []byte, i int) (rune, int) {
	if i <= 0 {
		return 0, 0
	}
	r, size := utf8.DecodeLastRune(buf[:i])
	return r, i - size
}

// scanNumbers finds the reported numbers of one prepared line.
func scanNumbers(x *extraction, lineNo int, raw, buf []byte, exempt []bool) {
	derived := findDerived(buf)
	// depth[k] is the bracket depth before byte k, built on first use so
	// a long line costs one pass, not one per number.
	var depth []int32
	inGroup := func(at int) bool {
		if depth == nil {
			depth = groupDepths(buf)
		}
		return depth[at] > 0
	}
	lastRefEnd := -1 // end of the last number excluded as a reference
	for i := 0; i < len(buf); {
		start, ok := numberStart(buf, i)
		if !ok {
			i++
			continue
		}
		n, end, kind := parseNumber(buf, start)
		if end <= start {
			i++
			continue
		}
		i = end
		if kind == kindSkip {
			continue
		}
		digitsAt := start
		if n.sign {
			digitsAt += n.signLen
		}
		if isIdentifier(buf, start, digitsAt, end, n) {
			continue
		}
		if dEnd, ok := dateOrTime(buf, digitsAt, n); ok {
			if dEnd > i {
				i = dEnd
			}
			continue
		}
		if isCitationYear(buf, digitsAt, end, n, inGroup) || isOrdinal(buf, end) {
			continue
		}
		if isReference(buf, digitsAt) || (lastRefEnd >= 0 && continuesReference(buf, lastRefEnd, digitsAt)) {
			lastRefEnd = end
			continue
		}
		if isSampleSize(buf, start) {
			x.sampleSize = true
		}
		pct := false
		after := end
		if j := skipSpaces(buf, end, 1); j < len(buf) && buf[j] == '%' {
			pct, after = true, j+1
		}
		if pct && isConfidenceLevel(buf, after) {
			continue // "95% CI" names an interval's level, not a result
		}
		if exempt[start] {
			x.derived++ // a <!-- derived --> region: a table of computed values
			continue
		}
		text := string(raw[start:end])
		if pct {
			text = strings.TrimRight(string(raw[start:after-1]), " ") + "%"
		}
		r := reported{Text: text, Value: n.value, Unit: n.unit, Percent: pct, Line: lineNo, Context: context(raw, start, after)}
		if derived.in(start) || markedDerived(buf, after, derived) {
			x.derived++
			x.derivedNumbers = append(x.derivedNumbers, r)
			continue
		}
		x.numbers = append(x.numbers, r)
	}
}

// derivedSpans finds "(derived)", "(derived: …)" and "(derived; …)"
// parentheticals, case-insensitive: covered[k] says whether byte k lies
// inside one, starts[k] whether one opens at k. Closing parentheses are
// matched with one stack pass, so the cost stays linear in the line.
type derivedSpans struct {
	covered []bool
	starts  map[int]bool
}

func findDerived(buf []byte) derivedSpans {
	var opens []int
	for from := 0; ; {
		k := bytes.IndexByte(buf[from:], '(')
		if k < 0 {
			break
		}
		k += from
		next := k + len("(derived")
		if next > len(buf) || !bytes.EqualFold(buf[k+1:next], []byte("derived")) {
			from = k + 1
			continue
		}
		if next < len(buf) && (buf[next] == ')' || buf[next] == ':' || buf[next] == ';' || buf[next] == ',' || buf[next] == ' ') {
			opens = append(opens, k)
		}
		from = next
	}
	if len(opens) == 0 {
		return derivedSpans{}
	}
	closes := closingParens(buf)
	diff := make([]int, len(buf)+1)
	ds := derivedSpans{covered: make([]bool, len(buf)), starts: map[int]bool{}}
	for _, o := range opens {
		end := closes[o]
		diff[o]++
		diff[end]--
		ds.starts[o] = true
	}
	run := 0
	for k := range buf {
		run += diff[k]
		ds.covered[k] = run > 0
	}
	return ds
}

// closingParens maps each '(' offset to the offset after its ')' (or the
// line's end when unclosed).
func closingParens(buf []byte) map[int]int {
	out := map[int]int{}
	var stack []int
	for k, c := range buf {
		switch c {
		case '(':
			stack = append(stack, k)
		case ')':
			if n := len(stack); n > 0 {
				out[stack[n-1]] = k + 1
				stack = stack[:n-1]
			}
		}
	}
	for _, o := range stack {
		out[o] = len(buf)
	}
	return out
}

func (ds derivedSpans) in(pos int) bool { return ds.covered != nil && ds.covered[pos] }

// markedDerived reports whether a derived parenthetical follows the number
// ending at end, with at most spaces and one unit word in between.
func markedDerived(buf []byte, end int, ds derivedSpans) bool {
	if ds.starts == nil {
		return false
	}
	j := skipSpaces(buf, end, -1)
	if ds.starts[j] {
		return true
	}
	// one unit word: letters, µ, °, /, ² …
	k := j
	for k < len(buf) {
		r, size := utf8.DecodeRune(buf[k:])
		if r == ' ' || r == '(' || r == utf8.RuneError {
			break
		}
		if !unicode.IsLetter(r) && r != '/' && r != '°' && r != '²' && r != '³' && r != '·' {
			return false
		}
		k += size
	}
	if k == j {
		return false
	}
	return ds.starts[skipSpaces(buf, k, -1)]
}

func skipSpaces(buf []byte, i, max int) int {
	n := 0
	for i < len(buf) && (buf[i] == ' ' || buf[i] == '\t') && (max < 0 || n < max) {
		i++
		n++
	}
	return i
}

// context returns the line around [start, end) shortened to about 40
// bytes each side, on rune boundaries.
func context(raw []byte, start, end int) string {
	from, to := start-40, end+40
	pre, post := "…", "…"
	if from <= 0 {
		from, pre = 0, ""
	}
	if to >= len(raw) {
		to, post = len(raw), ""
	}
	for from > 0 && !utf8.RuneStart(raw[from]) {
		from--
	}
	for to < len(raw) && !utf8.RuneStart(raw[to]) {
		to++
	}
	s := strings.TrimSpace(string(raw[from:to]))
	return pre + s + post
}

type parsedNumber struct {
	value    float64
	unit     float64
	sign     bool
	signLen  int
	negative bool
	intLen   int  // digits before the point (thousands separators excluded)
	hasFrac  bool // a decimal point with digits after it
	hasExp   bool
	groups   bool // thousands separators used
}

const (
	kindValue = iota
	kindSkip  // a version string or something else never reported
)

// numberStart reports whether a number starts at i: a digit (not inside a
// run of digits), a ".5" style fraction, or a unary sign before either.
func numberStart(buf []byte, i int) (int, bool) {
	c := buf[i]
	prevDigit := i > 0 && (isDigit(buf[i-1]) || buf[i-1] == '.' && i > 1 && isDigit(buf[i-2]))
	switch {
	case isDigit(c):
		return i, !prevDigit
	case c == '.' && i+1 < len(buf) && isDigit(buf[i+1]):
		return i, !(i > 0 && (isAlnum(buf[i-1]) || buf[i-1] == '.'))
	case c == '-' || c == '+' || hasPrefixAt(buf, i, "−"):
		size := 1
		if c != '-' && c != '+' {
			size = len("−")
		}
		j := i + size
		if j >= len(buf) || !(isDigit(buf[j]) || buf[j] == '.' && j+1 < len(buf) && isDigit(buf[j+1])) {
			return 0, false
		}
		if i > 0 {
			r, _ := runeBefore(buf, i)
			if isWordRune(r) || r == ')' || r == '.' || r == ']' || r == '_' {
				return 0, false
			}
		}
		return i, true
	}
	return 0, false
}

// parseNumber reads the number starting at start.
func parseNumber(buf []byte, start int) (parsedNumber, int, int) {
	var n parsedNumber
	i := start
	var mant strings.Builder
	switch {
	case buf[i] == '-' || buf[i] == '+':
		n.sign, n.signLen, n.negative = true, 1, buf[i] == '-'
		i++
	case hasPrefixAt(buf, i, "−"):
		n.sign, n.signLen, n.negative = true, len("−"), true
		i += len("−")
	}
	if n.negative {
		mant.WriteByte('-')
	}
	digStart := i
	for i < len(buf) && isDigit(buf[i]) {
		mant.WriteByte(buf[i])
		i++
	}
	n.intLen = i - digStart
	// thousands separators: 1-3 leading digits (no leading zero), then
	// ",ddd" groups not followed by another digit
	if n.intLen >= 1 && n.intLen <= 3 && !(n.intLen > 1 && buf[digStart] == '0') {
		for i+3 < len(buf) && buf[i] == ',' && isDigit(buf[i+1]) && isDigit(buf[i+2]) && isDigit(buf[i+3]) &&
			(i+4 == len(buf) || !isDigit(buf[i+4])) {
			mant.Write(buf[i+1 : i+4])
			n.groups = true
			n.intLen += 3
			i += 4
		}
	}
	decimals := 0
	if i+1 < len(buf) && buf[i] == '.' && isDigit(buf[i+1]) {
		mant.WriteByte('.')
		i++
		for i < len(buf) && isDigit(buf[i]) {
			mant.WriteByte(buf[i])
			i++
			decimals++
		}
		n.hasFrac = true
		// a second dot with digits makes it a version or an address
		if i+1 < len(buf) && buf[i] == '.' && isDigit(buf[i+1]) {
			for i < len(buf) && (isDigit(buf[i]) || buf[i] == '.' && i+1 < len(buf) && isDigit(buf[i+1])) {
				i++
			}
			return n, i, kindSkip
		}
	}
	if n.intLen == 0 && decimals == 0 {
		return n, start, kindSkip
	}
	exp := 0
	// e-notation: 1.2e-5, 3E+04
	if i < len(buf) && (buf[i] == 'e' || buf[i] == 'E') {
		j := i + 1
		if j < len(buf) && (buf[j] == '-' || buf[j] == '+') {
			j++
		}
		k := j
		for k < len(buf) && isDigit(buf[k]) {
			k++
		}
		if k > j && (k == len(buf) || !isLetter(buf[k])) {
			e, err := strconv.Atoi(string(buf[i+1 : k]))
			if err == nil {
				exp, n.hasExp = e, true
				i = k
			}
		}
	}
	// multiplied powers of ten: 1.2×10^-5, 1.2 x 10^5, 1.2·10⁻⁵, and 10^-5 alone
	if !n.hasExp {
		if e, k, ok := timesTen(buf, i); ok {
			exp, n.hasExp = e, true
			i = k
		} else if string(buf[digStart:i]) == "10" && decimals == 0 {
			if e, k, ok := power(buf, i); ok {
				mant.Reset()
				if n.negative {
					mant.WriteByte('-')
				}
				mant.WriteByte('1')
				exp, n.hasExp = e, true
				i = k
			}
		}
	}
	v, err := strconv.ParseFloat(mant.String(), 64)
	if err != nil {
		return n, i, kindSkip
	}
	n.value = v * math.Pow(10, float64(exp))
	if n.hasExp {
		// parse the whole to avoid the rounding of the multiplication
		if w, err := strconv.ParseFloat(mant.String()+"e"+strconv.Itoa(exp), 64); err == nil {
			n.value = w
		}
	}
	n.unit = math.Pow(10, float64(exp-decimals))
	if math.IsInf(n.value, 0) || math.IsNaN(n.value) {
		return n, i, kindSkip
	}
	return n, i, kindValue
}

// timesTen reads "×10^e", " x 10^e", "·10⁻⁵", "*10^e" after a mantissa.
func timesTen(buf []byte, i int) (int, int, bool) {
	j := skipSpaces(buf, i, 1)
	switch {
	case hasPrefixAt(buf, j, "×"):
		j += len("×")
	case hasPrefixAt(buf, j, "·"):
		j += len("·")
	case j < len(buf) && (buf[j] == 'x' || buf[j] == '*'):
		j++
	default:
		return 0, 0, false
	}
	j = skipSpaces(buf, j, 1)
	if !hasPrefixAt(buf, j, "10") {
		return 0, 0, false
	}
	return power(buf, j+2)
}

var superscripts = map[rune]byte{'⁰': '0', '¹': '1', '²': '2', '³': '3', '⁴': '4', '⁵': '5',
	'⁶': '6', '⁷': '7', '⁸': '8', '⁹': '9', '⁻': '-', '⁺': '+'}

// power reads "^-5", "^(-5)" or superscript "⁻⁵" at i.
func power(buf []byte, i int) (int, int, bool) {
	var digits []byte
	j := i
	if j < len(buf) && buf[j] == '^' {
		j++
		paren := j < len(buf) && buf[j] == '('
		if paren {
			j++
		}
		if j < len(buf) && (buf[j] == '-' || buf[j] == '+') {
			digits = append(digits, buf[j])
			j++
		} else if hasPrefixAt(buf, j, "−") {
			digits = append(digits, '-')
			j += len("−")
		}
		k := j
		for j < len(buf) && isDigit(buf[j]) {
			digits = append(digits, buf[j])
			j++
		}
		if j == k {
			return 0, 0, false
		}
		if paren {
			if j >= len(buf) || buf[j] != ')' {
				return 0, 0, false
			}
			j++
		}
	} else {
		for j < len(buf) {
			r, size := utf8.DecodeRune(buf[j:])
			d, ok := superscripts[r]
			if !ok {
				break
			}
			digits = append(digits, d)
			j += size
		}
		if len(digits) == 0 || (len(digits) == 1 && (digits[0] == '-' || digits[0] == '+')) {
			return 0, 0, false
		}
	}
	e, err := strconv.Atoi(string(digits))
	if err != nil {
		return 0, 0, false
	}
	return e, j, true
}

// isIdentifier reports whether the number is part of an identifier: glued
// to a letter, '_' or '#' on its left (C001, rs123, H3K27ac, #12), joined
// by '-', '.', '/' or '_' to a token that starts with a letter (C-001,
// RQ-001, SEED-20240101-001, fig.2, run_03, results/run2), or followed by
// letters that are themselves followed by a digit (3D7, a hash 5f2a9c).
func isIdentifier(buf []byte, start, digitsAt, end int, n parsedNumber) bool {
	if !n.sign {
		r, at := runeBefore(buf, digitsAt)
		switch {
		case r == 0:
		case unicode.IsLetter(r) || r == '#':
			return true
		case r == '_' || r == '-' || r == '.' || r == '/' || r == '\\' || r == '^':
			k := at
			for k > 0 {
				p, ps := runeBefore(buf, k)
				if isWordRune(p) || p == '_' || p == '-' || p == '.' || p == '/' || p == '\\' || p == '^' {
					k = ps
					continue
				}
				break
			}
			if k < at {
				first, _ := utf8.DecodeRune(buf[k:])
				if unicode.IsLetter(first) {
					return true
				}
			}
		}
	}
	if end+1 < len(buf) && buf[end] == '_' && isAlnum(buf[end+1]) {
		return true
	}
	if inPathToken(buf, digitsAt, end) {
		return true
	}
	if !n.hasFrac && !n.hasExp {
		k := end
		for k < len(buf) && isLetter(buf[k]) {
			k++
		}
		if k > end && k < len(buf) && isDigit(buf[k]) {
			return true
		}
	}
	return false
}

// inPathToken reports whether the number sits in a file path: a token
// (a run without spaces, quotes or brackets) with a slash that has a
// letter before its last slash (03-data/raw.csv, runs/2/m.json), or that
// ends in a file extension (.csv, .json …) after a letter, '_' or '-'.
// "3/4" and "0.5/h" are not paths.
func inPathToken(buf []byte, start, end int) bool {
	stop := func(c byte) bool {
		return c == ' ' || c == '\t' || c == '"' || c == '\'' || c == '(' || c == ')' ||
			c == '[' || c == ']' || c == '<' || c == '>' || c == '{' || c == '}' || c == ',' || c == ';'
	}
	l := start
	for l > 0 && !stop(buf[l-1]) {
		l--
	}
	r := end
	for r < len(buf) && !stop(buf[r]) {
		r++
	}
	tok := bytes.TrimRight(buf[l:r], ".:!?")
	if len(tok) == 0 {
		return false
	}
	if last := bytes.LastIndexAny(tok, "/\\"); last > 0 {
		for _, c := range tok[:last] {
			if isLetter(c) {
				return true
			}
		}
	}
	dot := bytes.LastIndexByte(tok, '.')
	if dot <= 0 || dot == len(tok)-1 || len(tok)-dot-1 > 5 || !isLetter(tok[dot+1]) {
		return false
	}
	for _, c := range tok[dot+1:] {
		if !isAlnum(c) {
			return false
		}
	}
	for _, c := range tok[:dot] {
		if isLetter(c) || c == '_' || c == '-' {
			return true
		}
	}
	return false
}

// dateOrTime recognises ISO dates (2024-01-05, 2024/01/05), day/month/
// year dates (05/01/2024), clock times (10:30, 10:30:15) and the day or
// year next to a month name (5 March 2024, March 5, 2024). It returns
// where the date or time ends.
func dateOrTime(buf []byte, at int, n parsedNumber) (int, bool) {
	if n.hasFrac || n.hasExp || n.groups || n.sign {
		return 0, false
	}
	digits := func(i, count int) bool {
		if i < 0 || i+count > len(buf) {
			return false
		}
		for k := i; k < i+count; k++ {
			if !isDigit(buf[k]) {
				return false
			}
		}
		return i+count == len(buf) || !isDigit(buf[i+count])
	}
	e := at + n.intLen
	if n.intLen == 4 && e < len(buf) && (buf[e] == '-' || buf[e] == '/') {
		sep := buf[e]
		if digits(e+1, 2) && e+3 < len(buf) && buf[e+3] == sep && digits(e+4, 2) {
			return e + 6, true
		}
	}
	if n.intLen <= 2 && e < len(buf) {
		switch buf[e] {
		case '/':
			for _, w := range []int{1, 2} {
				if digits(e+1, w) && e+1+w < len(buf) && buf[e+1+w] == '/' && digits(e+2+w, 4) {
					return e + 6 + w, true
				}
			}
		case ':':
			if digits(e+1, 2) {
				end := e + 3
				if end < len(buf) && buf[end] == ':' && digits(end+1, 2) {
					end += 3
				}
				return end, true
			}
		}
	}
	if n.intLen != 4 && n.intLen > 2 {
		return 0, false
	}
	if w, _ := prevWord(buf, at); monthWords[strings.ToLower(w)] {
		return e, true
	}
	if n.intLen <= 2 && monthWords[nextWord(buf, e)] {
		return e, true
	}
	if n.intLen == 4 {
		// "March 5, 2024": a day and a comma between the month and the year
		j := at
		for j > 0 && buf[j-1] == ' ' {
			j--
		}
		if j > 0 && buf[j-1] == ',' {
			j--
			k := j
			for k > 0 && isDigit(buf[k-1]) {
				k--
			}
			if j-k >= 1 && j-k <= 2 {
				if w, _ := prevWord(buf, k); monthWords[strings.ToLower(w)] {
					return e, true
				}
			}
		}
	}
	return 0, false
}

// isCitationYear recognises the year of a citation: a year (1900–2099,
// optionally with a letter suffix as in 2020a) right after "et al." or,
// inside parentheses or brackets, alone or right after an author's name
// (a capitalised word), optionally with a comma: (Smith, 2020),
// [Smith and Jones 2019a], Smith et al. 2021, (2018).
func isCitationYear(buf []byte, at, end int, n parsedNumber, inGroup func(int) bool) bool {
	if n.intLen != 4 || n.hasFrac || n.hasExp || n.sign || n.groups {
		return false
	}
	if n.value < 1900 || n.value > 2099 {
		return false
	}
	if end < len(buf) && isLetter(buf[end]) {
		suffix := buf[end] >= 'a' && buf[end] <= 'z' && (end+1 == len(buf) || !isLetter(buf[end+1]))
		if !suffix {
			return false
		}
	}
	j := at
	for j > 0 && (buf[j-1] == ' ' || buf[j-1] == ',') {
		j--
	}
	w, dot := prevWord(buf, j)
	if w == "al" && dot {
		return true
	}
	if !inGroup(at) {
		return false
	}
	if j > 0 && (buf[j-1] == '(' || buf[j-1] == '[' || buf[j-1] == ';') {
		return true
	}
	if w == "" || dot {
		return false
	}
	r, _ := utf8.DecodeRuneInString(w)
	return unicode.IsUpper(r)
}

// groupDepths returns, for each byte offset, how many ( or [ are open
// before it.
func groupDepths(buf []byte) []int32 {
	out := make([]int32, len(buf)+1)
	var d int32
	for k, c := range buf {
		out[k] = d
		switch c {
		case '(', '[':
			d++
		case ')', ']':
			if d > 0 {
				d--
			}
		}
	}
	out[len(buf)] = d
	return out
}

func isOrdinal(buf []byte, end int) bool {
	if end+2 > len(buf) {
		return false
	}
	suf := strings.ToLower(string(buf[end : end+2]))
	if suf != "st" && suf != "nd" && suf != "rd" && suf != "th" {
		return false
	}
	return end+2 == len(buf) || !isLetter(buf[end+2])
}

// isReference reports whether the number follows a word that numbers a
// part of a document (Figure 2, Fig. 2, Table 3, Section 4, p. 12, Stage 4,
// LAW 4), possibly with an opening parenthesis between.
func isReference(buf []byte, at int) bool {
	j := at
	if j > 0 && buf[j-1] == '(' {
		j--
	}
	w, dot := prevWord(buf, j)
	w = strings.ToLower(w)
	if dot {
		return referenceWords[w+"."]
	}
	return referenceWords[w]
}

// continuesReference: "Figures 2–4", "Tables 1, 2 and 5".
func continuesReference(buf []byte, prevEnd, at int) bool {
	if prevEnd > at {
		return false
	}
	gap := strings.TrimSpace(string(buf[prevEnd:at]))
	switch gap {
	case ",", "-", "–", "and", "&", ", and", "to":
		return true
	}
	return false
}

// isSampleSize reports an "n = …" (or N=, n:) just before start.
func isSampleSize(buf []byte, start int) bool {
	j := start
	for j > 0 && buf[j-1] == ' ' {
		j--
	}
	if j == 0 || (buf[j-1] != '=' && buf[j-1] != ':') {
		return false
	}
	j--
	for j > 0 && buf[j-1] == ' ' {
		j--
	}
	if j == 0 || (buf[j-1] != 'n' && buf[j-1] != 'N') {
		return false
	}
	return j == 1 || !isAlnum(buf[j-2])
}

// prevWord returns the word (letters or §, as written) that ends just
// before at, skipping spaces, and whether a dot follows it ("Fig." gives
// "Fig", true). A word glued to a digit or '_' on its left is no word.
func prevWord(buf []byte, at int) (string, bool) {
	j := at
	for j > 0 && buf[j-1] == ' ' {
		j--
	}
	dot := false
	if j > 0 && buf[j-1] == '.' {
		dot = true
		j--
	}
	k := j
	for k > 0 {
		r, ps := runeBefore(buf, k)
		if unicode.IsLetter(r) || r == '§' {
			k = ps
			continue
		}
		break
	}
	if k == j {
		return "", false
	}
	if k > 0 {
		if r, _ := runeBefore(buf, k); unicode.IsDigit(r) || r == '_' {
			return "", false
		}
	}
	return string(buf[k:j]), dot
}

func nextWord(buf []byte, at int) string {
	j := at
	for j < len(buf) && buf[j] == ' ' {
		j++
	}
	k := j
	for k < len(buf) && isLetter(buf[k]) {
		k++
	}
	return strings.ToLower(string(buf[j:k]))
}

// confidenceWords follow a percentage that is the level of an interval
// ("95% CI", "90% confidence interval", "89% HDI"), compared lower-case.
var confidenceWords = []string{"ci", "cis", "ci:", "ci,", "ci)", "confidence", "credible", "cri", "hdi", "hpd", "prediction", "interval", "intervals", "coverage level", "level"}

// isConfidenceLevel reports whether the percentage ending at after names an
// interval's level rather than a reported value.
func isConfidenceLevel(buf []byte, after int) bool {
	j := skipSpaces(buf, after, 1)
	if j < len(buf) && buf[j] == '-' { // "95%-CI"
		j++
	}
	rest := strings.ToLower(string(buf[j:min(len(buf), j+24)]))
	for _, w := range confidenceWords {
		if strings.HasPrefix(rest, w) {
			end := len(w)
			if end == len(rest) || !isWordRune(rune(rest[end])) {
				return true
			}
		}
	}
	return false
}

func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }
