// Package privacy removes what must never be stored: text inside private
// tags (<private>…</private> in any letter case, with attributes such as
// reason="…" or blanks inside the brackets) and secrets, found by the rule
// table in rules.go (provider tokens and keys after gitleaks' default rule
// set, credentials on command lines, key=value assignments). store runs
// every text it writes through Scrub, and the spool, the CLI and the logs
// reach the disk only through store or through Scrub, so this is the one
// place the rule lives. Standard library only.
//
// Why not gitleaks itself (it is on the module proxy): measured on the
// development VM, its detector takes 195 ms to load its configuration and
// 7.6 ms to scan one short command, and brings 226 modules; Scrub runs on
// every event with a budget of microseconds. The table keeps gitleaks' rule
// ids so a shape can be traced to its source and the two compared.
package privacy

import (
	"sync"

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

// Scrub returns s without private blocks and with secrets replaced. A rule
// runs only when one of its keywords occurs in s (and its near condition
// holds there): one pass over s finds them all, so ordinary text costs
// about a nanosecond a byte and no regex.
func Scrub(s string) string {
	if s == "" {
		return s
	}
	hits := scan(s)
	if hits.has(privateRule) {
		s = privateTag.ReplaceAllString(s, PrivateMarker)
	}
	for i := range rules {
		if hits.has(i) {
			s = rules[i].re.ReplaceAllString(s, rules[i].repl)
		}
	}
	return s
}

// privateRule is the private tag's index in a ruleSet.
const privateRule = 127

// ruleSet is a set of rule indexes (below 128).
type ruleSet [2]uint64

func (r *ruleSet) add(i int)     { r[i>>6] |= 1 << (i & 63) }
func (r ruleSet) has(i int) bool { return r[i>>6]&(1<<(i&63)) != 0 }

// trigger is one keyword of one rule.
type trigger struct {
	kw   string
	rule int
}

// The keyword index: every keyword by its first two (lower-case) bytes.
var (
	indexOnce sync.Once
	pairList  [1 << 16]uint8 // pair -> 1 + index in triggers, 0 for none
	triggers  [][]trigger
)

func buildIndex() {
	if len(rules) >= privateRule {
		panic("privacy: too many rules for a ruleSet")
	}
	add := func(kw string, rule int) {
		p := uint16(kw[0])<<8 | uint16(kw[1])
		if pairList[p] == 0 {
			triggers = append(triggers, nil)
			pairList[p] = uint8(len(triggers))
		}
		triggers[pairList[p]-1] = append(triggers[pairList[p]-1], trigger{kw, rule})
	}
	add("private", privateRule)
	for i, r := range rules {
		for _, kw := range r.keywords {
			add(kw, i)
		}
	}
}

// fold lower-cases an ASCII letter.
func fold(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// scan returns the rules whose keywords occur in s.
func scan(s string) ruleSet {
	indexOnce.Do(buildIndex)
	var hits ruleSet
	for i := 0; i+1 < len(s); i++ {
		idx := pairList[uint16(fold(s[i]))<<8|uint16(fold(s[i+1]))]
		if idx == 0 {
			continue
		}
		for _, t := range triggers[idx-1] {
			if hits.has(t.rule) || !hasPrefixFold(s[i:], t.kw) {
				continue
			}
			if t.rule != privateRule && rules[t.rule].near != nil && !rules[t.rule].near(s, i+len(t.kw)) {
				continue
			}
			hits.add(t.rule)
		}
	}
	return hits
}

// hasPrefixFold reports whether s starts with the lower-case kw, ignoring
// ASCII case in s.
func hasPrefixFold(s, kw string) bool {
	if len(s) < len(kw) {
		return false
	}
	for j := 0; j < len(kw); j++ {
		if fold(s[j]) != kw[j] {
			return false
		}
	}
	return true
}
