package privacy

import (
	"strings"

	"github.com/vibe-science/vibe/internal/lazyre"
)

// rule is one secret shape. id is gitleaks' rule id where gitleaks has the
// shape (github.com/gitleaks/gitleaks, config/gitleaks.toml), else a name of
// ours; keywords are lower-case substrings one of which must occur for the
// regex to run (gitleaks' own pre-filter idea). repl replaces each match.
type rule struct {
	id       string
	keywords []string
	re       *lazyre.Regexp
	repl     string
	// near, when set, must also hold just after a keyword occurrence
	// (at is the index after it) for the rule to run: a cheap necessary
	// condition that keeps a slow regex off text that merely mentions
	// a "key" or a "token".
	near func(s string, at int) bool
}

// whole is a rule whose match is the secret itself.
func whole(id string, keywords []string, expr string) rule {
	return rule{id: id, keywords: keywords, re: lazyre.New(expr), repl: Redacted}
}

// after is a rule whose first group (a flag, a name, a separator) stays
// and whose rest is the secret.
func after(id string, keywords []string, expr string) rule {
	return rule{id: id, keywords: keywords, re: lazyre.New(expr), repl: "${1}" + Redacted}
}

// value is a quoted or bare command-line value; a value already redacted
// is matched whole, so that Scrub is idempotent.
const value = `(\[REDACTED\]|"[^"]*"|'[^']*'|[^\s"']+)`

// rules run in order: whole blocks and provider tokens first (their shapes
// are exact), then credentials on command lines and in URLs, then generic
// name=value assignments, which would otherwise cut a token in two.
var rules = []rule{
	{id: "private-key", keywords: []string{"-----begin"},
		re:   lazyre.New(`(?s)-----BEGIN[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----.*?(?:-----END[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|\z)`),
		repl: "[REDACTED private key]"},

	// Provider tokens (gitleaks rule ids).
	whole("aws-access-token", []string{"akia", "asia", "abia", "acca", "a3t"}, `\b(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}\b`),
	whole("github-pat", []string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_"}, `\bgh[pousr]_[A-Za-z0-9]{30,}`),
	whole("github-fine-grained-pat", []string{"github_pat_"}, `\bgithub_pat_[A-Za-z0-9_]{22,}`),
	whole("gitlab-pat", []string{"glpat-", "glptt-", "gldt-", "glrt-", "glcbt-", "glsoat-", "glffct-", "gloas-", "glimt-", "glagent-", "glft-", "gr1348941"},
		`\b(?:gl(?:pat|ptt|dt|rt|cbt|soat|ffct|oas|imt|agent|ft)-[A-Za-z0-9_.\-]{20,}|GR1348941[A-Za-z0-9_\-]{20,})`),
	whole("huggingface-access-token", []string{"hf_", "api_org_"}, `\b(?:hf_|api_org_)[A-Za-z0-9]{30,}`),
	whole("stripe-access-token", []string{"sk_", "rk_", "whsec_"}, `\b(?:(?:sk|rk)_(?:test|live|prod)_[A-Za-z0-9]{10,}|whsec_[A-Za-z0-9]{20,})`),
	whole("slack-token", []string{"xox", "xapp-"}, `\b(?:xox[abposre]-[A-Za-z0-9-]{10,}|xapp-\d-[A-Za-z0-9-]{10,})`),
	whole("slack-webhook-url", []string{"hooks.slack.com"}, `(?i)https?://hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9+/_-]{20,}`),
	whole("discord-webhook-url", []string{"discord"}, `(?i)https?://(?:ptb\.|canary\.)?discord(?:app)?\.com/api/webhooks/\d+/[A-Za-z0-9_-]{40,}`),
	whole("anthropic-api-key/openai-api-key", []string{"sk-"}, `\bsk-(?:ant-|proj-|svcacct-|admin-)?[A-Za-z0-9_-]{16,}`),
	whole("gcp-api-key", []string{"aiza"}, `\bAIza[0-9A-Za-z_-]{35}`),
	whole("jwt/1password-service-account-token", []string{"eyj"}, `(?:\bops_|\b)eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}(?:\.[A-Za-z0-9_-]{10,})?`),
	whole("npm-access-token", []string{"npm_"}, `\bnpm_[A-Za-z0-9]{36}\b`),
	whole("pypi-upload-token", []string{"pypi-ageichlwas5vcmc"}, `pypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{50,}`),
	whole("sendgrid-api-token", []string{"sg."}, `\bSG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}\b`),
	whole("twilio-api-key", []string{"sk"}, `\bSK[0-9a-fA-F]{32}\b`),
	whole("mailgun-private-api-token", []string{"key-"}, `\bkey-[0-9a-f]{32}\b`),
	whole("shopify-access-token", []string{"shpat_", "shpca_", "shppa_", "shpss_"}, `\bshp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}\b`),
	whole("digitalocean-access-token", []string{"dop_v1_", "doo_v1_", "dor_v1_"}, `\bdo[opr]_v1_[a-f0-9]{64}\b`),
	whole("databricks-api-token", []string{"dapi"}, `\bdapi[a-f0-9]{32}(?:-\d)?\b`),
	whole("age-secret-key", []string{"age-secret-key-1"}, `AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}`),
	whole("doppler-api-token", []string{"dp.pt."}, `\bdp\.pt\.[A-Za-z0-9]{43}\b`),
	whole("linear-api-key", []string{"lin_api_"}, `\blin_api_[A-Za-z0-9]{40}\b`),
	whole("postman-api-token", []string{"pmak-"}, `\bPMAK-[a-fA-F0-9]{24}-[a-fA-F0-9]{34}\b`),
	whole("pulumi-api-token", []string{"pul-"}, `\bpul-[a-f0-9]{40}\b`),
	whole("grafana-cloud-api-token/grafana-service-account-token", []string{"glc_", "glsa_"}, `\b(?:glc_[A-Za-z0-9+/]{32,}={0,2}|glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8})`),
	whole("vault-service-token/vault-batch-token", []string{"hvs.", "hvb."}, `\bhv[sb]\.[A-Za-z0-9_-]{24,}`),
	whole("hashicorp-tf-api-token", []string{".atlasv1."}, `\b[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_=-]{60,70}`),
	whole("sentry-org-token/sentry-user-token", []string{"sntrys_", "sntryu_"}, `\b(?:sntrys_eyJ[A-Za-z0-9+/=_-]{20,}|sntryu_[a-f0-9]{64})`),
	whole("new-relic-user-api-key", []string{"nrak-"}, `\bNRAK-[A-Z0-9]{27}\b`),
	whole("telegram-bot-api-token", []string{":a"}, `\d{5,16}:A[A-Za-z0-9_-]{34}\b`),
	whole("atlassian-api-token", []string{"atatt3"}, `\bATATT3[A-Za-z0-9_=-]{100,}`),
	whole("square-access-token", []string{"sq0atp-", "sq0csp-", "eaaa"}, `\b(?:sq0atp-[A-Za-z0-9_-]{22}|sq0csp-[A-Za-z0-9_-]{43}|EAAA[A-Za-z0-9_-]{60})\b`),
	whole("facebook-access-token", []string{"eaa"}, `\bEAA[MC][A-Za-z0-9]{100,}`),
	whole("mailchimp-api-key", []string{"-us"}, `\b[0-9a-f]{32}-us\d{1,2}\b`),
	whole("dropbox-short-lived-api-token", []string{"sl."}, `\bsl\.[A-Za-z0-9_=-]{130,}`),
	whole("notion-api-token", []string{"secret_", "ntn_"}, `\b(?:secret_[A-Za-z0-9]{43}|ntn_[0-9]{11}[A-Za-z0-9]{35})\b`),
	whole("replicate-api-token", []string{"r8_"}, `\br8_[A-Za-z0-9]{37}\b`),
	whole("groq-api-key", []string{"gsk_"}, `\bgsk_[A-Za-z0-9]{52}\b`),
	whole("perplexity-api-key", []string{"pplx-"}, `\bpplx-[A-Za-z0-9]{48}\b`),
	whole("xai-api-key", []string{"xai-"}, `\bxai-[A-Za-z0-9]{80}\b`),
	whole("heroku-api-key-v2", []string{"hrku-"}, `\bHRKU-[A-Za-z0-9_-]{60}\b`),

	// Credentials on command lines and in URLs.
	{id: "url-credentials", keywords: []string{"://"},
		re: lazyre.New(`([a-zA-Z][a-zA-Z0-9+.-]*://[^/\s:@]*):[^@\s/]+@`), repl: "${1}:" + Redacted + "@"},
	{id: "curl-auth-user", keywords: []string{"-u", "--user"},
		re:   lazyre.New(`(\bcurl\b[^\n|;&]*?\s(?:-u\s*|--user[\s=]+)["']?[^\s:"']+:)([^\s"']+)`),
		repl: "${1}" + Redacted},
	after("mysql-password-flag", []string{"-p"},
		`(\b(?:mysql|mysqldump|mysqladmin|mysqlimport|mysqlshow|mysqlcheck|mariadb|mariadb-dump)\b[^\n|;&]*?\s-p)`+value),
	after("sshpass-password", []string{"sshpass"}, `(\bsshpass\s+-p\s*)`+value),
	after("registry-login-password", []string{"login"},
		`(\b(?:docker|podman|helm|oras|buildah|skopeo)\s+(?:registry\s+)?login\b[^\n|;&]*?\s(?:-p|--password)(?:\s+|=))`+value),
	after("netrc-password", []string{"machine"}, `(?i)(\bmachine\s+\S+\s+login\s+\S+\s+password\s+)(\S+)`),
	after("password-flag", []string{"--pass", "--token", "--secret", "--api-key", "--api_key", "--apikey", "--auth"},
		`(?i)(--(?:[a-z0-9]+-)*(?:password|passwd|pass|token|secret|api[-_]?key|auth[-_]?token)(?:\s+|=))("[^"]*"|'[^']*'|[^\s"'-][^\s"']*)`),
	{id: "authorization-header", keywords: []string{"bearer", "basic", "token"},
		re: lazyre.New(`(?i)\b(bearer|basic|token)\s+[A-Za-z0-9._~+/=-]{12,}`), repl: "$1 " + Redacted, near: credentialFollows},

	// name=value and "name": "value" assignments (gitleaks: generic-api-key).
	{id: "generic-api-key", keywords: []string{"pass", "pwd", "secret", "key", "token", "credential"},
		re: lazyre.New(`(?i)\b([A-Z0-9_.-]*(?:password|passwd|pwd|secret|api[_-]?key|access[_-]?key|accountkey|auth[_-]?token|token|credentials?|private[_-]?key)[A-Z0-9_.-]*)` +
			`(["']?\s*[:=]\s*)(\[REDACTED\]|"[^"]*"|'[^']*'|[^\s,;&]+)`),
		repl: "$1$2" + Redacted, near: assignmentFollows},
}

// assignmentFollows: after the rest of a name ([A-Za-z0-9_.-]), an
// optional quote and blanks, a ':' or '=' (generic-api-key's shape).
func assignmentFollows(s string, at int) bool {
	i := at
	for i < len(s) && (isAlnum(s[i]) || s[i] == '_' || s[i] == '.' || s[i] == '-') {
		i++
	}
	if i < len(s) && (s[i] == '"' || s[i] == '\'') {
		i++
	}
	for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	return i < len(s) && (s[i] == ':' || s[i] == '=')
}

// credentialFollows: blanks, then at least 12 token characters
// (authorization-header's shape).
func credentialFollows(s string, at int) bool {
	i := at
	for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r') {
		i++
	}
	if i == at {
		return false
	}
	n := 0
	for i < len(s) && n < 12 && (isAlnum(s[i]) || strings.IndexByte("._~+/=-", s[i]) >= 0) {
		i, n = i+1, n+1
	}
	return n == 12
}

func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}
