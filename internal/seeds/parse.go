package seeds

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/vibe-science/vibe/internal/claim"
	"github.com/vibe-science/vibe/internal/markdown"
)

// The seed statuses and sources of formats/serendipity.md.
const (
	StatusPendingTriage   = "PENDING_TRIAGE"
	StatusQueued          = "QUEUED"
	StatusTesting         = "TESTING"
	StatusKilled          = "KILLED"
	StatusPromotedToClaim = "PROMOTED_TO_CLAIM"

	SourceScanner     = "SCANNER"
	SourceSalvaged    = "SALVAGED_FROM_R2"
	SourceCrossBranch = "CROSS_BRANCH"
	SourceUser        = "USER"
	minFalsifiers     = 3
	maxScore          = 20
)

// FileName is the seeds file in the project's research folder.
const FileName = "SERENDIPITY.md"

var statuses = []string{StatusPendingTriage, StatusQueued, StatusTesting, StatusKilled, StatusPromotedToClaim}

var sources = []string{SourceScanner, SourceSalvaged, SourceCrossBranch, SourceUser}

// Seed is one entry of SERENDIPITY.md in the parsed form of
// schemas/serendipity-seed.schema.json. Line is the line of its heading;
// Errors are its problems (a seed with any is not valid and is not synced).
type Seed struct {
	ID                  string   `json:"seed_id"`
	Title               string   `json:"title"`
	Status              string   `json:"status,omitempty"`
	Source              string   `json:"source,omitempty"`
	Score               *int     `json:"score,omitempty"`
	CausalQuestion      string   `json:"causal_question,omitempty"`
	DiscriminatingTest  string   `json:"discriminating_test,omitempty"`
	FallbackTest        string   `json:"fallback_test,omitempty"`
	Falsifiers          []string `json:"falsifiers,omitempty"`
	SalvagedFrom        string   `json:"salvaged_from,omitempty"`
	ExpectedValue       string   `json:"expected_value,omitempty"`
	SourceRunID         string   `json:"source_run_id,omitempty"`
	Pointers            []string `json:"pointers,omitempty"`
	CreatedCycle        *int     `json:"created_cycle,omitempty"`
	TriageDeadlineCycle *int     `json:"triage_deadline_cycle,omitempty"`
	Created             string   `json:"created,omitempty"`
	Resolution          string   `json:"resolution,omitempty"`

	Line   int     `json:"-"`
	Errors []error `json:"-"`
}

// Valid reports whether the seed parsed without a problem.
func (s Seed) Valid() bool { return len(s.Errors) == 0 }

// ParseError is one problem in SERENDIPITY.md: its line, the seed (when
// known) and what to change.
type ParseError struct {
	Line int
	Seed string
	Msg  string
}

// Error renders "SERENDIPITY.md line N: SEED-…: message".
func (e *ParseError) Error() string {
	if e.Seed != "" {
		return fmt.Sprintf("%s line %d: %s: %s", FileName, e.Line, e.Seed, e.Msg)
	}
	return fmt.Sprintf("%s line %d: %s", FileName, e.Line, e.Msg)
}

// listFields hold lists: items as indented bullets below an empty value, or
// one line separated by "; ".
var listFields = map[string]bool{"falsifiers": true, "pointers": true}

// knownFields are the keys of the format; others are ignored.
var knownFields = map[string]bool{"status": true, "source": true, "score": true, "causal-question": true,
	"discriminating-test": true, "falsifiers": true, "salvaged-from": true, "created": true, "fallback-test": true,
	"expected-value": true, "source-run-id": true, "pointers": true, "created-cycle": true,
	"triage-deadline-cycle": true, "resolution": true}

// Parse reads SERENDIPITY.md (skill/vibe/formats/serendipity.md) and returns
// every entry it finds, valid or not, in file order, and every problem.
// An entry starts at a level-2 heading "SEED-YYYYMMDD-NNN: title" and ends
// at the next level-1 or level-2 heading; its fields are "- key: value"
// lines at the start of a line. It is tolerant where people vary and the
// meaning is clear: bold keys (- **status:** x or - **status**: x), "*"
// bullets, underscores or spaces for hyphens and any case in keys, lower-case
// or hyphenated enum values (pending-triage), backticks around values, claim
// ids as C006 or c-006, and "13/20" for a score. Fenced code and HTML
// comments are skipped. A problem never stops the rest of the file from
// being read.
func Parse(content []byte) ([]Seed, []error) {
	p := &parser{seen: map[string]int{}}
	var fences markdown.Fences
	comment := false
	lines := strings.Split(string(content), "\n")
	for i, raw := range lines {
		line := strings.TrimRight(raw, "\r")
		n := i + 1
		if comment {
			end := strings.Index(line, "-->")
			if end < 0 {
				continue
			}
			comment = false
			line = line[end+3:]
		}
		if fences.Step(line) {
			p.endList()
			continue
		}
		line, comment = stripComments(line)
		if strings.TrimSpace(line) == "" {
			continue
		}
		p.line(line, n)
	}
	p.finish()
	var errs []error
	for _, s := range p.out {
		errs = append(errs, s.Errors...)
	}
	return p.out, append(p.fileErrs, errs...)
}

// stripComments removes <!-- … --> spans from one line and reports whether
// a comment stays open at its end.
func stripComments(line string) (string, bool) {
	for {
		i := strings.Index(line, "<!--")
		if i < 0 {
			return line, false
		}
		j := strings.Index(line[i+4:], "-->")
		if j < 0 {
			return line[:i], true
		}
		line = line[:i] + line[i+4+j+3:]
	}
}

type parser struct {
	out      []Seed
	cur      *Seed
	seen     map[string]int // seed id → line of first heading
	fields   map[string]bool
	list     string // list field collecting indented items
	fileErrs []error
}

func (p *parser) errorf(line int, format string, a ...any) {
	e := &ParseError{Line: line, Msg: fmt.Sprintf(format, a...)}
	if p.cur != nil {
		e.Seed = p.cur.ID
		p.cur.Errors = append(p.cur.Errors, e)
		return
	}
	p.fileErrs = append(p.fileErrs, e)
}

func (p *parser) endList() { p.list = "" }

func (p *parser) line(line string, n int) {
	if lvl := headingLevel(line); lvl == 1 || lvl == 2 {
		p.finish()
		if lvl == 2 {
			p.heading(strings.TrimSpace(strings.TrimSpace(line)[2:]), n)
		}
		return
	}
	if p.cur == nil {
		return
	}
	indented := line[0] == ' ' || line[0] == '\t'
	t := strings.TrimSpace(line)
	item, isBullet := bullet(t)
	if indented {
		if p.list != "" && isBullet {
			if v := cleanValue(item); v != "" {
				p.addItem(p.list, v)
			}
		}
		return
	}
	p.endList()
	if !isBullet {
		return // free notes
	}
	key, value, ok := fieldLine(item)
	if !ok || !knownFields[key] {
		return
	}
	if p.fields[key] {
		p.errorf(n, "%s is given twice; keep one line", key)
	}
	p.fields[key] = true
	p.set(key, value, n)
}

// heading starts an entry at a level-2 heading that names a seed; other
// level-2 headings are sections of notes.
func (p *parser) heading(text string, n int) {
	idTok := text
	title, hasColon := "", false
	if i := strings.IndexByte(text, ':'); i >= 0 {
		idTok, title, hasColon = text[:i], strings.TrimSpace(text[i+1:]), true
	} else if i := strings.IndexAny(text, " \t"); i >= 0 {
		idTok, title = text[:i], strings.TrimSpace(text[i+1:])
	}
	idTok = strings.Trim(strings.TrimSpace(idTok), "*`")
	if !strings.HasPrefix(strings.ToUpper(idTok), "SEED") {
		return
	}
	s := Seed{ID: idTok, Title: title, Line: n}
	p.out = append(p.out, s)
	p.cur = &p.out[len(p.out)-1]
	p.fields = map[string]bool{}
	if !validSeedID(idTok) {
		p.errorf(n, "id must be SEED-YYYYMMDD-NNN (the creation date and a 3-digit number), not %q", idTok)
	}
	if !hasColon || title == "" {
		p.errorf(n, "a title after a colon is required: ## %s: <short title>", idTok)
	}
	if first, dup := p.seen[idTok]; dup {
		p.errorf(n, "the id is already used at line %d; give this seed the next free number", first)
	} else {
		p.seen[idTok] = n
	}
}

func validSeedID(s string) bool {
	if len(s) != len("SEED-20260112-001") || !strings.HasPrefix(s, "SEED-") || s[13] != '-' {
		return false
	}
	if _, err := time.Parse("20060102", s[5:13]); err != nil {
		return false
	}
	return allDigits(s[14:])
}

func allDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// bullet returns the text after a "- " or "* " bullet.
func bullet(t string) (string, bool) {
	if len(t) >= 2 && (t[0] == '-' || t[0] == '*') && (t[1] == ' ' || t[1] == '\t') {
		return strings.TrimSpace(t[2:]), true
	}
	return "", false
}

// fieldLine splits "key: value", "**key:** value" or "**key**: value",
// normalising the key (lower case, hyphens).
func fieldLine(item string) (string, string, bool) {
	var key, value string
	if strings.HasPrefix(item, "**") {
		rest := item[2:]
		end := strings.Index(rest, "**")
		if end < 0 {
			return "", "", false
		}
		key, value = rest[:end], rest[end+2:]
		if strings.HasSuffix(key, ":") {
			key = strings.TrimSuffix(key, ":")
		} else if v, ok := strings.CutPrefix(strings.TrimSpace(value), ":"); ok {
			value = v
		} else {
			return "", "", false
		}
	} else {
		i := strings.IndexByte(item, ':')
		if i < 0 {
			return "", "", false
		}
		key, value = item[:i], item[i+1:]
	}
	key = strings.ToLower(strings.Trim(strings.TrimSpace(key), "`"))
	key = strings.NewReplacer("_", "-", " ", "-").Replace(key)
	return key, strings.TrimSpace(value), true
}

// cleanValue trims spaces and backticks around a value.
func cleanValue(v string) string {
	return strings.TrimSpace(strings.Trim(strings.TrimSpace(v), "`"))
}

// enumValue canonicalises an enum value: upper case, hyphens and spaces as
// underscores.
func enumValue(v string, allowed []string) (string, bool) {
	c := strings.ToUpper(strings.NewReplacer("-", "_", " ", "_").Replace(cleanValue(v)))
	for _, a := range allowed {
		if a == c {
			return c, true
		}
	}
	return c, false
}

func (p *parser) addItem(key, v string) {
	switch key {
	case "falsifiers":
		p.cur.Falsifiers = append(p.cur.Falsifiers, v)
	case "pointers":
		p.cur.Pointers = append(p.cur.Pointers, v)
	}
}

func (p *parser) set(key, value string, n int) {
	s := p.cur
	if listFields[key] {
		if value == "" {
			p.list = key
			return
		}
		for _, item := range strings.Split(value, ";") {
			if v := cleanValue(item); v != "" {
				p.addItem(key, v)
			}
		}
		return
	}
	v := cleanValue(value)
	switch key {
	case "status":
		c, ok := enumValue(v, statuses)
		if !ok {
			p.errorf(n, "status must be one of %s, not %q", strings.Join(statuses, ", "), v)
		}
		s.Status = c
	case "source":
		c, ok := enumValue(v, sources)
		if !ok {
			p.errorf(n, "source must be one of %s, not %q", strings.Join(sources, ", "), v)
		}
		s.Source = c
	case "score":
		num, _ := strings.CutSuffix(strings.ReplaceAll(v, " ", ""), "/20")
		sc, err := strconv.Atoi(num)
		if err != nil || sc < 0 || sc > maxScore {
			p.errorf(n, "score must be an integer 0-20, not %q", v)
			return
		}
		s.Score = &sc
	case "causal-question":
		s.CausalQuestion = v
	case "discriminating-test":
		s.DiscriminatingTest = v
	case "fallback-test":
		s.FallbackTest = v
	case "salvaged-from":
		id, ok := claim.NormaliseID(v)
		if !ok {
			p.errorf(n, "salvaged-from must be a claim id like C-006, not %q", v)
			return
		}
		s.SalvagedFrom = id
	case "created":
		if _, err := time.Parse("2006-01-02", v); err != nil {
			p.errorf(n, "created must be a date YYYY-MM-DD, not %q", v)
			return
		}
		s.Created = v
	case "expected-value":
		s.ExpectedValue = v
	case "source-run-id":
		s.SourceRunID = v
	case "resolution":
		s.Resolution = v
	case "created-cycle", "triage-deadline-cycle":
		c, err := strconv.Atoi(v)
		if err != nil || c < 0 {
			p.errorf(n, "%s must be a whole number of cycles, not %q", key, v)
			return
		}
		if key == "created-cycle" {
			s.CreatedCycle = &c
		} else {
			s.TriageDeadlineCycle = &c
		}
	}
}

// finish closes the current entry and checks what the format requires.
func (p *parser) finish() {
	p.endList()
	s := p.cur
	if s == nil {
		return
	}
	n := s.Line
	missing := func(key, what string) { p.errorf(n, "%s is required: add \"- %s: %s\"", key, key, what) }
	if !p.fields["status"] {
		missing("status", "PENDING_TRIAGE")
	}
	if !p.fields["source"] {
		missing("source", "SCANNER")
	}
	if !p.fields["score"] {
		missing("score", "<0-20>")
	}
	if s.CausalQuestion == "" {
		missing("causal-question", "<what might cause what>")
	}
	if s.DiscriminatingTest == "" {
		missing("discriminating-test", "<the one test that would tell>")
	}
	if len(s.Falsifiers) < minFalsifiers {
		p.errorf(n, "at least 3 falsifiers are required (found %d): list ways the pattern could be an illusion", len(s.Falsifiers))
	}
	if s.Source == SourceSalvaged && s.SalvagedFrom == "" && !p.fields["salvaged-from"] {
		p.errorf(n, "salvaged-from is required for a salvaged seed: add \"- salvaged-from: C-NNN\" naming the killed claim")
	}
	if !p.fields["created"] {
		missing("created", "YYYY-MM-DD")
	}
	p.cur = nil
}

// headingLevel is the ATX heading level of line (0 when it is none).
func headingLevel(line string) int {
	i := 0
	for i < len(line) && i < 3 && line[i] == ' ' {
		i++
	}
	n := 0
	for i+n < len(line) && line[i+n] == '#' {
		n++
	}
	if n == 0 || n > 6 || i+n >= len(line) || (line[i+n] != ' ' && line[i+n] != '\t') {
		return 0
	}
	return n
}
