package markdown

import "strings"

// Fences follows fenced code blocks through a file, one line at a time. The
// zero value is outside any block.
type Fences struct {
	ch byte // '`' or '~' while inside a block, else 0
	n  int  // the opening fence's length
}

// In reports whether the scan is inside a fenced block (after the line
// last stepped).
func (f *Fences) In() bool { return f.ch != 0 }

// Step takes the next line (without its line break; a trailing "\r" is
// ignored) and reports whether it is code: a line inside a block, or an
// opening or closing fence line.
func (f *Fences) Step(line string) bool {
	line = strings.TrimSuffix(line, "\r")
	ch, n, rest, ok := fenceLine(line)
	if f.ch == 0 {
		if !ok || (ch == '`' && strings.Contains(rest, "`")) {
			// Not a fence; a backtick "fence" whose info string holds a
			// backtick is inline code (```x```).
			return false
		}
		f.ch, f.n = ch, n
		return true
	}
	if ok && ch == f.ch && n >= f.n && strings.TrimSpace(rest) == "" {
		f.ch, f.n = 0, 0
	}
	return true
}

// fenceLine parses a fence: at most three spaces, then three or more of the
// same backtick or tilde; rest is what follows the run.
func fenceLine(line string) (ch byte, n int, rest string, ok bool) {
	ind := 0
	for ind < len(line) && line[ind] == ' ' {
		ind++
	}
	if ind > 3 || ind >= len(line) {
		return 0, 0, "", false
	}
	t := line[ind:]
	ch = t[0]
	if ch != '`' && ch != '~' {
		return 0, 0, "", false
	}
	for n < len(t) && t[n] == ch {
		n++
	}
	if n < 3 {
		return 0, 0, "", false
	}
	return ch, n, t[n:], true
}
