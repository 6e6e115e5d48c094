package brief

import (
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"
)

// The default caps of the SessionStart context.
const (
	DefaultMaxTokens      = 4000
	DefaultMaxConstraints = 20
)

// maxRationale caps one constraint's rationale in the context, so a single
// long paragraph cannot push the other constraints out.
const maxRationale = 240

// Tokens estimates the tokens of s as ceil(characters/4).
func Tokens(s string) int {
	return (utf8.RuneCountInString(s) + 3) / 4
}

// Context renders the brief for SessionStart: its constraints, most binding
// first, then its accepted decisions, within maxTokens (estimated by Tokens)
// and maxConstraints; zero or less means the defaults. What does not fit is
// replaced by a marker pointing at `vibe brief show`. The result never
// exceeds maxTokens; when even the heading and markers do not fit, it is
// empty.
func (b Brief) Context(maxTokens, maxConstraints int) string {
	if maxTokens <= 0 {
		maxTokens = DefaultMaxTokens
	}
	if maxConstraints <= 0 {
		maxConstraints = DefaultMaxConstraints
	}
	cons := make([]Constraint, len(b.Constraints))
	copy(cons, b.Constraints)
	sort.SliceStable(cons, func(i, j int) bool { return cons[i].Severity.rank() < cons[j].Severity.rank() })
	var decs []Decision
	for _, d := range b.Decisions {
		if d.Status == Accepted || d.Status == "" {
			decs = append(decs, d)
		}
	}
	if len(cons) == 0 && len(decs) == 0 {
		return ""
	}

	head := fmt.Sprintf("Research brief %q (%s): follow these constraints; a write that breaks a Critical constraint with action Block is denied.", b.Title, b.Source)
	conLines := make([]string, len(cons))
	for i, c := range cons {
		conLines[i] = constraintLine(c)
	}
	decLines := make([]string, len(decs))
	for i, d := range decs {
		decLines[i] = decisionLine(d)
	}

	// Try everything first; only when it does not fit are markers reserved.
	nc := min(len(cons), maxConstraints)
	if text := render(head, conLines[:nc], decLines, len(cons)-nc, 0); nc == len(cons) && Tokens(text) <= maxTokens {
		return text
	}
	// Greedy: constraints (most binding first) before decisions, each added
	// only while the text with both possible markers still fits.
	reserve := render(head, nil, nil, len(cons), len(decs))
	if Tokens(reserve) > maxTokens {
		return ""
	}
	used, budget := utf8.RuneCountInString(reserve), maxTokens*4 // ceil(n/4) <= max iff n <= 4*max
	keep := func(lines []string, header string) []string {
		var kept []string
		for _, l := range lines {
			n := 1 + utf8.RuneCountInString(l)
			if len(kept) == 0 {
				n += 1 + utf8.RuneCountInString(header)
			}
			if used+n > budget {
				break
			}
			used += n
			kept = append(kept, l)
		}
		return kept
	}
	keptC := keep(conLines[:nc], "Constraints:")
	keptD := keep(decLines, "Accepted decisions:")
	return render(head, keptC, keptD, len(cons)-len(keptC), len(decs)-len(keptD))
}

// render joins the heading, the kept lines and the truncation markers.
func render(head string, cons, decs []string, moreC, moreD int) string {
	var b strings.Builder
	b.WriteString(head)
	if len(cons) > 0 {
		b.WriteString("\nConstraints:")
		for _, l := range cons {
			b.WriteString("\n")
			b.WriteString(l)
		}
	}
	if moreC > 0 {
		fmt.Fprintf(&b, "\n[… %d more constraints truncated: run `vibe brief show`]", moreC)
	}
	if len(decs) > 0 {
		b.WriteString("\nAccepted decisions:")
		for _, l := range decs {
			b.WriteString("\n")
			b.WriteString(l)
		}
	}
	if moreD > 0 {
		fmt.Fprintf(&b, "\n[… %d more decisions truncated: run `vibe brief show`]", moreD)
	}
	return b.String()
}

func constraintLine(c Constraint) string {
	var b strings.Builder
	fmt.Fprintf(&b, "- %s (%s, %s): %s", c.ID, c.Severity, c.Action, c.Title)
	if len(c.AppliesTo) > 0 {
		b.WriteString(". Applies to ")
		b.WriteString(strings.Join(c.AppliesTo, ", "))
	}
	if c.Rationale != "" {
		b.WriteString(". Why: ")
		b.WriteString(shorten(c.Rationale, maxRationale))
	}
	return b.String()
}

func decisionLine(d Decision) string {
	var b strings.Builder
	b.WriteString("- ")
	b.WriteString(d.ID)
	if d.Date != "" {
		b.WriteString(" (" + d.Date + ")")
	}
	b.WriteString(": ")
	b.WriteString(d.Title)
	if d.Text != "" {
		b.WriteString(". ")
		b.WriteString(shorten(d.Text, maxRationale))
	}
	return b.String()
}

// shorten cuts s to at most n characters, ending with "…" when cut.
func shorten(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return strings.TrimSpace(string(r[:n-1])) + "…"
}
