package privacy

import (
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/vibe-science/vibe/internal/privacy/corpus"
)

// formsPerRule is how many of a rule's samples are placed in every form
// (all of them are scrubbed as gitleaks wrote them).
const formsPerRule = 4

// TestGitleaksCorpus: every true positive of every rule of gitleaks' default
// rule set, as gitleaks' rule generator wrote it and in the forms people
// write secrets in (corpus.Forms), loses its secret, keeps a marker, and a
// second Scrub changes nothing.
func TestGitleaksCorpus(t *testing.T) {
	samples, err := corpus.Gitleaks()
	if err != nil {
		t.Fatal(err)
	}
	families := map[string]int{}
	placed, failed := 0, map[string]int{}
	for _, s := range samples {
		families[s.Rule]++
		ps := corpus.Forms(s)
		if families[s.Rule] > formsPerRule {
			ps = ps[:1]
		}
		for _, p := range ps {
			placed++
			got := Scrub(p.Text)
			secrets := []string{p.Secret}
			if p.Form == "gitleaks sample" {
				secrets = append(secrets, s.Secrets...)
			}
			for _, sec := range secrets {
				if strings.Contains(got, sec) {
					failed[p.Form]++
					if failed[p.Form] <= 3 {
						t.Errorf("%s, %s: %q kept %q", p.Rule, p.Form, got, sec)
					}
					break
				}
			}
			if !strings.Contains(got, Redacted) {
				t.Errorf("%s, %s: %q has no marker", p.Rule, p.Form, got)
			}
			if again := Scrub(got); again != got {
				t.Errorf("%s, %s: not idempotent: %q then %q", p.Rule, p.Form, got, again)
			}
		}
	}
	if len(families) < 200 || placed < 10000 {
		t.Fatalf("%d rule families, %d placements: the corpus is not gitleaks' (go generate ./internal/privacy/corpus)", len(families), placed)
	}
	if len(failed) > 0 {
		var forms []string
		for f, n := range failed {
			forms = append(forms, f+": "+itoa(n))
		}
		sort.Strings(forms)
		t.Errorf("kept secrets by form: %s", strings.Join(forms, ", "))
	}
	t.Logf("%d rule families, %d samples, %d placements", len(families), len(samples), placed)
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var b []byte
	for ; n > 0; n /= 10 {
		b = append([]byte{byte('0' + n%10)}, b...)
	}
	return string(b)
}

// TestProvenanceCorpus: nothing of the provenance corpus is redacted, class
// by class.
func TestProvenanceCorpus(t *testing.T) {
	kept, err := corpus.Provenance()
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"DOIs", "UUIDs in data", "accessions", "checksums", "git SHAs", "hyper-parameters",
		"model and tokenizer names", "numbers", "seeds", "text that looks like a token's prefix"}
	if got := corpus.Classes(kept); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("classes %q, want %q", got, want)
	}
	for _, class := range want {
		t.Run(class, func(t *testing.T) {
			n := 0
			for _, k := range kept {
				if k.Class != class {
					continue
				}
				n++
				if got := Scrub(k.Text); got != k.Text {
					t.Errorf("provenance.txt:%d: Scrub(%q) = %q", k.Line, k.Text, got)
				}
			}
			if n < 5 {
				t.Errorf("%d texts, want at least 5", n)
			}
		})
	}
}

// TestValueNotOperator: the value goes, the name, the operator and the
// quotes stay, in the forms gitleaks' rules miss or cut.
func TestValueNotOperator(t *testing.T) {
	const key = "LTAI5tQ8pWmZ3vK9xR2nY7bD" // an Alibaba access key id's shape
	const tok = "q9Xv2LmP7sR4tW8zK3nB6cJ1"
	for _, c := range []struct{ in, want string }{
		{`alibabaKey := "` + key + `"`, `alibabaKey := "[REDACTED]"`},
		{`var xToken string = "` + tok + `"`, `var xToken string = "[REDACTED]"`},
		{`x_token: str = "` + tok + `"`, `x_token: str = "[REDACTED]"`},
		{`val xToken: String = "` + tok + `"`, `val xToken: String = "[REDACTED]"`},
		{`<xToken>` + tok + `</xToken>`, `<xToken>[REDACTED]</xToken>`},
		{`<add key="ApiKey" value="` + tok + `" />`, `<add key="ApiKey" value="[REDACTED]" />`},
		{`{"name": "API_KEY", "value": "` + tok + `"}`, `{"name": "API_KEY", "value": "[REDACTED]"}`},
		{"ADOBE_CLIENT_ID=0123456789abcdef0123456789abcdef", "ADOBE_CLIENT_ID=[REDACTED]"},
		{`api_token <- "` + tok + `"`, `api_token <- "[REDACTED]"`},
		{`$env:API_TOKEN = "` + tok + `"`, `$env:API_TOKEN = "[REDACTED]"`},
		{"DB_PASSWORD=hunter2 python run.py", "DB_PASSWORD=[REDACTED] python run.py"},
		{"curl -H 'X-Api-Key: " + tok + "' https://x", "curl -H 'X-Api-Key: [REDACTED]' https://x"},
		{"curl -H 'Authorization: Bearer " + tok + "' https://x", "curl -H 'Authorization: Bearer [REDACTED]' https://x"},
		{"https://ana:" + tok + "@example.org/r.git", "https://ana:[REDACTED]@example.org/r.git"},
		{"https://example.org/v1?api_token=" + tok + "&page=2", "https://example.org/v1?api_token=[REDACTED]&page=2"},
		{"python sync.py --api-key " + tok + " --dry-run", "python sync.py --api-key [REDACTED] --dry-run"},
		{"env:\n  - name: API_KEY\n    value: " + tok + "\n", "env:\n  - name: API_KEY\n    value: [REDACTED]\n"},
	} {
		if got := Scrub(c.in); got != c.want {
			t.Errorf("Scrub(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// TestGenericWindowsAgree: on a long text, generic-api-key run on the
// windows genericWindows picks finds what it finds on the whole text.
func TestGenericWindowsAgree(t *testing.T) {
	samples, err := corpus.Gitleaks()
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for i, s := range samples {
		if s.Rule != genericRule && i%7 != 0 {
			continue
		}
		b.WriteString("epoch 3 step 1200 loss 0.43 tokens/s 18234 api calls 12 key findings\n")
		b.WriteString(s.Text)
		b.WriteString("\n")
	}
	text := b.String()
	if len(text) < 8*windowed {
		t.Fatalf("text of %d bytes", len(text))
	}
	Load()
	var d int
	for i := range glRules {
		if glRules[i].RuleID == genericRule {
			d = i
		}
	}
	whole := findingSpans(text, perRule[d].get().DetectString(text))
	var windowed []span
	for _, w := range genericWindows(text) {
		for _, sp := range findingSpans(text[w.from:w.to], perRule[d].get().DetectString(text[w.from:w.to])) {
			windowed = append(windowed, span{w.from + sp.from, w.from + sp.to})
		}
	}
	if len(whole) < 50 {
		t.Fatalf("generic-api-key found %d secrets in the whole text", len(whole))
	}
	key := func(ss []span) string {
		sort.Slice(ss, func(i, j int) bool { return ss[i].from < ss[j].from })
		var out []string
		for _, s := range ss {
			out = append(out, itoa(s.from)+"-"+itoa(s.to))
		}
		return strings.Join(out, ",")
	}
	if key(whole) != key(windowed) {
		t.Errorf("windows found %d spans, the whole text %d", len(windowed), len(whole))
	}
}

// BenchmarkLoad: what a process without the resident one pays once.
func BenchmarkLoad(b *testing.B) {
	for b.Loop() {
		loadOnce = sync.Once{}
		perRule, glRules, always = nil, nil, nil
		Load()
	}
}

// TestLongText: a text of four chunks is scrubbed in overlapping chunks of
// lines: every sample's secret goes wherever it falls (a private key across
// a chunk's end included) and the lines between stay.
func TestLongText(t *testing.T) {
	samples, err := corpus.Gitleaks()
	if err != nil {
		t.Fatal(err)
	}
	key := "-----BEGIN RSA PRIVATE KEY-----\n" + strings.Repeat("MIIEpAIBAAKCAQEAq9Xv2LmP7sR4tW8zK3nB6cJ1dF5gH0aE2iU4o7Yy\n", 60) + "-----END RSA PRIVATE KEY-----\n"
	var b strings.Builder
	var secrets []string
	for i := 0; b.Len() < 4*chunk; i++ {
		s := samples[i%len(samples)]
		b.WriteString("epoch 3 step 1200 loss 0.4312 tokens/s 18234\n")
		b.WriteString(s.Text + "\n")
		secrets = append(secrets, s.Value)
		if b.Len() > chunk-2000 && b.Len() < chunk+2000 && !strings.Contains(b.String(), "PRIVATE KEY") {
			b.WriteString(key)
		}
	}
	text := b.String()
	if !strings.Contains(text, "PRIVATE KEY") {
		t.Fatal("no key in the text")
	}
	got := Scrub(text)
	for _, sec := range append(secrets, "MIIEpAIBAAKCAQEAq9Xv2") {
		if strings.Contains(got, sec) {
			t.Errorf("%q kept", sec)
		}
	}
	if n := strings.Count(got, "epoch 3 step 1200 loss 0.4312 tokens/s 18234\n"); n != len(secrets) {
		t.Errorf("%d filler lines kept of %d", n, len(secrets))
		shown := 0
		for _, l := range strings.Split(got, "\n") {
			if strings.HasPrefix(l, "epoch 3") && l != "epoch 3 step 1200 loss 0.4312 tokens/s 18234" && shown < 5 {
				shown++
				t.Logf("%q", l)
			}
		}
	}
}
