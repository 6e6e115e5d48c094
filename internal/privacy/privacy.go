package privacy

import (
	"sort"
	"strings"

	"github.com/vibe-science/vibe/internal/lazyre"
)

// Redacted marks where a secret was removed.
const Redacted = "[REDACTED]"

// PrivateMarker replaces a private block.
const PrivateMarker = "[private]"

// privateTag is a private block: the opening tag may carry attributes and
// blanks (`<private reason="pii">`, `< PRIVATE >`); an unclosed block runs
// to the end of the text.
var privateTag = lazyre.New(`(?is)<\s*private\b[^>]*>.*?(<\s*/\s*private\s*>|\z)`)

// Scrub returns s without private blocks and with every secret replaced
// by Redacted: what gitleaks' default rules find (gitleaks.go), then the
// forms they leave out (rules.go: command-line passwords, URL
// credentials, authorization headers; assign.go: values whose name says
// they are secret). Only the secret goes: a name, its operator and its
// quotes stay. Scrub is idempotent.
func Scrub(s string) string {
	if s == "" {
		return s
	}
	hits := scan(s)
	if hits.has(privateRule) {
		s = privateTag.ReplaceAllString(s, PrivateMarker)
	}
	// The three find their spans in the same text, so that one's
	// redaction does not hide a name another reads.
	spans := gitleaksSpans(s)
	spans = append(spans, ruleSpans(s, hits)...)
	return redact(s, append(spans, assignSpans(s)...))
}

// redact replaces the spans of s (merged where they overlap) by Redacted.
func redact(s string, spans []span) string {
	if len(spans) == 0 {
		return s
	}
	sort.Slice(spans, func(i, j int) bool { return spans[i].from < spans[j].from })
	var b strings.Builder
	b.Grow(len(s))
	at := 0
	for i := 0; i < len(spans); {
		from, to := spans[i].from, spans[i].to
		for i++; i < len(spans) && spans[i].from <= to; i++ {
			to = max(to, spans[i].to)
		}
		if from < at {
			from = at
		}
		b.WriteString(s[at:from])
		b.WriteString(Redacted)
		at = to
	}
	b.WriteString(s[at:])
	return b.String()
}

// privateRule is the private tag's id in ruleIndex (rules use their
// index in rules).
const privateRule = 127

// ruleIndex finds the keywords of rules.go's rules and the private tag.
var ruleIndex = newIndex(func(add func(kw string, id int)) {
	add("private", privateRule)
	for i, r := range rules {
		for _, kw := range r.keywords {
			add(kw, i)
		}
	}
})

// scan returns the rules whose keywords occur in s (and whose near
// condition holds there).
func scan(s string) ruleSet {
	return ruleIndex.scan(s, func(id, at int) bool {
		return id == privateRule || rules[id].near == nil || rules[id].near(s, at)
	})
}

// Margin is how far past a cut a text is scrubbed before it is cut: longer
// than any secret a rule knows (an 8192-bit RSA key in PEM is about 6.3
// KB), so a secret the cut would split is found whole and replaced first.
const Margin = 16 << 10

// Prefix is Scrub of s's first n bytes and Margin more, for a caller that
// keeps at most n bytes of the result (after its own reformatting): the
// cost stays bounded however long s is, and no secret is cut in two
// before it is found. Cut a text after Prefix, never before.
func Prefix(s string, n int) string {
	if len(s) > n+Margin {
		s = s[:n+Margin]
	}
	return Scrub(s)
}
