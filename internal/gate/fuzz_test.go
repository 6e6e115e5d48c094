package gate

import (
	"bytes"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzDQ4Numbers feeds arbitrary findings text and source JSON to the
// number extraction and DQ4: nothing may panic, every number found must be
// written on its line, and a source made of the findings' own numbers must
// match every one of them.
func FuzzDQ4Numbers(f *testing.F) {
	for _, s := range []string{
		"AUC 0.913 (n = 5,824), 87.3%, −0.42, 1.2×10⁻⁵, 10^-3, p < 0.001",
		"## 2.1 Results\n3. item [3] [0.88, 0.94] `code 9` <!-- derived --> 4 <!-- /derived -->",
		"C-001 RQ-002 2024-01-05 10:30 (Smith et al., 2020) v1.2.3 3rd Figure 2–4",
		"a drop of 0.12 (derived: 0.93 − 0.81) and 12.5 % (derived)",
		"```\nx = 1\n```\n<!-- source: a.json -->\n---\n",
		"1,2,3 .5 -.5 +7 1e 1e+ 2^ 10^( ×10 ⁻ [^1] [a](b) ![c](d) https://x/1 doi:10.1/2",
		"\xff\xfe 0.5 \u2212\u2212 1",
		"## F7: x (formerly F6b)\nIt drives a 12.4-fold rise, odds ratio of 0.08, 3x, 5-fold CV, F1 score, macro-F1\n## Alternative explanations\n",
		"`drives` F F1. F1.2 F999x 1.2×10 ×× 12 ×",
	} {
		f.Add([]byte(s), []byte(`{"a": 0.913, "b": [5824, "0.873", -0.42]}`))
	}
	f.Add([]byte("AUC 0.81"), []byte(`{"headline": ["a.b", "x", 3, {"c": 0.81}], "a": {"b": 0.81}, "findings": {"F7": 1}}`))
	d, err := ShippedDomain(GenericDomain)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, findings, sourceJSON []byte) {
		x := extractNumbers(findings)
		lines := bytes.Split(findings, []byte("\n"))
		for _, n := range x.numbers {
			if n.Line < 1 || n.Line > len(lines) {
				t.Fatalf("number %q on line %d of %d", n.Text, n.Line, len(lines))
			}
			text := strings.TrimSuffix(n.Text, "%")
			text = strings.TrimRight(text, " ")
			if !bytes.Contains(lines[n.Line-1], []byte(text)) {
				t.Fatalf("number %q is not on line %d: %q", n.Text, n.Line, lines[n.Line-1])
			}
			if n.Unit <= 0 {
				t.Fatalf("number %q has unit %v", n.Text, n.Unit)
			}
			if utf8.Valid(findings) && !utf8.ValidString(n.Context) {
				t.Fatalf("context %q is not valid UTF-8", n.Context)
			}
		}
		r := DQ4("FINDINGS.md", findings, sourceJSON, d)
		if r.Status == "" {
			t.Fatalf("no status")
		}
		_ = r.Verdict()

		// A source holding exactly the reported values matches them all.
		var b strings.Builder
		b.WriteString("[")
		for i, n := range x.numbers {
			if i > 0 {
				b.WriteString(",")
			}
			b.WriteString(formatExact(n.Value))
		}
		b.WriteString("]")
		self := dq4("FINDINGS.md", findings, []source{{raw: []byte(b.String())}}, d)
		if len(self.Numbers) > 0 {
			t.Fatalf("numbers %q do not match a source made of themselves %s", self.Numbers, b.String())
		}
	})
}

// FuzzDQ1 feeds arbitrary bytes as a features table: nothing may panic and
// the result always has a status and at least one check.
func FuzzDQ1(f *testing.F) {
	for _, s := range []string{
		"a,b,label\n1,2,0\n3,4,1\n",
		"x\ty\n\"q\tq\"\t1\n",
		"a;b\n1;2\n\"\n",
		"\ufeffa,a,,label\n1,,NA,pos\n2,inf,3,neg\n4,5\n",
		"",
	} {
		f.Add([]byte(s))
	}
	d, err := ShippedDomain("crispr-off-target")
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		r := dq1(bytes.NewReader(data), "features.csv", d)
		if r.Status == "" || len(r.Checks) == 0 {
			t.Fatalf("result %+v", r)
		}
	})
}

// formatExact writes v as a JSON number that parses back to v.
func formatExact(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
