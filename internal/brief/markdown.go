package brief

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/vibe-science/vibe/internal/lazyre"
	"github.com/vibe-science/vibe/internal/markdown"
)

type section int

const (
	secNone section = iota
	secConstraints
	secDecisions
	secAnchors
	secOther
)

// itemHeading splits "ID: Title", "ID — Title" or "ID - Title".
var itemHeading = lazyre.New(`^(\S+?)\s*(?::|\s[—–-])\s*(.*)$`)

// trailingDate finds a "(YYYY-MM-DD)" at the end of a decision heading.
var trailingDate = lazyre.New(`\s*\((\d{4}-\d{2}-\d{2})\)\s*$`)

// mdParser holds the state of one markdown read.
type mdParser struct {
	name string
	b    Brief
	errs []error
	sec  section
	// item is the constraint or decision being filled, field the last
	// "- key:" seen, so an indented line can continue it.
	con   *Constraint
	dec   *Decision
	field string
}

func (p *mdParser) errorf(line int, format string, args ...any) {
	p.errs = append(p.errs, fmt.Errorf("%s:%d: "+format, append([]any{p.name, line}, args...)...))
}

func parseMarkdown(name string, content []byte) (Brief, []error) {
	p := &mdParser{name: name}
	content = bytes.TrimPrefix(content, []byte("\ufeff"))
	lines := strings.Split(strings.ReplaceAll(string(content), "\r\n", "\n"), "\n")
	var fences markdown.Fences
	for i, raw := range lines {
		n := i + 1
		trimmed := strings.TrimSpace(raw)
		if fences.Step(raw) {
			continue
		}
		switch {
		case strings.HasPrefix(trimmed, "### "):
			p.item(n, strings.TrimSpace(trimmed[4:]))
		case strings.HasPrefix(trimmed, "## "):
			p.flush()
			p.sec = sectionOf(strings.TrimSpace(trimmed[3:]))
		case strings.HasPrefix(trimmed, "# "):
			p.flush()
			p.sec = secNone
			title := strings.TrimSpace(trimmed[2:])
			if t, ok := cutPrefixFold(title, "brief:"); ok {
				title = strings.TrimSpace(t)
			}
			if p.b.Title != "" {
				p.errorf(n, "a second title %q: a brief has one \"# Brief: <title>\" line; make this a \"##\" section", title)
				continue
			}
			p.b.Title = title
		case trimmed == "":
			p.field = ""
		default:
			p.line(n, raw, trimmed)
		}
	}
	if fences.In() {
		p.errorf(len(lines), "a ``` fence is never closed: close it, or everything after it is ignored")
	}
	p.flush()
	return p.b, p.errs
}

func cutPrefixFold(s, prefix string) (string, bool) {
	if len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix) {
		return s[len(prefix):], true
	}
	return s, false
}

func sectionOf(title string) section {
	switch fold(title) {
	case "constraints", "bindingconstraints":
		return secConstraints
	case "decisions", "accepteddecisions", "architecturaldecisions":
		return secDecisions
	case "anchors", "codeanchors":
		return secAnchors
	}
	return secOther
}

// flush stores the item being filled.
func (p *mdParser) flush() {
	if p.con != nil {
		p.b.Constraints = append(p.b.Constraints, *p.con)
		p.con = nil
	}
	if p.dec != nil {
		if p.dec.Status == "" {
			p.dec.Status = Accepted
		}
		p.b.Decisions = append(p.b.Decisions, *p.dec)
		p.dec = nil
	}
	p.field = ""
}

// item opens a constraint or decision from its "### " heading.
func (p *mdParser) item(n int, heading string) {
	p.flush()
	if p.sec != secConstraints && p.sec != secDecisions {
		if p.sec == secAnchors || p.sec == secNone {
			p.errorf(n, "heading %q is outside the Constraints and Decisions sections: put it under \"## Constraints\" or \"## Decisions\"", heading)
		}
		return
	}
	date := ""
	if p.sec == secDecisions {
		if m := trailingDate.FindStringSubmatch(heading); m != nil {
			date = m[1]
			heading = strings.TrimSpace(heading[:len(heading)-len(m[0])])
		}
	}
	id, title := heading, ""
	if m := itemHeading.FindStringSubmatch(heading); m != nil {
		id, title = m[1], strings.TrimSpace(m[2])
	} else {
		// Read "ID Title" as best we can, so one missing colon does not
		// cascade into errors about a garbled id.
		p.errorf(n, "heading %q has no \"ID: Title\" form: write it as \"### BC-001: <title>\"", heading)
		if f := strings.Fields(heading); len(f) > 1 {
			id, title = f[0], strings.Join(f[1:], " ")
		}
	}
	id = strings.Trim(id, "`*")
	if p.sec == secConstraints {
		p.con = &Constraint{ID: id, Title: title}
	} else {
		p.dec = &Decision{ID: id, Title: title, Date: date}
	}
}

// line handles a list item or a paragraph line inside the current section.
func (p *mdParser) line(n int, raw, trimmed string) {
	indented := strings.HasPrefix(raw, " ") || strings.HasPrefix(raw, "\t")
	bullet := strings.HasPrefix(trimmed, "- ") || strings.HasPrefix(trimmed, "* ")
	switch p.sec {
	case secAnchors:
		if !bullet {
			return // prose about the anchors
		}
		target := strings.Trim(strings.TrimSpace(trimmed[2:]), "`")
		a, err := ParseAnchor(target)
		if err != nil {
			p.errorf(n, "anchor %q: %v", target, err)
			return
		}
		p.b.Anchors = append(p.b.Anchors, a)
		return
	case secConstraints, secDecisions:
	default:
		return
	}
	if p.con == nil && p.dec == nil {
		if bullet {
			p.errorf(n, "%q comes before any \"### ID: Title\" item: start the item with a heading", trimmed)
		}
		return
	}
	if bullet && !indented {
		body := strings.TrimSpace(trimmed[2:])
		key, value, ok := strings.Cut(body, ":")
		if !ok {
			p.errorf(n, "list item %q is not \"key: value\": write e.g. \"- severity: Critical\"", body)
			return
		}
		p.field = fold(key)
		p.set(n, p.field, strings.TrimSpace(value), strings.TrimSpace(key))
		return
	}
	if indented && p.field != "" {
		p.extend(n, p.field, trimmed)
		return
	}
	// A paragraph: the prose of the item.
	if p.con != nil {
		p.con.Rationale = joinText(p.con.Rationale, trimmed)
	} else {
		p.dec.Text = joinText(p.dec.Text, trimmed)
	}
}

func joinText(a, b string) string {
	if a == "" {
		return b
	}
	return a + " " + b
}

// set stores one "- key: value" field of the current item.
func (p *mdParser) set(n int, key, value, written string) {
	if p.con != nil {
		c := p.con
		switch key {
		case "severity":
			c.Severity, _ = ParseSeverity(value)
		case "action", "violationaction":
			c.Action, _ = ParseAction(value)
		case "appliesto":
			c.AppliesTo = append(c.AppliesTo, splitTargets(value)...)
		case "rationale", "why":
			c.Rationale = joinText(c.Rationale, value)
		case "source", "sourcereference":
			c.Source = joinText(c.Source, value)
		default:
			p.field = ""
			p.errorf(n, "unknown field %q in constraint %s: use severity, action, applies-to, rationale or source", written, c.ID)
		}
		return
	}
	d := p.dec
	switch key {
	case "date":
		d.Date = value
	case "status":
		d.Status, _ = ParseStatus(value)
	case "decision":
		d.Text = joinText(d.Text, value)
	case "rationale", "why":
		d.Rationale = joinText(d.Rationale, value)
	default:
		p.field = ""
		p.errorf(n, "unknown field %q in decision %s: use date, status, decision or rationale", written, d.ID)
	}
}

// extend continues a field on an indented line.
func (p *mdParser) extend(n int, key, text string) {
	switch key {
	case "appliesto":
		text = strings.TrimPrefix(strings.TrimPrefix(text, "- "), "* ")
		p.con.AppliesTo = append(p.con.AppliesTo, splitTargets(text)...)
	case "rationale", "why", "source", "sourcereference", "decision":
		p.set(n, key, text, key)
	default:
		p.errorf(n, "field %s takes one value: put %q on the same line", key, text)
	}
}

// splitTargets splits a comma-separated applies-to value.
func splitTargets(s string) []string {
	var out []string
	for _, t := range strings.Split(s, ",") {
		t = strings.Trim(strings.TrimSpace(t), "`")
		if t != "" {
			out = append(out, t)
		}
	}
	return out
}

func parseJSON(name string, content []byte) (Brief, []error) {
	var b Brief
	dec := json.NewDecoder(bytes.NewReader(bytes.TrimPrefix(content, []byte("\ufeff"))))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&b); err != nil {
		return Brief{}, []error{fmt.Errorf("%s: %w", name, jsonError(content, err))}
	}
	if dec.More() {
		return Brief{}, []error{fmt.Errorf("%s: more than one JSON value: a brief is one object", name)}
	}
	for i := range b.Decisions {
		if b.Decisions[i].Status == "" {
			b.Decisions[i].Status = Accepted
		}
	}
	return b, nil
}

// jsonError adds the line of a syntax or type error, which encoding/json
// reports only as a byte offset.
func jsonError(content []byte, err error) error {
	var off int64 = -1
	switch e := err.(type) {
	case *json.SyntaxError:
		off = e.Offset
	case *json.UnmarshalTypeError:
		off = e.Offset
	}
	if strings.Contains(err.Error(), "unknown field") {
		return fmt.Errorf("%w: the known fields are title, constraints (id, title, severity, action, applies_to, rationale, source), decisions (id, title, date, status, decision, rationale) and anchors", err)
	}
	if off < 0 || off > int64(len(content)) {
		return err
	}
	line := 1 + bytes.Count(content[:off], []byte("\n"))
	return fmt.Errorf("line %d: %w", line, err)
}
