package spine

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/vibe-science/vibe/internal/privacy"
)

// MaxSummary is the longest summary kept, in characters.
const MaxSummary = 200

// Digest is the hex SHA-256 of raw bytes ("" for none).
func Digest(raw []byte) string {
	if len(raw) == 0 {
		return ""
	}
	sum := sha256.Sum256(raw)
	return hex.EncodeToString(sum[:])
}

// Clip shortens s to at most n characters (n > 3) on one line, keeping
// the head and the tail (the tail of a command's output is often the part
// that matters). Private blocks and secrets are scrubbed first. Runs of
// white space become one space; the characters of a clipped text are
// decoded one by one, so an invalid byte there becomes U+FFFD. It walks
// the text twice without copying it (a command's output can be megabytes),
// and scrubs a long text only where the head and the tail are taken, with
// privacy.Margin around them, so a megabyte costs what two windows cost.
func Clip(s string, n int) string {
	if c, ok := clipWindows(s, n); ok {
		return c
	}
	s = privacy.Scrub(s)
	total, words := 0, 0
	for w := range strings.FieldsSeq(s) {
		if words > 0 {
			total++ // the space before it
		}
		total += utf8.RuneCountInString(w)
		words++
	}
	if total <= n {
		return strings.Join(strings.Fields(s), " ")
	}
	head := (n - 3) * 7 / 10
	from := total - (n - 4 - head) // the tail's first character
	var b strings.Builder
	b.Grow(4 * n)
	i := 0
	put := func(r rune) {
		if i == head {
			b.WriteString(" … ")
		}
		if i < head || i >= from {
			b.WriteRune(r)
		}
		i++
	}
	words = 0
	for w := range strings.FieldsSeq(s) {
		if words > 0 {
			put(' ')
		}
		words++
		if k := utf8.RuneCountInString(w); i > head && i+k < from {
			i += k // a word between the marker and the tail: counted, not read
			continue
		}
		for _, r := range w {
			put(r)
		}
	}
	return b.String()
}

// clipWindows clips a text much longer than two scrub windows from a
// scrubbed window at each end; ok is false for a shorter one (or one whose
// head and tail windows meet), which Clip scrubs whole.
func clipWindows(s string, n int) (string, bool) {
	if len(s) < 4*privacy.Margin {
		return "", false
	}
	head := (n - 3) * 7 / 10
	tail := n - 4 - head
	a := charsFromStart(s, head) + privacy.Margin
	b := charsFromEnd(s, tail) - privacy.Margin
	if a >= b {
		return "", false
	}
	h := []rune(strings.Join(strings.Fields(privacy.Scrub(s[:a])), " "))
	t := []rune(strings.Join(strings.Fields(privacy.Scrub(s[b:])), " "))
	return string(h[:min(head, len(h))]) + " … " + string(t[max(0, len(t)-tail):]), true
}

// charsFromStart is the byte offset in s after its first k characters once
// white space runs are one space.
func charsFromStart(s string, k int) int {
	var c collapsed
	for i, r := range s {
		if c.n >= k {
			return i
		}
		c.add(r)
	}
	return len(s)
}

// charsFromEnd is the byte offset in s before its last k characters once
// white space runs are one space.
func charsFromEnd(s string, k int) int {
	var c collapsed
	for i := len(s); i > 0; {
		if c.n >= k {
			return i
		}
		r, size := utf8.DecodeLastRuneInString(s[:i])
		i -= size
		c.add(r)
	}
	return 0
}

// collapsed counts the characters of a text read one rune at a time, in
// either direction, a run of white space as one (the first run as none).
type collapsed struct {
	n       int
	started bool
	space   bool
}

func (c *collapsed) add(r rune) {
	if unicode.IsSpace(r) {
		if c.started && !c.space {
			c.n++
		}
		c.space = true
		return
	}
	c.started, c.space = true, false
	c.n++
}

// InputSummary describes a tool input in one short line.
func InputSummary(tool string, c Call, rawInput []byte) string {
	switch tool {
	case "Write":
		return Clip(fmt.Sprintf("write %s (%d chars): %s", c.Path, utf8.RuneCountInString(c.Text), c.Text), MaxSummary)
	case "Edit", "MultiEdit":
		return Clip(fmt.Sprintf("edit %s: %s", c.Path, c.Text), MaxSummary)
	case "NotebookEdit":
		return Clip(fmt.Sprintf("edit notebook %s: %s", c.Path, c.Text), MaxSummary)
	case "Read":
		return Clip("read "+c.Path, MaxSummary)
	case "Bash", "PowerShell":
		return Clip("$ "+c.Command, MaxSummary)
	case "WebSearch":
		return Clip("search: "+c.Query, MaxSummary)
	case "WebFetch":
		return Clip("fetch "+c.Query, MaxSummary)
	}
	// Another tool's input is JSON: scrubbed string by string, since an
	// escaped quote (\"token\": \"…\") hides a value from the rules.
	// (A long one is left to Clip's windows.)
	if len(rawInput) < 4*privacy.Margin {
		rawInput = privacy.ScrubJSON(rawInput)
	}
	return Clip(tool+" "+string(rawInput), MaxSummary)
}

// OutputSummary describes a tool response in one short line. String
// responses are clipped; objects are reduced to their telling fields.
func OutputSummary(raw []byte) string {
	if len(raw) == 0 {
		return ""
	}
	// One parse, of the kind the first byte says (each json.Unmarshal
	// scans the whole response, which can be megabytes, before it decodes).
	var s string
	var obj map[string]any
	object := bytes.HasPrefix(bytes.TrimLeft(raw, " \t\r\n"), []byte("{"))
	switch {
	case !object && json.Unmarshal(raw, &s) == nil: // a string, or null
		return Clip(s, MaxSummary)
	case object && json.Unmarshal(raw, &obj) == nil:
		var parts []string
		for _, k := range []string{"type", "filePath", "stdout", "stderr", "interrupted", "status", "error", "content", "result"} {
			v, ok := obj[k]
			if !ok {
				continue
			}
			switch t := v.(type) {
			case string:
				if t != "" {
					parts = append(parts, k+"="+t)
				}
			case bool:
				if t {
					parts = append(parts, k)
				}
			case nil:
			default:
				b, _ := json.Marshal(t)
				parts = append(parts, k+"="+string(b))
			}
		}
		if len(parts) > 0 {
			return Clip(strings.Join(parts, " "), MaxSummary)
		}
	}
	return Clip(string(raw), MaxSummary)
}
