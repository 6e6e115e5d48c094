package spine

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
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

// Clip shortens s to at most n characters on one line, keeping the head and
// the tail (the tail of a command's output is often the part that matters).
// Private blocks and secrets are scrubbed first.
func Clip(s string, n int) string {
	s = privacy.Scrub(s)
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	head := (n - 3) * 7 / 10
	tail := n - 3 - head
	return string(r[:head]) + " … " + string(r[len(r)-tail:])[1:]
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
	return Clip(tool+" "+string(rawInput), MaxSummary)
}

// OutputSummary describes a tool response in one short line. String
// responses are clipped; objects are reduced to their telling fields.
func OutputSummary(raw []byte) string {
	if len(raw) == 0 {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return Clip(s, MaxSummary)
	}
	var obj map[string]any
	if json.Unmarshal(raw, &obj) == nil {
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
