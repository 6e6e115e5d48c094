package brief

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"path"
	"strings"
	"time"

	"github.com/vibe-science/vibe/internal/lazyre"
)

// Severity is how binding a constraint is.
type Severity string

// The severities, from most to least binding.
const (
	Critical Severity = "Critical"
	High     Severity = "High"
	Medium   Severity = "Medium"
	Low      Severity = "Low"
)

// Action is what happens when a write breaks a constraint.
type Action string

// The actions.
const (
	Block          Action = "Block"
	WarnAndConfirm Action = "WarnAndConfirm"
	WarnOnly       Action = "WarnOnly"
	LogOnly        Action = "LogOnly"
)

// DecisionStatus is where a decision stands.
type DecisionStatus string

// The decision statuses; only Accepted decisions reach the session context.
const (
	Proposed   DecisionStatus = "Proposed"
	Accepted   DecisionStatus = "Accepted"
	Deprecated DecisionStatus = "Deprecated"
	Superseded DecisionStatus = "Superseded"
)

// fold lower-cases s and drops separators, so "warn-and-confirm",
// "Warn And Confirm" and "WarnAndConfirm" compare equal.
func fold(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		if r == '-' || r == '_' || r == ' ' || r == '\t' {
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// ParseSeverity reads a severity in any case; ok is false for other words.
func ParseSeverity(s string) (Severity, bool) {
	for _, v := range []Severity{Critical, High, Medium, Low} {
		if fold(s) == fold(string(v)) {
			return v, true
		}
	}
	return Severity(s), false
}

// ParseAction reads an action in any case, with or without separators.
func ParseAction(s string) (Action, bool) {
	for _, v := range []Action{Block, WarnAndConfirm, WarnOnly, LogOnly} {
		if fold(s) == fold(string(v)) {
			return v, true
		}
	}
	return Action(s), false
}

// ParseStatus reads a decision status in any case.
func ParseStatus(s string) (DecisionStatus, bool) {
	for _, v := range []DecisionStatus{Proposed, Accepted, Deprecated, Superseded} {
		if fold(s) == fold(string(v)) {
			return v, true
		}
	}
	return DecisionStatus(s), false
}

// rank orders severities for the session context, most binding first.
func (s Severity) rank() int {
	switch s {
	case Critical:
		return 0
	case High:
		return 1
	case Medium:
		return 2
	case Low:
		return 3
	}
	return 4
}

// UnmarshalJSON normalises a known severity's spelling and keeps an unknown
// one as written, for Validate to report.
func (s *Severity) UnmarshalJSON(raw []byte) error {
	var str string
	if err := json.Unmarshal(raw, &str); err != nil {
		return fmt.Errorf("severity: want a string: %w", err)
	}
	*s, _ = ParseSeverity(str)
	return nil
}

// UnmarshalJSON normalises a known action's spelling and keeps an unknown one
// as written, for Validate to report.
func (a *Action) UnmarshalJSON(raw []byte) error {
	var str string
	if err := json.Unmarshal(raw, &str); err != nil {
		return fmt.Errorf("action: want a string: %w", err)
	}
	*a, _ = ParseAction(str)
	return nil
}

// UnmarshalJSON normalises a known status's spelling and keeps an unknown one
// as written, for Validate to report.
func (d *DecisionStatus) UnmarshalJSON(raw []byte) error {
	var str string
	if err := json.Unmarshal(raw, &str); err != nil {
		return fmt.Errorf("status: want a string: %w", err)
	}
	*d, _ = ParseStatus(str)
	return nil
}

// Constraint is one rule of the brief. AppliesTo holds "path#Symbol" anchors,
// path globs or plain paths (see the package documentation).
type Constraint struct {
	ID        string   `json:"id"`
	Title     string   `json:"title"`
	Severity  Severity `json:"severity"`
	Action    Action   `json:"action"`
	AppliesTo []string `json:"applies_to,omitempty"`
	Rationale string   `json:"rationale,omitempty"`
	Source    string   `json:"source,omitempty"`
}

// Decision is one architectural or methodological decision of the brief.
// Date is YYYY-MM-DD when known.
type Decision struct {
	ID        string         `json:"id"`
	Title     string         `json:"title"`
	Date      string         `json:"date,omitempty"`
	Status    DecisionStatus `json:"status"`
	Text      string         `json:"decision,omitempty"`
	Rationale string         `json:"rationale,omitempty"`
}

// Brief is a parsed research brief. Source is the name it was read from and
// Hash the SHA-256 of its bytes, so its history can tell versions apart.
type Brief struct {
	Title       string       `json:"title"`
	Source      string       `json:"source,omitempty"`
	Hash        string       `json:"hash,omitempty"`
	Constraints []Constraint `json:"constraints"`
	Decisions   []Decision   `json:"decisions"`
	Anchors     []Anchor     `json:"anchors"`
}

// Parse reads a brief from content: JSON when name ends in .json, markdown
// when it ends in .md or .markdown, otherwise JSON if the first non-space
// byte is "{" and markdown if not. It returns what it could read and every
// syntax problem, each naming the file and line; Validate checks the
// meaning. Anchors named in applies-to lists are added to Anchors.
func Parse(name string, content []byte) (Brief, []error) {
	var b Brief
	var errs []error
	lower := strings.ToLower(name)
	switch {
	case strings.HasSuffix(lower, ".json"):
		b, errs = parseJSON(name, content)
	case strings.HasSuffix(lower, ".md"), strings.HasSuffix(lower, ".markdown"):
		b, errs = parseMarkdown(name, content)
	case strings.HasPrefix(strings.TrimLeft(string(content), " \t\r\n\ufeff"), "{"):
		b, errs = parseJSON(name, content)
	default:
		b, errs = parseMarkdown(name, content)
	}
	b.Source = name
	sum := sha256.Sum256(content)
	b.Hash = hex.EncodeToString(sum[:])
	b.collectAnchors()
	if b.Constraints == nil {
		b.Constraints = []Constraint{}
	}
	if b.Decisions == nil {
		b.Decisions = []Decision{}
	}
	if b.Anchors == nil {
		b.Anchors = []Anchor{}
	}
	return b, errs
}

// collectAnchors adds every anchor of an applies-to list that Anchors does
// not hold yet, in order of appearance, so it gets pinned and checked too.
func (b *Brief) collectAnchors() {
	have := make(map[string]bool, len(b.Anchors))
	for _, a := range b.Anchors {
		have[a.String()] = true
	}
	for _, c := range b.Constraints {
		for _, t := range c.AppliesTo {
			if !strings.Contains(t, "#") {
				continue
			}
			a, err := ParseAnchor(t)
			if err != nil || have[a.String()] {
				continue
			}
			have[a.String()] = true
			b.Anchors = append(b.Anchors, a)
		}
	}
}

var idPattern = lazyre.New(`^[A-Za-z][A-Za-z0-9_.-]*$`)

// Validate checks what Parse cannot: a title, unique well-formed ids, known
// severities, actions and statuses, dates as YYYY-MM-DD, applies-to entries
// that are anchors or valid globs, anchors with a language vibe can read,
// and that every Critical constraint with action Block applies to something,
// since otherwise it can never be enforced.
func Validate(b Brief) []error {
	var errs []error
	add := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	if strings.TrimSpace(b.Title) == "" {
		add("brief has no title: start it with \"# Brief: <title>\" (markdown) or set \"title\" (JSON)")
	}
	ids := map[string]string{}
	reported := map[string]bool{}
	checkID := func(kind, id string) {
		switch {
		case id == "":
			add("a %s has no id: give it one such as BC-001 or AD-001", kind)
			return
		case !idPattern.MatchString(id):
			add("%s id %q is not a letter followed by letters, digits, '.', '_' or '-': rename it (e.g. BC-001)", kind, id)
		}
		if prev, dup := ids[id]; dup {
			add("id %s is used by a %s and a %s: ids must be unique, renumber one", id, prev, kind)
		}
		ids[id] = kind
	}
	for _, c := range b.Constraints {
		checkID("constraint", c.ID)
		if strings.TrimSpace(c.Title) == "" {
			add("constraint %s has no title: write it after the id (\"### %s: <title>\")", c.ID, c.ID)
		}
		if _, ok := ParseSeverity(string(c.Severity)); !ok {
			add("constraint %s has severity %q: use Critical, High, Medium or Low", c.ID, c.Severity)
		}
		if _, ok := ParseAction(string(c.Action)); !ok {
			add("constraint %s has action %q: use Block, WarnAndConfirm, WarnOnly or LogOnly", c.ID, c.Action)
		}
		if c.Severity == Critical && c.Action == Block && len(c.AppliesTo) == 0 {
			add("constraint %s is Critical with action Block but applies to nothing, so it cannot be enforced: add an applies-to list of anchors or globs", c.ID)
		}
		for _, t := range c.AppliesTo {
			if err := validTarget(t); err != nil {
				add("constraint %s applies to %q: %v", c.ID, t, err)
				if a, perr := ParseAnchor(t); perr == nil && strings.Contains(t, "#") {
					reported[a.String()] = true
				}
			}
		}
	}
	for _, d := range b.Decisions {
		checkID("decision", d.ID)
		if strings.TrimSpace(d.Title) == "" {
			add("decision %s has no title: write it after the id (\"### %s: <title>\")", d.ID, d.ID)
		}
		if _, ok := ParseStatus(string(d.Status)); !ok {
			add("decision %s has status %q: use Proposed, Accepted, Deprecated or Superseded", d.ID, d.Status)
		}
		if d.Date != "" {
			if _, err := time.Parse("2006-01-02", d.Date); err != nil {
				add("decision %s has date %q: write it as YYYY-MM-DD", d.ID, d.Date)
			}
		}
	}
	for _, a := range b.Anchors {
		if reported[a.String()] {
			continue // already named with its constraint
		}
		if err := a.validate(); err != nil {
			add("anchor %s: %v", a, err)
		}
	}
	return errs
}

// validTarget checks one applies-to entry: an anchor, or a relative glob or
// path that path.Match accepts segment by segment.
func validTarget(t string) error {
	if strings.TrimSpace(t) == "" {
		return fmt.Errorf("empty entry: remove the stray comma")
	}
	if strings.Contains(t, "#") {
		a, err := ParseAnchor(t)
		if err != nil {
			return err
		}
		return a.validate()
	}
	if err := relativePath(t); err != nil {
		return err
	}
	for _, seg := range strings.Split(t, "/") {
		if seg == "**" {
			continue
		}
		if _, err := path.Match(seg, ""); err != nil {
			return fmt.Errorf("segment %q is not a valid glob: %v", seg, err)
		}
	}
	return nil
}

// relativePath rejects paths that leave the project or are absolute, since
// anchors and globs are relative to the project root.
func relativePath(p string) error {
	if strings.HasPrefix(p, "/") || (len(p) > 1 && p[1] == ':') || strings.HasPrefix(p, `\`) {
		return fmt.Errorf("path is absolute: write it relative to the project root")
	}
	for _, seg := range strings.Split(p, "/") {
		if seg == ".." {
			return fmt.Errorf("path leaves the project (..): write it relative to the project root")
		}
	}
	return nil
}
