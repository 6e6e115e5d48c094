package claim

import "strings"

// Entry returns the lines of the ledger content that belong to c (parsed
// from content): its table row, or its heading with the fields and prose
// under it up to the next heading or claim; first is the line number of
// the first of them. What an entry says is what a promotion of it rests
// on, its citations included.
func (l Ledger) Entry(content []byte, c Claim) (text string, first int) {
	lines := strings.Split(strings.TrimPrefix(string(content), "\ufeff"), "\n")
	if c.Line < 1 || c.Line > len(lines) {
		return "", 0
	}
	start := c.Line - 1
	if strings.HasPrefix(strings.TrimSpace(lines[start]), "|") {
		return lines[start], c.Line
	}
	next := len(lines)
	for _, o := range l.Claims {
		if o.Line > c.Line && o.Line-1 < next {
			next = o.Line - 1
		}
	}
	end := start + 1
	for end < next && !strings.HasPrefix(strings.TrimSpace(lines[end]), "#") {
		end++
	}
	return strings.Join(lines[start:end], "\n"), c.Line
}
