package resume

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/vibe-science/vibe/internal/lazyre"
)

// The markers around vibe's section of STATE.md.
const (
	BeginMarker = "<!-- vibe:state:begin -->"
	EndMarker   = "<!-- vibe:state:end -->"
)

// UpdatedPrefix starts the line of vibe's section that holds the time it
// was written; a section that differs from the stored one only on that line
// is not rewritten.
const UpdatedPrefix = "- updated: "

var bom = []byte("\xef\xbb\xbf")

// line is one line of a file: [Start, End) without its line break, Next the
// offset of the following line.
type line struct {
	Start, End, Next int
	No               int
}

// lines splits content at '\n', keeping offsets; a trailing "\r" is left out
// of [Start, End).
func lines(content []byte) []line {
	var out []line
	for start, no := 0, 1; start < len(content); no++ {
		end := bytes.IndexByte(content[start:], '\n')
		next := len(content)
		if end < 0 {
			end = len(content)
		} else {
			end += start
			next = end + 1
		}
		e := end
		if e > start && content[e-1] == '\r' {
			e--
		}
		out = append(out, line{Start: start, End: e, Next: next, No: no})
		start = next
	}
	return out
}

// fence tracks fenced code blocks (``` or ~~~, at most three spaces in).
type fence struct {
	ch  byte
	n   int
	in  bool
	ind int
}

// step reports whether text (one line) is inside a fence or is a fence
// line, updating the state.
func (f *fence) step(text string) bool {
	ind := len(text) - len(strings.TrimLeft(text, " "))
	t := strings.TrimLeft(text, " ")
	if ind > 3 || len(t) < 3 || (t[0] != '`' && t[0] != '~') {
		return f.in
	}
	n := 0
	for n < len(t) && t[n] == t[0] {
		n++
	}
	if n < 3 {
		return f.in
	}
	if !f.in {
		if t[0] == '`' && strings.Contains(t[n:], "`") {
			return false // inline code such as ```x``` is not a fence
		}
		f.in, f.ch, f.n, f.ind = true, t[0], n, ind
		return true
	}
	if t[0] == f.ch && n >= f.n && strings.TrimSpace(t[n:]) == "" {
		f.in = false
	}
	return true
}

func markerLine(text, marker string) bool {
	text = strings.TrimPrefix(text, string(bom))
	ind := len(text) - len(strings.TrimLeft(text, " "))
	return ind <= 3 && strings.TrimSpace(text) == marker
}

// Section locates vibe's section in a STATE.md: the byte range of the lines
// strictly between the markers (Body) and of the whole block, markers
// included (Block). Found is false when the file has no begin marker.
type Section struct {
	Found       bool
	Body, Block [2]int
	BeginLine   int
	EndLine     int
}

// ErrUnclosedSection is returned when STATE.md has a begin marker but no end
// marker after it.
var ErrUnclosedSection = errors.New("unclosed vibe section")

// FindSection finds vibe's section. A begin marker without an end marker
// after it returns ErrUnclosedSection (wrapped with its line and the fix).
func FindSection(content []byte) (Section, error) {
	var s Section
	var f fence
	for _, l := range lines(content) {
		text := string(content[l.Start:l.End])
		if f.step(text) {
			continue
		}
		if !s.Found {
			if markerLine(text, BeginMarker) {
				s.Found, s.BeginLine = true, l.No
				s.Block[0], s.Body[0] = l.Start, l.Next
			}
			continue
		}
		if markerLine(text, EndMarker) {
			s.EndLine = l.No
			s.Body[1], s.Block[1] = l.Start, l.Next
			return s, nil
		}
	}
	if s.Found {
		return s, fmt.Errorf("line %d has vibe's begin marker but no %s follows it; add that end marker where vibe's section should end, or delete the begin marker: %w",
			s.BeginLine, EndMarker, ErrUnclosedSection)
	}
	return s, nil
}

// UserPart is STATE.md without vibe's section (the markers and what lies
// between them): the researcher's own text. With no section, or an unclosed
// one, it is the whole file.
func UserPart(content []byte) []byte {
	s, err := FindSection(content)
	if err != nil || !s.Found {
		return content
	}
	out := make([]byte, 0, len(content)-(s.Block[1]-s.Block[0]))
	out = append(out, content[:s.Block[0]]...)
	return append(out, content[s.Block[1]:]...)
}

// newline is the file's line break: CRLF when its first line ends so.
func newline(content []byte) string {
	i := bytes.IndexByte(content, '\n')
	if i > 0 && content[i-1] == '\r' {
		return "\r\n"
	}
	return "\n"
}

// body renders a section text with the file's line breaks and one final
// line break.
func body(section, nl string) []byte {
	s := strings.ReplaceAll(section, "\r\n", "\n")
	s = strings.TrimRight(s, "\n")
	if s == "" {
		return nil
	}
	s += "\n"
	if nl != "\n" {
		s = strings.ReplaceAll(s, "\n", nl)
	}
	return []byte(s)
}

// sameIgnoringUpdated compares two section bodies line by line, skipping the
// "- updated:" line.
func sameIgnoringUpdated(a, b []byte) bool {
	strip := func(x []byte) string {
		var keep []string
		for _, l := range strings.Split(strings.ReplaceAll(string(x), "\r\n", "\n"), "\n") {
			if !strings.HasPrefix(l, UpdatedPrefix) {
				keep = append(keep, l)
			}
		}
		return strings.Join(keep, "\n")
	}
	return strip(a) == strip(b)
}

// UpdateState writes section between vibe's markers in the STATE.md at
// path, creating the file or appending the markers when needed, and reports
// whether the file changed. Nothing outside the markers changes.
func UpdateState(path, section string) (changed bool, err error) {
	target := path
	if real, err := filepath.EvalSymlinks(path); err == nil {
		target = real
	}
	mode := fs.FileMode(0o644)
	content, err := os.ReadFile(target)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		content = nil
	case err != nil:
		return false, fmt.Errorf("update STATE.md: %w", err)
	default:
		if info, err := os.Stat(target); err == nil {
			mode = info.Mode().Perm()
		}
	}
	out, err := Splice(content, section)
	if err != nil {
		return false, fmt.Errorf("update STATE.md %s: %w", path, err)
	}
	if out == nil {
		return false, nil
	}
	if err := writeAtomic(target, out, mode); err != nil {
		return false, fmt.Errorf("update STATE.md: %w", err)
	}
	return true, nil
}

// Splice returns content with vibe's section replaced by section (or the
// marked section appended), or nil when nothing would change.
func Splice(content []byte, section string) ([]byte, error) {
	s, err := FindSection(content)
	if err != nil {
		return nil, err
	}
	nl := newline(content)
	b := body(section, nl)
	if s.Found {
		old := content[s.Body[0]:s.Body[1]]
		if bytes.Equal(old, b) || sameIgnoringUpdated(old, b) {
			return nil, nil
		}
		out := make([]byte, 0, len(content)+len(b))
		out = append(out, content[:s.Body[0]]...)
		out = append(out, b...)
		return append(out, content[s.Body[1]:]...), nil
	}
	out := make([]byte, 0, len(content)+len(b)+len(BeginMarker)+len(EndMarker)+8)
	out = append(out, content...)
	if len(content) > 0 {
		if content[len(content)-1] != '\n' {
			out = append(out, nl...)
		}
		out = append(out, nl...)
	}
	out = append(out, BeginMarker+nl...)
	out = append(out, b...)
	return append(out, EndMarker+nl...), nil
}

// writeAtomic replaces path with data through a temporary file in the same
// folder, so a reader sees the old file or the new one, never half of one.
func writeAtomic(path string, data []byte, mode fs.FileMode) error {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, "."+base+".vibe-*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	tmp := f.Name()
	fail := func(err error) error {
		f.Close()
		os.Remove(tmp)
		return fmt.Errorf("write %s: %w", path, err)
	}
	if _, err := f.Write(data); err != nil {
		return fail(err)
	}
	if err := f.Sync(); err != nil {
		return fail(err)
	}
	if err := f.Chmod(mode); err != nil {
		return fail(err)
	}
	if err := f.Close(); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

var phaseRe = lazyre.New(`(?i)^ {0,3}(?:#{1,6}\s+)?(?:[-*+]\s+)?[*_]{0,2}(phase|stage)[*_]{0,2}\s*:\s*[*_]{0,2}\s*(\S.*?)\s*$`)

// Phase reads the research phase from STATE.md: the first line of the
// researcher's part, outside code fences, of the form `phase: X` or
// `stage: X` (also as a list item, a heading or in bold). Only that one
// line is read: a value never continues onto the next line. key is "phase"
// or "stage" in lower case; all three results are empty when there is none.
func Phase(content []byte) (key, value string, lineNo int) {
	sec, err := FindSection(content)
	if err != nil {
		sec.Found = false
	}
	var f fence
	for _, l := range lines(content) {
		if sec.Found && l.Start >= sec.Block[0] && l.Start < sec.Block[1] {
			continue
		}
		text := strings.TrimPrefix(string(content[l.Start:l.End]), string(bom))
		if f.step(text) {
			continue
		}
		m := phaseRe.FindStringSubmatch(text)
		if m == nil {
			continue
		}
		v := m[2]
		if i := strings.Index(v, "<!--"); i >= 0 {
			v = v[:i]
		}
		v = strings.TrimSpace(strings.Trim(strings.TrimSpace(v), "*_`"))
		if v == "" {
			continue
		}
		return strings.ToLower(m[1]), v, l.No
	}
	return "", "", 0
}

var headingRe = lazyre.New(`^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$`)

// NextSteps returns the lines under the researcher's "Next…" heading of
// STATE.md (Next, Next steps, Next action…), up to the next heading of the
// same or a higher level, without blank lines, at most max of them.
func NextSteps(content []byte, max int) []string {
	return sectionLines(UserPart(content), func(title string) bool {
		return strings.HasPrefix(strings.ToLower(title), "next")
	}, max)
}

// sectionLines returns the non-blank lines under the first heading whose
// title satisfies match, up to the next heading of the same or a higher
// level, at most max of them. Headings inside code fences do not count.
func sectionLines(content []byte, match func(title string) bool, max int) []string {
	var out []string
	level := 0
	var f fence
	for _, l := range lines(content) {
		text := strings.TrimPrefix(string(content[l.Start:l.End]), string(bom))
		if !f.step(text) {
			if m := headingRe.FindStringSubmatch(text); m != nil {
				if level > 0 && len(m[1]) <= level {
					break
				}
				if level == 0 && match(strings.TrimSpace(m[2])) {
					level = len(m[1])
					continue
				}
			}
		}
		if level == 0 || strings.TrimSpace(text) == "" {
			continue
		}
		if len(out) == max {
			break
		}
		out = append(out, strings.TrimRight(text, " \t"))
	}
	return out
}
