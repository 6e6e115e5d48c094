package claim

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/vibe-science/vibe/internal/markdown"
)

// Claim is one entry of the claim ledger. Status, Type and KillReason hold
// canonical values (PROVISIONAL, correlative, CONFOUNDED) or "" when the
// ledger gave none or one the parser could not read; Tier is the tier after
// defaulting from Type. Line is the 1-based line of the claim's heading or
// table row.
type Claim struct {
	ID, Title, Status, Type string
	Tier                    int
	Confidence              float64
	HasConfidence           bool
	Evidence, DependsOn     []string
	KillReason              string
	SalvagedSeed            string
	Line                    int
}

// Ledger is a parsed CLAIM-LEDGER.md: its claims in file order, each id once.
type Ledger struct {
	Claims []Claim
}

// Find returns the claim with the given id (normalised first) and whether the
// ledger holds it.
func (l Ledger) Find(id string) (Claim, bool) {
	if n, ok := NormaliseID(id); ok {
		id = n
	}
	for _, c := range l.Claims {
		if c.ID == id {
			return c, true
		}
	}
	return Claim{}, false
}

// ParseError is one problem in a ledger: the line it is on, the claim it
// belongs to (when known) and what to change.
type ParseError struct {
	Line  int
	Claim string
	Msg   string
}

// Error renders the problem as "line N: C-001: message".
func (e *ParseError) Error() string {
	if e.Claim != "" {
		return fmt.Sprintf("line %d: %s: %s", e.Line, e.Claim, e.Msg)
	}
	return fmt.Sprintf("line %d: %s", e.Line, e.Msg)
}

// The canonical field names; fieldAliases maps what people write onto them.
const (
	fieldID           = "id"
	fieldTitle        = "title"
	fieldStatus       = "status"
	fieldType         = "type"
	fieldTier         = "tier"
	fieldConfidence   = "confidence"
	fieldEvidence     = "evidence"
	fieldDependsOn    = "depends-on"
	fieldKillReason   = "kill-reason"
	fieldSalvagedSeed = "salvaged-seed"
)

var fieldAliases = map[string]string{
	"id": fieldID, "claim": fieldID, "claim-id": fieldID,
	"title": fieldTitle, "claim-text": fieldTitle, "statement": fieldTitle,
	"status": fieldStatus,
	"type":   fieldType, "claim-type": fieldType,
	"tier":       fieldTier,
	"confidence": fieldConfidence,
	"evidence":   fieldEvidence, "evidence-chain": fieldEvidence,
	"depends-on": fieldDependsOn, "depends": fieldDependsOn, "dependencies": fieldDependsOn,
	"kill-reason":   fieldKillReason,
	"salvaged-seed": fieldSalvagedSeed, "seed": fieldSalvagedSeed,
}

// pending is a claim being read, with what finishing it needs to know.
type pending struct {
	c         Claim
	fields    map[string]int // canonical field → line it was given on
	tierGiven bool
	drop      bool // a duplicate id: read its fields, keep nothing
}

type parser struct {
	claims []Claim
	errs   []error
	seen   map[string]int // claim id → line of its first definition
	// depLine is the line of each kept claim's depends-on field.
	depLine map[string]int
	cur     *pending
	// listField is the list field (evidence, depends-on) whose value was left
	// empty, so nested bullets under it are its items.
	listField string
}

// ParseLedger reads a claim ledger in heading form, table form or both (see
// skill/vibe/formats/claim-ledger.md). It never fails as a whole: every
// malformed entry becomes a *ParseError with its line number and the rest of
// the ledger is still returned. Text inside fenced code blocks and HTML
// comments is ignored.
func ParseLedger(content []byte) (Ledger, []error) {
	text := strings.TrimPrefix(string(content), "\ufeff")
	lines := strings.Split(text, "\n")
	p := parser{seen: map[string]int{}, depLine: map[string]int{}}
	var fences markdown.Fences
	inComment := false
	var cols []string // columns of the ledger table being read, nil outside one
	inTable := false
	for i := 0; i < len(lines); i++ {
		lineNo := i + 1
		raw := strings.TrimSuffix(lines[i], "\r")
		t := strings.TrimSpace(raw)
		if inComment {
			if strings.Contains(t, "-->") {
				inComment = false
			}
			continue
		}
		if fences.Step(raw) {
			p.listField = ""
			continue
		}
		if strings.HasPrefix(t, "<!--") {
			if !strings.Contains(t[4:], "-->") {
				inComment = true
			}
			continue
		}
		if inTable {
			if strings.HasPrefix(t, "|") {
				if cols != nil {
					p.tableRow(cols, t, lineNo)
				}
				continue
			}
			inTable, cols = false, nil
		}
		if strings.HasPrefix(t, "|") && i+1 < len(lines) && isSeparatorRow(strings.TrimSpace(lines[i+1])) {
			inTable = true
			cols = ledgerColumns(splitRow(t))
			if cols != nil {
				p.finish() // a ledger table ends the claim above it
			}
			i++ // the separator row
			continue
		}
		if level, htext := heading(t); level > 0 {
			if level <= 3 {
				p.finish()
			}
			if level == 2 || level == 3 {
				p.claimHeading(htext, lineNo)
			}
			continue
		}
		if p.cur == nil || t == "" {
			continue
		}
		p.bodyLine(raw, t, lineNo)
	}
	p.finish()
	p.checkDependencies()
	sort.SliceStable(p.errs, func(i, j int) bool {
		return p.errs[i].(*ParseError).Line < p.errs[j].(*ParseError).Line
	})
	return Ledger{Claims: p.claims}, p.errs
}

// checkDependencies reports depends-on entries naming a claim the ledger
// does not hold: the evidence graph would have a dangling edge, and a
// reader could not check what the claim rests on.
func (p *parser) checkDependencies() {
	for _, c := range p.claims {
		for _, d := range c.DependsOn {
			if _, ok := p.seen[d]; !ok {
				p.errorf(p.depLine[c.ID], c.ID, "depends-on %s, which is not in the ledger; add that claim or remove the dependency", d)
			}
		}
	}
}

func (p *parser) errorf(line int, claim, format string, args ...any) {
	p.errs = append(p.errs, &ParseError{Line: line, Claim: claim, Msg: fmt.Sprintf(format, args...)})
}

// claimHeading starts a claim from a level-2 or level-3 heading, or reports a
// heading that looks like a claim but carries a malformed id.
func (p *parser) claimHeading(text string, line int) {
	tok, rest := splitIDToken(text)
	id, ok := NormaliseID(tok)
	if !ok {
		if looksLikeID(tok) {
			p.errorf(line, "", "heading %q does not start with a valid claim id; claim ids are C- followed by at least 3 digits, e.g. C-001", text)
		}
		return
	}
	p.begin(id, headingTitle(rest), line)
}

func (p *parser) begin(id, title string, line int) {
	pc := &pending{c: Claim{ID: id, Title: title, Line: line}, fields: map[string]int{}}
	if first, dup := p.seen[id]; dup {
		p.errorf(line, id, "claim is already defined at line %d; give this entry a new id or merge the two", first)
		pc.drop = true
	} else {
		p.seen[id] = line
	}
	p.cur = pc
	p.listField = ""
}

// bodyLine reads one non-blank line under a claim heading: a bullet field,
// a nested bullet continuing a list field, or a bold "**key:** value" line.
func (p *parser) bodyLine(raw, t string, line int) {
	item, isBullet := bulletText(t)
	if !isBullet {
		p.listField = ""
		if !strings.HasPrefix(t, "**") && !strings.HasPrefix(t, "__") {
			return
		}
		item = t
	}
	key, value, hasColon := strings.Cut(item, ":")
	canon := ""
	if hasColon {
		canon = fieldAliases[fieldKey(key)]
	}
	if isBullet && p.listField != "" && indentOf(raw) >= 2 && canon == "" {
		p.addList(p.listField, item, line)
		return
	}
	p.listField = ""
	if canon == "" || canon == fieldID || canon == fieldTitle {
		return // prose, notes and fields the heading already gives
	}
	p.setField(p.cur, canon, cleanValue(value), line)
	if (canon == fieldEvidence || canon == fieldDependsOn) && cleanValue(value) == "" {
		p.listField = canon
	}
}

// setField stores one field of pc, reporting duplicates and bad values.
func (p *parser) setField(pc *pending, field, value string, line int) {
	c := &pc.c
	if first, dup := pc.fields[field]; dup {
		p.errorf(line, c.ID, "field %s is given twice (first at line %d); keep one", field, first)
		return
	}
	pc.fields[field] = line
	switch field {
	case fieldTitle:
		c.Title = value
	case fieldStatus:
		if v, ok := enumValue(value, statuses, strings.ToUpper); ok {
			c.Status = v
		} else {
			p.errorf(line, c.ID, "status %q is not a claim status; use one of %s", value, strings.Join(statuses, ", "))
		}
	case fieldType:
		if v, ok := enumValue(value, types, strings.ToLower); ok {
			c.Type = v
		} else {
			p.errorf(line, c.ID, "type %q is not a claim type; use one of %s", value, strings.Join(types, ", "))
		}
	case fieldKillReason:
		if v, ok := enumValue(value, killReasons, killKey); ok {
			c.KillReason = v
		} else {
			p.errorf(line, c.ID, "kill-reason %q is not a kill reason; use one of %s", value, strings.Join(killReasons, ", "))
		}
	case fieldTier:
		n, err := strconv.Atoi(firstToken(commentless(value)))
		if err != nil || n < 0 || n > MaxTier {
			p.errorf(line, c.ID, "tier %q is not a tier; write a whole number from 0 to %d or leave it out to default from the type", value, MaxTier)
			return
		}
		c.Tier, pc.tierGiven = n, true
	case fieldConfidence:
		f, ok := parseConfidence(value)
		if !ok {
			p.errorf(line, c.ID, "confidence %q is not a number from 0 to 1; write it like 0.62 (or 62%%)", value)
			return
		}
		c.Confidence, c.HasConfidence = f, true
	case fieldEvidence, fieldDependsOn:
		p.addList(field, value, line)
	case fieldSalvagedSeed:
		v := strings.ToUpper(firstToken(commentless(value)))
		if !isSeedID(v) {
			p.errorf(line, c.ID, "salvaged-seed %q is not a seed id; seed ids look like SEED-20260101-001", value)
			return
		}
		c.SalvagedSeed = v
	}
}

// addList appends the items of value to a list field of the current claim.
func (p *parser) addList(field, value string, line int) {
	c := &p.cur.c
	for _, item := range splitList(value) {
		if field == fieldEvidence {
			c.Evidence = append(c.Evidence, item)
			continue
		}
		for _, tok := range strings.Fields(item) {
			id, ok := NormaliseID(strings.Trim(tok, ".,;"))
			if !ok {
				p.errorf(line, c.ID, "depends-on lists %q, which is not a claim id; list ids like C-001 separated by commas", tok)
				continue
			}
			if !slices.Contains(c.DependsOn, id) {
				c.DependsOn = append(c.DependsOn, id)
			}
		}
	}
}

// finish closes the current claim: it checks what needs the whole entry and
// appends the claim unless its id was a duplicate.
func (p *parser) finish() {
	pc := p.cur
	if pc == nil {
		return
	}
	p.cur, p.listField = nil, ""
	if pc.drop {
		return // the duplicate is already reported; its own faults would only repeat it
	}
	c := &pc.c
	if _, given := pc.fields[fieldStatus]; !given {
		p.errorf(c.Line, c.ID, "claim has no status; add `- status: PROVISIONAL` (or fill its status cell) with one of %s", strings.Join(statuses, ", "))
	}
	if _, given := pc.fields[fieldType]; !given && (c.Status == StatusPromoted || c.Status == StatusVerified) {
		p.errorf(c.Line, c.ID, "claim is %s without a type; add `- type:` with one of %s", c.Status, strings.Join(types, ", "))
	}
	if _, given := pc.fields[fieldKillReason]; !given && c.Status == StatusKilled {
		p.errorf(c.Line, c.ID, "claim is KILLED without a kill-reason; add `- kill-reason:` with one of %s", strings.Join(killReasons, ", "))
	}
	switch m := minTier(c.Type); {
	case !pc.tierGiven:
		c.Tier = DefaultTier(c.Type)
	case c.Tier < m:
		p.errorf(pc.fields[fieldTier], c.ID, "tier %d is below tier %d of a %s claim, so the gates of tier %d apply; raise the tier or correct the type", c.Tier, m, c.Type, m)
		c.Tier = m
	}
	p.claims = append(p.claims, *c)
	if line, ok := pc.fields[fieldDependsOn]; ok {
		p.depLine[c.ID] = line
	}
}

// tableRow reads one row of a ledger table whose columns are cols.
func (p *parser) tableRow(cols []string, t string, line int) {
	cells := splitRow(t)
	empty := true
	for _, c := range cells {
		if c != "" {
			empty = false
			break
		}
	}
	if empty {
		return
	}
	var idCell string
	for i, col := range cols {
		if col == fieldID && i < len(cells) {
			idCell = cells[i]
		}
	}
	id, ok := NormaliseID(firstToken(commentless(idCell)))
	if !ok {
		p.errorf(line, "", "table row id %q is not a claim id; claim ids are C- followed by at least 3 digits, e.g. C-001", idCell)
		return
	}
	p.begin(id, "", line)
	for i, col := range cols {
		if col == "" || col == fieldID || i >= len(cells) {
			continue
		}
		v := cleanValue(cells[i])
		if v == "" {
			continue // an empty cell means "not given"
		}
		p.setField(p.cur, col, v, line)
	}
	p.finish()
}

// ledgerColumns maps header cells to canonical fields, or returns nil when the
// table is not a claim table (it needs an id and a status column).
func ledgerColumns(header []string) []string {
	cols := make([]string, len(header))
	hasID, hasStatus := false, false
	for i, h := range header {
		f := fieldAliases[fieldKey(h)]
		if f == fieldID && hasID {
			f = ""
		}
		cols[i] = f
		hasID = hasID || f == fieldID
		hasStatus = hasStatus || f == fieldStatus
	}
	if !hasID || !hasStatus {
		return nil
	}
	return cols
}

// splitRow splits a markdown table row into trimmed cells; `\|` stays a pipe.
func splitRow(t string) []string {
	t = strings.TrimPrefix(t, "|")
	if strings.HasSuffix(t, "|") && !strings.HasSuffix(t, `\|`) {
		t = t[:len(t)-1]
	}
	var cells []string
	start := 0
	for i := 0; i < len(t); i++ {
		if t[i] == '|' && (i == 0 || t[i-1] != '\\') {
			cells = append(cells, cell(t[start:i]))
			start = i + 1
		}
	}
	return append(cells, cell(t[start:]))
}

func cell(s string) string {
	return strings.ReplaceAll(strings.TrimSpace(s), `\|`, "|")
}

// isSeparatorRow reports whether t is a table's |---|:---:| line.
func isSeparatorRow(t string) bool {
	if !strings.HasPrefix(t, "|") {
		return false
	}
	for _, c := range splitRow(t) {
		c = strings.Trim(c, ":")
		if c == "" || strings.Trim(c, "-") != "" {
			return false
		}
	}
	return true
}

// heading returns the level and text of an ATX heading, or 0.
func heading(t string) (int, string) {
	n := 0
	for n < len(t) && t[n] == '#' {
		n++
	}
	if n == 0 || n > 6 || (n < len(t) && t[n] != ' ' && t[n] != '\t') {
		return 0, ""
	}
	text := strings.TrimSpace(t[n:])
	// An optional closing sequence of #s, preceded by a space, is not text.
	if trimmed := strings.TrimRight(text, "#"); trimmed != text && (trimmed == "" || strings.HasSuffix(trimmed, " ")) {
		text = strings.TrimSpace(trimmed)
	}
	return n, text
}

// splitIDToken splits a heading's text into its leading id-like token and the
// rest: "**C-001**: Title" gives "**C-001**" and ": Title".
func splitIDToken(text string) (string, string) {
	i := 0
	for i < len(text) {
		b := text[i]
		if b == '*' || b == '`' || b == '_' || b == '-' ||
			(b >= '0' && b <= '9') || (b >= 'A' && b <= 'Z') || (b >= 'a' && b <= 'z') {
			i++
			continue
		}
		break
	}
	return text[:i], text[i:]
}

// looksLikeID reports whether tok is C or c, an optional hyphen and digits:
// meant as a claim id, but possibly with too few digits.
func looksLikeID(tok string) bool {
	tok = strings.Trim(tok, "*`_")
	if len(tok) < 2 || (tok[0] != 'C' && tok[0] != 'c') {
		return false
	}
	d := strings.TrimPrefix(tok[1:], "-")
	if d == "" {
		return false
	}
	for i := 0; i < len(d); i++ {
		if d[i] < '0' || d[i] > '9' {
			return false
		}
	}
	return true
}

// headingTitle drops the one separator between id and title (": ", " — ",
// " - ") and keeps the rest as written.
func headingTitle(rest string) string {
	rest = strings.TrimSpace(rest)
	for _, sep := range []string{":", "—", "–", "- ", "-\t"} {
		if strings.HasPrefix(rest, sep) {
			return strings.TrimSpace(rest[len(sep):])
		}
	}
	if rest == "-" {
		return ""
	}
	return rest
}

// bulletText returns the text after a list marker (-, * or + and a space).
func bulletText(t string) (string, bool) {
	if len(t) >= 2 && (t[0] == '-' || t[0] == '*' || t[0] == '+') && (t[1] == ' ' || t[1] == '\t') {
		return strings.TrimSpace(t[2:]), true
	}
	return "", false
}

// indentOf counts the leading columns of raw, a tab counting as four.
func indentOf(raw string) int {
	n := 0
	for _, r := range raw {
		switch r {
		case ' ':
			n++
		case '\t':
			n += 4
		default:
			return n
		}
	}
	return n
}

// fieldKey turns "**Depends on**" or "Kill_Reason" into "depends-on" and
// "kill-reason", the spelling fieldAliases knows.
func fieldKey(k string) string {
	k = strings.ToLower(strings.Trim(strings.TrimSpace(k), "*_` "))
	k = strings.ReplaceAll(k, "_", "-")
	return strings.ReplaceAll(k, " ", "-")
}

// cleanValue trims a field value and the bold markers left over from
// "**key:** value" or "key: **value**".
func cleanValue(v string) string {
	return strings.Trim(v, "* \t")
}

// commentless drops a trailing remark: "(…)", " # …", " — …", " -- …".
func commentless(v string) string {
	for _, sep := range []string{"(", " #", " — ", " – ", " -- "} {
		if i := strings.Index(v, sep); i >= 0 {
			v = v[:i]
		}
	}
	return strings.Trim(strings.TrimSpace(v), "`\"'")
}

func firstToken(v string) string {
	if i := strings.IndexAny(v, " \t,;"); i >= 0 {
		return v[:i]
	}
	return v
}

// enumValue matches value against allowed after canon, first as a whole
// (for "insufficient evidence") and then by its first word (for
// "PROVISIONAL pending R2").
func enumValue(value string, allowed []string, canon func(string) string) (string, bool) {
	v := commentless(value)
	for _, cand := range []string{canon(v), canon(firstToken(v))} {
		for _, a := range allowed {
			if cand == a {
				return a, true
			}
		}
	}
	return "", false
}

func killKey(s string) string {
	s = strings.ToUpper(strings.TrimSpace(s))
	s = strings.ReplaceAll(s, "-", "_")
	return strings.ReplaceAll(s, " ", "_")
}

// parseConfidence reads 0.62 or 62%, inside [0, 1].
func parseConfidence(value string) (float64, bool) {
	v := firstToken(commentless(value))
	pct := strings.HasSuffix(v, "%")
	v = strings.TrimSuffix(v, "%")
	f, err := strconv.ParseFloat(v, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, false
	}
	if pct {
		f /= 100
	}
	if f < 0 || f > 1 {
		return 0, false
	}
	return f, true
}

// isSeedID reports whether s is SEED-, 8 digits, a hyphen and 3 digits.
func isSeedID(s string) bool {
	if len(s) != len("SEED-20260101-001") || !strings.HasPrefix(s, "SEED-") || s[13] != '-' {
		return false
	}
	for i := 5; i < len(s); i++ {
		if i != 13 && (s[i] < '0' || s[i] > '9') {
			return false
		}
	}
	return true
}

// splitList splits a list value on commas, semicolons and <br>, unwraps
// [text](target) links and backticks, and drops "none"-like placeholders.
func splitList(v string) []string {
	v = strings.ReplaceAll(v, "<br>", ",")
	var out []string
	for _, item := range strings.FieldsFunc(v, func(r rune) bool { return r == ',' || r == ';' }) {
		item = strings.TrimSpace(item)
		if open := strings.Index(item, "]("); strings.HasPrefix(item, "[") && open > 0 && strings.HasSuffix(item, ")") {
			item = item[open+2 : len(item)-1]
		}
		// A remark after a path, "a.json (main result)", is not part of it.
		if open := strings.Index(item, " ("); open > 0 && strings.HasSuffix(item, ")") {
			item = strings.TrimSpace(item[:open])
		}
		item = strings.TrimSpace(strings.Trim(item, "`\"'*"))
		switch strings.ToLower(item) {
		case "", "none", "-", "—", "n/a", "na":
			continue
		}
		out = append(out, item)
	}
	return out
}
