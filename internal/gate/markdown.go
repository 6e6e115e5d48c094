package gate

import (
	"bytes"
	"strings"

	"github.com/vibe-science/vibe/internal/markdown"
)

// mdLine is one line of a Markdown file that a parser should read: lines
// inside fenced code blocks are dropped and HTML comments are cut out, as
// every vibe format promises.
type mdLine struct {
	No   int
	Text string
}

func markdownLines(text []byte) []mdLine {
	var out []mdLine
	var fences markdown.Fences
	inComment := false
	no := 0
	for len(text) > 0 {
		no++
		var l []byte
		if i := bytes.IndexByte(text, '\n'); i >= 0 {
			l, text = text[:i], text[i+1:]
		} else {
			l, text = text, nil
		}
		line := strings.TrimSuffix(string(l), "\r")
		// Fenced code, nested and longer fences included (CommonMark):
		// never content.
		if fences.In() || !inComment {
			if fences.Step(line) {
				continue
			}
		}
		var b strings.Builder
		rest := line
		for rest != "" {
			if inComment {
				end := strings.Index(rest, "-->")
				if end < 0 {
					rest = ""
					break
				}
				rest = rest[end+3:]
				inComment = false
				continue
			}
			start := strings.Index(rest, "<!--")
			if start < 0 {
				b.WriteString(rest)
				break
			}
			b.WriteString(rest[:start])
			rest = rest[start+4:]
			inComment = true
		}
		out = append(out, mdLine{No: no, Text: b.String()})
	}
	return out
}

// heading returns the level and text of an ATX heading ("## Title").
func heading(line string) (int, string, bool) {
	t := strings.TrimSpace(line)
	n := 0
	for n < len(t) && t[n] == '#' {
		n++
	}
	if n == 0 || n > 6 || (n < len(t) && t[n] != ' ' && t[n] != '\t') {
		return 0, "", false
	}
	text := strings.TrimSpace(strings.TrimRight(strings.TrimSpace(t[n:]), "#"))
	return n, text, true
}

// field reads a "- key: value" list item; the key is lower-cased.
func field(line string) (string, string, bool) {
	t := strings.TrimSpace(line)
	if !strings.HasPrefix(t, "- ") && !strings.HasPrefix(t, "* ") {
		return "", "", false
	}
	t = strings.TrimSpace(t[2:])
	k, v, ok := strings.Cut(t, ":")
	if !ok {
		return "", "", false
	}
	k = strings.ToLower(strings.TrimSpace(strings.Trim(k, "*_`")))
	if k == "" || strings.ContainsAny(k, " \t") {
		return "", "", false
	}
	return k, strings.TrimSpace(v), true
}

// tableCells splits a table row on unescaped pipes; \| stands for a pipe
// inside a cell. ok is false when the line is not a table row.
func tableCells(line string) ([]string, bool) {
	t := strings.TrimSpace(line)
	if !strings.HasPrefix(t, "|") {
		return nil, false
	}
	t = t[1:]
	if strings.HasSuffix(t, "|") && !strings.HasSuffix(t, `\|`) {
		t = t[:len(t)-1]
	}
	var cells []string
	var b strings.Builder
	for i := 0; i < len(t); i++ {
		switch {
		case t[i] == '\\' && i+1 < len(t) && t[i+1] == '|':
			b.WriteByte('|')
			i++
		case t[i] == '|':
			cells = append(cells, strings.TrimSpace(b.String()))
			b.Reset()
		default:
			b.WriteByte(t[i])
		}
	}
	cells = append(cells, strings.TrimSpace(b.String()))
	return cells, true
}

// isSeparatorRow reports a table's |---|:---:| line.
func isSeparatorRow(cells []string) bool {
	for _, c := range cells {
		c = strings.Trim(c, ": ")
		if c == "" || strings.Trim(c, "-") != "" {
			return false
		}
	}
	return len(cells) > 0
}

// listValue splits a comma-separated field value; backticks are removed
// and "-" or "none" means an empty (non-nil) list.
func listValue(v string) []string {
	out := []string{}
	v = strings.TrimSpace(v)
	if v == "" || v == "-" || strings.EqualFold(v, "none") {
		return out
	}
	for _, p := range strings.Split(v, ",") {
		p = strings.TrimSpace(strings.Trim(strings.TrimSpace(p), "`"))
		if p != "" && p != "-" {
			out = append(out, p)
		}
	}
	return out
}
