package privacy

import (
	"strings"

	"github.com/vibe-science/vibe/internal/lazyre"
)

// rule is one credential form gitleaks' rules leave out: a command line's
// password, a URL's credentials, an authorization header, an unclosed
// private key. keywords are lower-case substrings one of which must occur
// for the regex to run; the regex's first group (a flag, a scheme and
// user, a header name) stays and the rest of the match is the secret.
type rule struct {
	id       string
	keywords []string
	re       *lazyre.Regexp
	// keep is how many groups before the secret stay (1 or 2); a rule
	// whose whole match is the secret has 0.
	keep int
	// near, when set, must also hold just after a keyword occurrence
	// (at is the index after it) for the rule to run: a cheap necessary
	// condition that keeps a slow regex off text that merely mentions
	// a keyword.
	near func(s string, at int) bool
}

// value is a quoted or bare command-line value; a value already redacted
// is matched whole, so that Scrub is idempotent.
const value = `(\[REDACTED\]|"[^"]*"|'[^']*'|[^\s"']+)`

// rules are the forms of rules.go's own; assignments (assign.go) and
// gitleaks' rules (gitleaks.go) do the rest.
var rules = []rule{
	// Tokens of providers gitleaks' rules leave out (AI providers a
	// research session uses: Replicate, Groq, Perplexity, xAI; Stripe's
	// webhook secrets, Notion's older secret_ keys, a Telegram bot's
	// token in its API URL) or match only at their full length (a key a
	// person shortened, or a fake one in a test, is still one).
	{id: "anthropic-openai-key", keywords: []string{"sk-"}, re: lazyre.New(`\bsk-(?:ant-|proj-|svcacct-|admin-)?[A-Za-z0-9_-]{16,}`)},
	{id: "replicate-token", keywords: []string{"r8_"}, re: lazyre.New(`\br8_[A-Za-z0-9]{30,}`)},
	{id: "groq-key", keywords: []string{"gsk_"}, re: lazyre.New(`\bgsk_[A-Za-z0-9]{40,}`)},
	{id: "perplexity-key", keywords: []string{"pplx-"}, re: lazyre.New(`\bpplx-[A-Za-z0-9]{40,}`)},
	{id: "xai-key", keywords: []string{"xai-"}, re: lazyre.New(`\bxai-[A-Za-z0-9]{60,}`)},
	{id: "huggingface-token", keywords: []string{"hf_"}, re: lazyre.New(`\bhf_[A-Za-z0-9]{30,}`)},
	{id: "github-token", keywords: []string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"},
		re: lazyre.New(`\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{22,})`)},
	{id: "stripe-webhook-secret", keywords: []string{"whsec_"}, re: lazyre.New(`\bwhsec_[A-Za-z0-9+/=]{20,}`)},
	{id: "slack-webhook-url", keywords: []string{"hooks.slack.com"},
		re: lazyre.New(`(?i)https?://hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9+/_-]{20,}`)},
	{id: "notion-token", keywords: []string{"secret_"}, re: lazyre.New(`\bsecret_[A-Za-z0-9]{43}\b`)},
	{id: "telegram-bot-token", keywords: []string{":a"}, re: lazyre.New(`\d{5,16}:A[A-Za-z0-9_-]{30,}`)},

	// An unclosed private key (a cut output, a partial paste): gitleaks'
	// private-key rule needs the END line.
	{id: "private-key-unclosed", keywords: []string{"-----begin"},
		re: lazyre.New(`(?s)-----BEGIN[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----.*?(?:-----END[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|\z)`)},

	{id: "url-credentials", keywords: []string{"://"},
		re: lazyre.New(`([a-zA-Z][a-zA-Z0-9+.-]*://[^/\s:@]*:)([^@\s/]+)@`), keep: 1},
	// curl -u user:password, on one line or continued with \ (gitleaks'
	// rule takes the last -u of up to six lines, so of two the first stays).
	{id: "curl-auth-user", keywords: []string{"-u", "--user"},
		re: lazyre.New(`(\bcurl\b(?:[^\n|;&]|\\\r?\n)*?\s(?:-u\s*|--user[\s=]+)["']?[^\s:"']+:)([^\s"']+)`), keep: 1},
	{id: "mysql-password-flag", keywords: []string{"-p"},
		re: lazyre.New(`(\b(?:mysql|mysqldump|mysqladmin|mysqlimport|mysqlshow|mysqlcheck|mariadb|mariadb-dump)\b[^\n|;&]*?\s-p)` + value), keep: 1},
	{id: "sshpass-password", keywords: []string{"sshpass"},
		re: lazyre.New(`(\bsshpass\s+-p\s*)` + value), keep: 1},
	{id: "registry-login-password", keywords: []string{"login"},
		re: lazyre.New(`(\b(?:docker|podman|helm|oras|buildah|skopeo)\s+(?:registry\s+)?login\b[^\n|;&]*?\s(?:-p|--password)(?:\s+|=))` + value), keep: 1},
	{id: "netrc-password", keywords: []string{"machine"},
		re: lazyre.New(`(?i)(\bmachine\s+\S+\s+login\s+\S+\s+password\s+)(\S+)`), keep: 1},
	// Authorization: Bearer|Basic|Token|Digest <credential>, and a bearer
	// credential anywhere; the credential must look like one (a digit or
	// mixed case, 12 characters or more), so prose stays.
	{id: "authorization-header", keywords: []string{"authorization", "bearer"},
		re: lazyre.New(`(?i)(\b(?:proxy-)?authorization["']?\s*[:=]\s*["']?(?:bearer|basic|token|digest|bot|apikey|sso-key)?\s*|\bbearer\s+)([A-Za-z0-9._~+/=-]{12,})`), keep: 1,
		near: credentialFollows},
}

// credentialFollows: within the next 40 bytes, a run of 12 token
// characters (authorization-header's shape).
func credentialFollows(s string, at int) bool {
	end := min(len(s), at+40)
	n := 0
	for i := at; i < end; i++ {
		if isAlnum(s[i]) || strings.IndexByte("._~+/=-", s[i]) >= 0 {
			if n++; n == 12 {
				return true
			}
		} else {
			n = 0
		}
	}
	return false
}

func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// ruleSpans are the secrets rules find in s (those the keyword scan hit).
func ruleSpans(s string, hits ruleSet) []span {
	var out []span
	for i := range rules {
		if !hits.has(i) {
			continue
		}
		r := &rules[i]
		for _, m := range r.re.Re().FindAllStringSubmatchIndex(s, -1) {
			from := m[0]
			if r.keep > 0 {
				from = m[2*r.keep+1]
			}
			to := m[1]
			if r.id == "url-credentials" {
				to-- // the @ stays
			}
			if v := s[from:to]; v == Redacted || strings.HasPrefix(v, "\"[REDACTED]") || strings.HasPrefix(v, "'[REDACTED]") {
				continue
			}
			if r.id == "authorization-header" && !credentialLike(s[from:to]) {
				continue
			}
			if from < to {
				out = append(out, span{from, to})
			}
		}
	}
	return out
}
