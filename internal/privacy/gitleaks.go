package privacy

import (
	"crypto/sha256"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/rs/zerolog"
	"github.com/spf13/viper"
	"github.com/zricethezav/gitleaks/v8/config"
	"github.com/zricethezav/gitleaks/v8/detect"
	"github.com/zricethezav/gitleaks/v8/logging"
	"github.com/zricethezav/gitleaks/v8/report"
)

// The detector: gitleaks' default rule set, loaded once per process, and
// one detector per rule, so that a text runs only the rules whose keywords
// it holds. gitleaks' own Detect does the same filtering, but walks every
// rule's keywords on every call (about 15 µs however short the text);
// glIndex finds the keywords in one pass.
var (
	loadOnce sync.Once
	loadErr  error
	loadTook time.Duration
	glRules  []config.Rule   // by id in glIndex
	perRule  []*ruleDetector // one per rule, same ids
	always   []int           // rules without keywords: they run on every text
	glIndex  *index          // gitleaks' keywords -> rule ids
	glByID   map[string]config.Rule
)

// Load reads gitleaks' default rule set and compiles it, once per process
// (tens of milliseconds); Scrub calls it on first use. The resident process
// calls it at start so that no hook waits for it. It returns how long the
// load took and the error that left Scrub without gitleaks' rules (then
// only the rules of rules.go and assign.go run).
func Load() (time.Duration, error) {
	loadOnce.Do(func() {
		start := time.Now()
		// gitleaks logs through a global zerolog logger to stderr; vibe's
		// hooks own their stderr, and a finding must never be printed.
		logging.Logger = logging.Logger.Level(zerolog.Disabled)
		cfg, err := defaultConfig()
		if err != nil {
			loadErr = err
			return
		}
		ids := make([]string, 0, len(cfg.Rules))
		for id := range cfg.Rules {
			ids = append(ids, id)
		}
		sort.Strings(ids)
		glByID = cfg.Rules
		for _, id := range ids {
			r := cfg.Rules[id]
			if r.Regex == nil {
				continue // a rule on file paths alone: vibe scans texts
			}
			one := config.Config{Rules: map[string]config.Rule{id: r}, Keywords: map[string]struct{}{},
				OrderedRules: []string{id}, Allowlists: cfg.Allowlists}
			for _, req := range r.RequiredRules {
				one.Rules[req.RuleID] = cfg.Rules[req.RuleID]
			}
			for _, kw := range r.Keywords {
				one.Keywords[strings.ToLower(kw)] = struct{}{}
			}
			if len(r.Keywords) == 0 {
				always = append(always, len(perRule))
			}
			glRules = append(glRules, r)
			perRule = append(perRule, &ruleDetector{cfg: one})
		}
		glIndex = newIndex(func(add func(kw string, id int)) {
			for i, r := range glRules {
				for _, kw := range r.Keywords {
					add(strings.ToLower(kw), i)
				}
			}
		})
		loadTook = time.Since(start)
	})
	return loadTook, loadErr
}

// ruleDetector is gitleaks' detector for one rule, made on its first use:
// a process without the resident one (vibe-hook, the CLI) builds only the
// detectors of the rules its texts' keywords reach.
type ruleDetector struct {
	once sync.Once
	cfg  config.Config
	d    *detect.Detector
}

func (r *ruleDetector) get() *detect.Detector {
	r.once.Do(func() {
		r.d = detect.NewDetector(r.cfg)
		// A `gitleaks:allow` comment on the line would hide the secret
		// from the detector; vibe stores what the line says, so the
		// comment must not keep it.
		r.d.IgnoreGitleaksAllow = true
	})
	return r.d
}

// defaultConfig is gitleaks' default rule set, read as
// detect.NewDetectorDefaultConfig reads it, without the detector it builds
// around all of it (a keyword trie vibe does not use: 5 ms of the load).
func defaultConfig() (config.Config, error) {
	v := viper.New()
	v.SetConfigType("toml")
	if err := v.ReadConfig(strings.NewReader(config.DefaultConfig)); err != nil {
		return config.Config{}, err
	}
	var vc config.ViperConfig
	if err := v.Unmarshal(&vc); err != nil {
		return config.Config{}, err
	}
	return vc.Translate()
}

// Rules is the number of gitleaks rules Scrub runs (0 when they could not
// be loaded).
func Rules() int {
	Load()
	return len(perRule)
}

// span is a byte range of a text to be replaced by Redacted.
type span struct{ from, to int }

// gitleaksSpans is where gitleaks' default rules find a secret in s: the
// secret of each finding (the rule's secret group, not the identifier or
// the operator before it).
func gitleaksSpans(s string) []span {
	if Load(); len(perRule) == 0 {
		return nil
	}
	if len(s) <= chunk+overlap {
		return chunkSpans(s)
	}
	// gitleaks places each finding by walking every line of the text it
	// was given: a megabyte with a secret on each line took seconds. In
	// chunks of lines that overlap by more than any secret is long, the
	// walk stays short and no secret is cut in two.
	var out []span
	for a := 0; a < len(s); {
		b := lineEnd(s, min(len(s), a+chunk+overlap))
		for _, sp := range chunkSpans(s[a:b]) {
			out = append(out, span{a + sp.from, a + sp.to})
		}
		if b == len(s) {
			break
		}
		a = lineEnd(s, a+chunk)
	}
	return out
}

// chunk and overlap are the lengths gitleaksSpans cuts a long text into.
const (
	chunk   = 32 << 10
	overlap = Margin
)

// lineEnd is the offset after the line break at or after i (len(s) when
// there is none).
func lineEnd(s string, i int) int {
	if j := strings.IndexByte(s[i:], '\n'); j >= 0 {
		return i + j + 1
	}
	return len(s)
}

// chunkSpans runs the rules whose keywords s holds on s.
func chunkSpans(s string) []span {
	hits := glIndex.scan(s, nil)
	for _, i := range always {
		hits.add(i)
	}
	var out []span
	for i, rd := range perRule {
		if !hits.has(i) {
			continue
		}
		d := rd.get()
		if glRules[i].RuleID != genericRule || len(s) < windowed {
			out = append(out, findingSpans(s, d.DetectString(s))...)
			continue
		}
		for _, w := range genericWindows(s) {
			for _, sp := range findingSpans(s[w.from:w.to], d.DetectString(s[w.from:w.to])) {
				out = append(out, span{w.from + sp.from, w.from + sp.to})
			}
		}
	}
	return out
}

// findingSpans are the secrets of findings in s.
func findingSpans(s string, findings []report.Finding) []span {
	if len(findings) == 0 {
		return nil
	}
	var lines []int // offsets of the line breaks, computed on first need
	var out []span
	for _, f := range findings {
		if f.Secret == "" {
			continue
		}
		if lines == nil {
			lines = newlines(s)
		}
		if sp, ok := locate(s, lines, f); ok {
			out = append(out, lineCut(s, sp))
			continue
		}
		// Not where the finding says (it should not happen): every
		// occurrence of the secret goes.
		for i := 0; ; {
			j := strings.Index(s[i:], f.Secret)
			if j < 0 {
				break
			}
			out = append(out, span{i + j, i + j + len(f.Secret)})
			i += j + len(f.Secret)
		}
	}
	return out
}

// genericRule is gitleaks' generic-api-key: a name holding one of its
// keywords, then within 23 characters an operator, then a value. Its
// expression costs about half a microsecond a byte, and a long text names
// "token" or "key" on most lines (tokens/s in a training log, api in code),
// so on a text of windowed bytes or more it runs only on the lines where a
// keyword is followed by an operator (genericWindows): every match it can
// make lies there.
const genericRule = "generic-api-key"

// windowed is the length from which generic-api-key runs on windows.
const windowed = 2048

// genericKeywords finds generic-api-key's keywords.
var genericKeywords = newIndex(func(add func(kw string, id int)) {
	for _, kw := range glByID[genericRule].Keywords {
		add(strings.ToLower(kw), 0)
	}
})

// genericWindows are the parts of s generic-api-key can match in: from
// the start of the line of a keyword followed by an operator (within 20
// name characters or blanks, then up to 3 blanks or quotes: the rule's
// own bounds) to the end of the eighth line after it (the blanks before
// and after the operator may break lines), merged where they overlap.
func genericWindows(s string) []span {
	var out []span
	genericKeywords.each(s, func(_, at int) {
		if !operatorNear(s, at) {
			return
		}
		from := strings.LastIndexByte(s[:at], '\n') + 1
		to := at
		for n := 0; n < 9 && to < len(s); n++ {
			j := strings.IndexByte(s[to:], '\n')
			if j < 0 {
				to = len(s)
				break
			}
			to += j + 1
		}
		if k := len(out) - 1; k >= 0 && from <= out[k].to {
			out[k].to = max(out[k].to, to)
			return
		}
		out = append(out, span{from, to})
	})
	return out
}

// operatorNear: after at, at most 20 of [ \t\w.-], at most 3 of [\s'"],
// then one of generic-api-key's operators (= > : | ? ,).
func operatorNear(s string, at int) bool {
	i := at
	for n := 0; n < 20 && i < len(s) && (isAlnum(s[i]) || strings.IndexByte(" \t_.-", s[i]) >= 0); n++ {
		i++
	}
	for n := 0; n < 3 && i < len(s) && strings.IndexByte(" \t\n\r\v\f'\"", s[i]) >= 0; n++ {
		i++
	}
	return i < len(s) && strings.IndexByte("=>:|?,", s[i]) >= 0
}

// lineCut ends a span that runs into the middle of a later line at the
// last line break inside it: a rule whose token may wrap over lines
// (jwt-base64's [a-zA-Z0-9/\\_+\-\r\n]{40,}) also takes the first word of
// the next line, which is text, not token.
func lineCut(s string, sp span) span {
	if sp.to >= len(s) || s[sp.to] == '\n' || s[sp.to] == '\r' {
		return sp
	}
	if i := strings.LastIndexByte(s[sp.from:sp.to], '\n'); i > 0 {
		sp.to = sp.from + i
		for sp.to > sp.from && s[sp.to-1] == '\r' {
			sp.to--
		}
	}
	return sp
}

// newlines are the offsets of the line breaks of s.
func newlines(s string) []int {
	out := []int{}
	for i := 0; i < len(s); i++ {
		if s[i] == '\n' {
			out = append(out, i)
		}
	}
	return out
}

// locate turns a finding's line and column back into the offsets of its
// secret. gitleaks counts a match's column from the line break before it
// (from the text's start on the first line), plus one.
func locate(s string, lines []int, f report.Finding) (span, bool) {
	base := 0
	if f.StartLine > 0 {
		if f.StartLine > len(lines) {
			return span{}, false
		}
		base = lines[f.StartLine-1]
	}
	start := base + f.StartColumn - 1
	if start < 0 || start+len(f.Match) > len(s) || s[start:start+len(f.Match)] != f.Match {
		// The match may have lost leading line breaks; find it on its line.
		end := len(s)
		if f.EndLine < len(lines) {
			end = lines[f.EndLine]
		}
		from := max(0, min(base, len(s)))
		i := strings.Index(s[from:end], f.Match)
		if i < 0 {
			return span{}, false
		}
		start = from + i
	}
	return secretIn(f, start), true
}

// secretIn is the part of a finding's match (at start) its rule calls the
// secret: the rule's secret group, else its one group, else the extent of
// the groups it matched, else the whole match. A rule with named groups
// (jwt-base64: alg, kid, typ…) names parts of the token, so its whole
// match is the secret.
func secretIn(f report.Finding, start int) span {
	whole := span{start, start + len(f.Match)}
	r, ok := glByID[f.RuleID]
	if !ok || r.Regex == nil || r.Regex.NumSubexp() == 0 || named(r.Regex.SubexpNames()) {
		return whole
	}
	m := r.Regex.FindStringSubmatchIndex(f.Match)
	if m == nil {
		return whole
	}
	if g := r.SecretGroup; g > 0 && 2*g+1 < len(m) && m[2*g] >= 0 {
		return span{start + m[2*g], start + m[2*g+1]}
	}
	from, to := -1, -1
	for g := 1; 2*g+1 < len(m); g++ {
		if m[2*g] < 0 || m[2*g] == m[2*g+1] {
			continue
		}
		if from < 0 || m[2*g] < from {
			from = m[2*g]
		}
		to = max(to, m[2*g+1])
	}
	if from < 0 {
		return whole
	}
	return span{start + from, start + to}
}

// named reports whether a regex's groups have names.
func named(names []string) bool {
	for _, n := range names {
		if n != "" {
			return true
		}
	}
	return false
}

// rulesVersion is the version of rules.go's and assign.go's rules: raise it
// when they find more, so that stored texts are scrubbed again
// (store.RescanSecrets).
const rulesVersion = 1

// Version names the rules Scrub runs: a digest of gitleaks' default rule
// set (its gitleaks.toml, which changes with every rule gitleaks adds or
// widens) and rulesVersion. A text scrubbed under one Version may hold
// what a later one finds.
func Version() string {
	sum := sha256.Sum256([]byte(config.DefaultConfig))
	return fmt.Sprintf("gitleaks %x; vibe %d", sum[:6], rulesVersion)
}
