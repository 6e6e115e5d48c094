// Package corpus holds the texts vibe's privacy tests are run on: a secret
// corpus (gitleaks' own true-positive samples for every rule of its
// default rule set, testdata/gitleaks-tp.jsonl.gz, placed in the forms
// people write them in by Forms) and a provenance corpus (testdata/
// provenance.txt: numbers, hyper-parameters, model and tokenizer names,
// seeds, checksums, DOIs, accessions, git SHAs, UUIDs and text that merely
// looks like a token's prefix, none of which may be redacted). Tests only;
// it imports only the standard library.
package corpus

//go:generate go run ./gen

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"embed"
	"encoding/json"
	"fmt"
	"net/url"
	"sort"
	"strings"
)

//go:embed testdata/gitleaks-tp.jsonl.gz testdata/provenance.txt
var files embed.FS

// Sample is one of gitleaks' true positives: the text its rule generator
// validates, the secrets gitleaks' default detector finds in it (Value is
// the first whole: a rule such as jwt-base64 calls a piece of it the
// secret), the rule's keywords, and whether Value alone is found (a token
// with a shape of its own) or only in its context.
type Sample struct {
	Rule     string   `json:"rule"`
	Keywords []string `json:"keywords,omitempty"`
	Text     string   `json:"text"`
	Secrets  []string `json:"secrets"`
	Value    string   `json:"value"`
	Bare     bool     `json:"bare,omitempty"`
}

// Gitleaks returns gitleaks' true-positive samples, by rule.
func Gitleaks() ([]Sample, error) {
	raw, err := files.ReadFile("testdata/gitleaks-tp.jsonl.gz")
	if err != nil {
		return nil, err
	}
	zr, err := gzip.NewReader(bytes.NewReader(raw))
	if err != nil {
		return nil, err
	}
	sc := bufio.NewScanner(zr)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	var out []Sample
	for first := true; sc.Scan(); first = false {
		if first {
			continue // the header: source, licence, count
		}
		var s Sample
		if err := json.Unmarshal(sc.Bytes(), &s); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, sc.Err()
}

// Placed is a secret in one form.
type Placed struct {
	Rule   string
	Form   string
	Text   string
	Secret string
}

// Forms places a sample's secret in the forms people write secrets in
// that gitleaks' own samples leave out (its generator lists most of them
// as TODO): an XML element on one line, an XML attribute pair, a JSON
// name/value object, JSON inside a JSON string, a typed Kotlin, Python,
// TypeScript or Rust declaration, PHP's ??=, Make's +=, R's <- and
// Sys.setenv, PowerShell's $env:, a Kubernetes env list, a URL's
// credentials and query, a header, a command-line flag, an environment
// assignment before a command, CSV, a Gradle property list; and, for a
// secret with a shape of its own (Bare), alone, in a comment, in a log
// line and inside a command or a sentence. The first Placed is the sample
// itself. A secret with quotes or blanks in it (curl's user:password
// pairs) is a sample only. ident is the rule's first keyword, as the
// samples' names hold it.
func Forms(s Sample) []Placed {
	sec := s.Value
	out := []Placed{{Rule: s.Rule, Form: "gitleaks sample", Text: s.Text, Secret: sec}}
	if sec == "" || strings.ContainsAny(sec, "\"'` \t\n\r\\") {
		return out
	}
	id := ident(s)
	forms := [][2]string{
		{"xml element", "<{i}Token>{s}</{i}Token>"},
		{"xml element with attribute", `<{i}Token type="string">{s}</{i}Token>`},
		{"xml attribute pair", `<add key="{i}Token" value="{s}" />`},
		{"json name/value", `{"name": "{I}_TOKEN", "value": "{s}"}`},
		{"json in a json string", `{"config": "{\"{i}_token\": \"{s}\"}"}`},
		{"kotlin typed", `val {i}Token: String = "{s}"`},
		{"python typed", `{i}_token: str = "{s}"`},
		{"typescript typed", `const {i}Token: string = '{s}';`},
		{"rust typed", `let {i}_token: &str = "{s}";`},
		{"go typed", `var {i}Token string = "{s}"`},
		{"go short", `{i}Token := "{s}"`},
		{"php null coalesce", `${i}Token ??= "{s}";`},
		{"make append", `{I}_TOKEN += {s}`},
		{"r assignment", `{i}_token <- "{s}"`},
		{"r setenv", `Sys.setenv({I}_TOKEN = "{s}")`},
		{"powershell env", `$env:{I}_TOKEN = "{s}"`},
		{"kubernetes env", "env:\n  - name: {I}_API_KEY\n    value: {s}\n"},
		{"url credentials", "git clone https://{i}:{u}@example.com/lab/repo.git"},
		{"url query", "curl 'https://example.com/v1?{i}Token={u}&page=2'"},
		{"header", `curl -H "X-{I}-Token: {s}" https://example.com/v1`},
		{"flag", "python sync.py --{i}-token {s} --dry-run"},
		{"flag with equals", "python sync.py --{i}-token={s}"},
		{"env before command", "{I}_API_KEY={s} python train.py --epochs 3"},
		{"export", "export {I}_API_KEY={s}"},
		{"csv", "{i}Token,{s},2026-11-24"},
		{"gradle property list", "environmentVariables = {PATH=/usr/local/bin, {I}_PASSWORD={s}, LC_CTYPE=en_CA.UTF-8},"},
		{"dotenv quoted", `{I}_SECRET='{s}'`},
		{"yaml", "{i}:\n  api_key: {s}\n"},
		{"python kwargs", `client = Client(api_key="{s}", timeout=30)`},
		{"python dict", `cfg = {"{i}_token": "{s}", "retries": 3}`},
	}
	if s.Bare {
		forms = append(forms, [][2]string{
			{"bare", "{s}"},
			{"comment", "# {s} is the key for {i}"},
			{"log line", "2026-11-24T09:00:00Z INFO loaded credential {s} from env"},
			{"in a command", "echo {s} | gh secret set X"},
			{"in a sentence", "I pasted {s} into the notebook."},
		}...)
	}
	// In a URL the secret is percent-encoded, as it must be to be sent.
	esc := url.QueryEscape(sec)
	r := strings.NewReplacer("{i}", id, "{I}", strings.ToUpper(id), "{s}", sec, "{u}", esc)
	for _, f := range forms {
		p := Placed{Rule: s.Rule, Form: f[0], Text: r.Replace(f[1]), Secret: sec}
		if strings.Contains(f[1], "{u}") {
			p.Secret = esc
		}
		out = append(out, p)
	}
	return out
}

// ident is a name for the sample's secret made of the rule's first
// keyword (letters only: "adobe", "sk-ant-api03" gives "skantapi").
func ident(s Sample) string {
	kw := "service"
	if len(s.Keywords) > 0 {
		kw = s.Keywords[0]
	}
	var b strings.Builder
	for _, c := range strings.ToLower(kw) {
		if c >= 'a' && c <= 'z' {
			b.WriteRune(c)
		}
	}
	if b.Len() < 2 {
		return "service"
	}
	return b.String()
}

// Kept is one text of the provenance corpus and its class.
type Kept struct {
	Class string
	Text  string
	Line  int
}

// Provenance returns the provenance corpus: texts that must come out of
// Scrub exactly as they went in. testdata/provenance.txt holds one text a
// line under "## class" headings ("%%" starts a comment line); a line
// ending in a backslash continues on the next (a text of several lines).
func Provenance() ([]Kept, error) {
	raw, err := files.ReadFile("testdata/provenance.txt")
	if err != nil {
		return nil, err
	}
	var out []Kept
	class := ""
	var cont strings.Builder
	start := 0
	for i, line := range strings.Split(string(raw), "\n") {
		switch {
		case cont.Len() == 0 && strings.HasPrefix(line, "## "):
			class = strings.TrimSpace(line[3:])
			continue
		case cont.Len() == 0 && (line == "" || strings.HasPrefix(line, "%%")):
			continue
		}
		if cont.Len() == 0 {
			start = i + 1
		}
		if t, ok := strings.CutSuffix(line, `\`); ok {
			cont.WriteString(t + "\n")
			continue
		}
		cont.WriteString(line)
		if class == "" {
			return nil, fmt.Errorf("provenance.txt:%d: a text before the first ## class", start)
		}
		out = append(out, Kept{Class: class, Text: cont.String(), Line: start})
		cont.Reset()
	}
	return out, nil
}

// Classes are the provenance corpus's classes, sorted.
func Classes(ks []Kept) []string {
	seen := map[string]bool{}
	var out []string
	for _, k := range ks {
		if !seen[k.Class] {
			seen[k.Class] = true
			out = append(out, k.Class)
		}
	}
	sort.Strings(out)
	return out
}
