// Package privacy removes what must never be stored: text inside
// <private>…</private> tags and common secret shapes (API keys, bearer
// tokens, passwords in URLs, private key blocks, key=value credentials).
// store runs every text it writes through Scrub, so this is the one place
// the rule lives. Standard library only.
package privacy

import (
	"github.com/vibe-science/vibe/internal/lazyre"
	"strings"
)

// Redacted marks where a secret was removed.
const Redacted = "[REDACTED]"

// PrivateMarker replaces a <private> block.
const PrivateMarker = "[private]"

var privateTag = lazyre.New(`(?is)<private>.*?(</private>|\z)`)

type rule struct {
	re   *lazyre.Regexp
	repl string
}

var rules = []rule{
	// PEM private key blocks, whole.
	{lazyre.New(`(?s)-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----.*?(-----END [A-Z0-9 ]*PRIVATE KEY-----|\z)`), "[REDACTED private key]"},
	// user:password@ in URLs.
	{lazyre.New(`([a-zA-Z][a-zA-Z0-9+.-]*://[^/\s:@]+):[^@\s/]+@`), "$1:" + Redacted + "@"},
	// Authorization headers and bearer tokens.
	{lazyre.New(`(?i)\b(bearer|basic|token)\s+[A-Za-z0-9._~+/=-]{12,}`), "$1 " + Redacted},
	// Well-known key shapes.
	{lazyre.New(`\bsk-(ant-)?[A-Za-z0-9_-]{16,}`), Redacted},
	{lazyre.New(`\b(gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})`), Redacted},
	{lazyre.New(`\b(AKIA|ASIA)[0-9A-Z]{16}\b`), Redacted},
	{lazyre.New(`\bAIza[0-9A-Za-z_-]{35}\b`), Redacted},
	{lazyre.New(`\bxox[abposr]-[A-Za-z0-9-]{10,}`), Redacted},
	{lazyre.New(`\beyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}`), Redacted},
	// key=value / key: value credentials.
	{lazyre.New(`(?i)\b([A-Z0-9_]*(password|passwd|pwd|secret|api[_-]?key|access[_-]?key|auth[_-]?token|token)[A-Z0-9_]*)(["']?\s*[:=]\s*)("[^"]*"|'[^']*'|[^\s,;&]+)`), "$1$3" + Redacted},
}

// Scrub returns s without private blocks and with secrets replaced.
func Scrub(s string) string {
	if s == "" {
		return s
	}
	if strings.Contains(strings.ToLower(s), "<private>") {
		s = privateTag.ReplaceAllString(s, PrivateMarker)
	}
	if !mayHoldSecret(s) {
		return s
	}
	for _, r := range rules {
		s = r.re.ReplaceAllString(s, r.repl)
	}
	return s
}

// mayHoldSecret is a cheap pre-filter so ordinary text skips the regexes.
func mayHoldSecret(s string) bool {
	l := strings.ToLower(s)
	for _, k := range []string{"-----begin", "://", "bearer", "basic", "token", "sk-", "gh", "akia", "asia",
		"aiza", "xox", "eyj", "pass", "pwd", "secret", "key"} {
		if strings.Contains(l, k) {
			return true
		}
	}
	return false
}
