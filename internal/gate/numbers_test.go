package gate

import (
	"reflect"
	"strings"
	"testing"
)

func texts(x extraction) []string {
	out := []string{}
	for _, n := range x.numbers {
		out = append(out, n.Text)
	}
	return out
}

func TestExtractNumbers(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    []string
		derived int
	}{
		{"plain values", "AUC 0.91, n = 120, r = -0.42.", []string{"0.91", "120", "-0.42"}, 0},
		{"unicode minus and plus", "r = −0.42, shift +3", []string{"−0.42", "+3"}, 0},
		{"percent", "coverage 87.3% and 90 %", []string{"87.3%", "90%"}, 0},
		{"confidence levels are not values", "AUC 0.81 (95% CI 0.79–0.83), 90% confidence interval, 89% HDI, 95%-CI, 99 % credible", []string{"0.81", "0.79", "0.83"}, 0},
		{"a percentage before other words stays", "95% of guides and 95% CIs overlap", []string{"95%"}, 0},
		{"thousands separator", "5,824 sites and 1,234,567 reads", []string{"5,824", "1,234,567"}, 0},
		{"list of decimals is not thousands", "folds 0.91,0.88", []string{"0.91", "0.88"}, 0},
		{"scientific", "p = 1.2e-5, 3E+04, 1.2×10⁻⁵, 2.5 x 10^-3, 10^-8", []string{"1.2e-5", "3E+04", "1.2×10⁻⁵", "2.5 x 10^-3", "10^-8"}, 0},
		{"leading dot", "a value of .87", []string{".87"}, 0},
		{"ranges", "between 0.1-0.3 and 2–4", []string{"0.1", "0.3", "2", "4"}, 0},
		{"bounds", "p < 0.001, ±0.02, ~0.9, ≈1.5", []string{"0.001", "0.02", "0.9", "1.5"}, 0},
		{"claim and seed ids", "C-001 RQ-001 DEV-002 SEED-20260112-001 node-014 C001 L-1", []string{}, 0},
		{"digits in words", "R2 GRCh38 log2 CD4 H3K27ac F1 Cas9 COVID-19 α2", []string{}, 0},
		{"hash and strain", "commit 5f2a9c1 and strain 3D7", []string{}, 0},
		{"issue numbers", "see #12", []string{}, 0},
		{"paths", "wrote 03-data/raw.csv and model_2.pkl and runs/2/m.json", []string{}, 0},
		{"fractions stay", "3/4 of folds, rate 0.5/h", []string{"3", "4", "0.5"}, 0},
		{"versions", "v1.2.3, 1.2.3, version 2, release 4", []string{}, 0},
		{"dates and times", "on 2024-01-05, 2024/01/05, 05/01/2024 at 10:30 and 10:30:15", []string{}, 0},
		{"month dates", "5 March 2024 and March 5, 2024 and Jan. 2023", []string{}, 0},
		{"citation years", "(Smith, 2020) [Tsai 2015] Smith et al. 2021 (2018) (Smith and Jones 2019a)", []string{}, 0},
		{"bare year is a value", "in 2020 we had 40", []string{"2020", "40"}, 0},
		{"ordinals", "the 3rd and 21st fold", []string{}, 0},
		{"references", "Figure 2, Fig. 3, Figures 2–4, Tables 1, 2 and 5, Section 4, §5, p. 12, Eq. 3, Stage 4, LAW 4", []string{}, 0},
		{"p without dot is no page", "p 12", []string{"12"}, 0},
		{"sentence-final stage. is a word", "in this stage. 5 samples", []string{"5"}, 0},
		{"heading enumerator", "## 2.1 Results with AUC 0.8", []string{"0.8"}, 0},
		{"heading with paren enumerator", "### 3) Methods", []string{}, 0},
		{"list marker", "3. AUC 0.8", []string{"0.8"}, 0},
		{"list marker paren", "  2) seeds 3", []string{"3"}, 0},
		{"decimal at line start is a value", "0.5 of sites", []string{"0.5"}, 0},
		{"inline code", "see `run --epochs 50` then 7", []string{"7"}, 0},
		{"double backtick code", "``a ` 9`` then 8", []string{"8"}, 0},
		{"link text and target", "[run 3](results/run3.json) and [Tsai 2015](https://doi.org/10.1038/nbt.3117)", []string{}, 0},
		{"reference link", "[see 4][ref] then 5", []string{"5"}, 0},
		{"numeric citations", "as shown [3] and [4, 7–9]", []string{}, 0},
		{"interval in brackets is checked", "AUC 0.91 [0.88, 0.94]", []string{"0.91", "0.88", "0.94"}, 0},
		{"footnote", "a claim[^12] with 0.4", []string{"0.4"}, 0},
		{"urls and dois", "https://x.org/a/12 www.site.com/3 doi:10.1/55 10.1038/nbt.3117 arXiv:2101.00001 PMID: 12345678", []string{}, 0},
		{"the citation audit's ids", "ISBN-13: 978-0-262-03384-8, ISBN-10 0-262-03384-4, ISBN 0 262 03384 4, PMCID: PMC4320685, PMC4320685 and 7", []string{"7"}, 0},
		{"html tag", `<img width="300"> 6`, []string{"6"}, 0},
		{"derived after number", "a drop of 0.12 (derived).", []string{}, 1},
		{"derived after percent and unit", "fell 12.5% (derived) and 4.2 dB (derived)", []string{}, 2},
		{"derived with explanation", "ratio 1.8 (derived: 0.9 / 0.5)", []string{}, 3},
		{"derived marks only the last number", "from 0.93 to 0.81, a drop of 0.12 (derived)", []string{"0.93", "0.81"}, 1},
		{"derived word elsewhere does nothing", "the derived value 0.4", []string{"0.4"}, 0},
		{"n equals counts", "n=57", []string{"57"}, 0},
		{"money", "cost $1,200", []string{"1,200"}, 0},
		{"units glued", "1550nm and 5ms and 10x", []string{"1550", "5", "10"}, 0},
		{"fold words", "5-fold CV and 10-fold enrichment", []string{"5", "10"}, 0},
		{"emphasis", "**0.91** and _0.5_", []string{"0.91", "0.5"}, 0},
		{"table row", "| C-001 | 0.91 | 120 |", []string{"0.91", "120"}, 0},
		{"exponent caret on identifier", "r^2 = 0.31", []string{"0.31"}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			x := extractNumbers([]byte(tt.in))
			if got := texts(x); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("numbers of %q = %q, want %q", tt.in, got, tt.want)
			}
			if x.derived != tt.derived {
				t.Errorf("derived of %q = %d, want %d", tt.in, x.derived, tt.derived)
			}
		})
	}
}

func TestExtractNumbersDocument(t *testing.T) {
	doc := strings.Join([]string{
		"---",                     // 1 front matter
		"date: 2024-01-05",        // 2
		"seed: 42",                // 3
		"---",                     // 4
		"# Findings 7",            // 5 heading text after enumerator position: a value
		"```python",               // 6
		"x = 99",                  // 7 fenced
		"```",                     // 8
		"<!-- note 11",            // 9 multi-line comment
		"still 12 -->  13",        // 10
		"<!-- source: a.json -->", // 11
		"<!-- source: b.json --> <!-- source: a.json -->", // 12
		"<!-- derived -->",    // 13
		"14 and 15",           // 14
		"<!-- /derived -->",   // 15
		"16 n = 3",            // 16
		"<!-- derived --> 17", // 17 never closed
		"18",                  // 18
	}, "\n")
	x := extractNumbers([]byte(doc))
	type lineNum struct {
		Line int
		Text string
	}
	var got []lineNum
	for _, n := range x.numbers {
		got = append(got, lineNum{n.Line, n.Text})
	}
	want := []lineNum{{5, "7"}, {10, "13"}, {16, "16"}, {16, "3"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("numbers = %v, want %v", got, want)
	}
	if x.derived != 4 {
		t.Errorf("derived = %d, want 4", x.derived)
	}
	if !reflect.DeepEqual(x.sources, []string{"a.json", "b.json"}) {
		t.Errorf("sources = %q", x.sources)
	}
	if x.openDerivedLine != 17 {
		t.Errorf("openDerivedLine = %d, want 17", x.openDerivedLine)
	}
	if !x.sampleSize {
		t.Errorf("sampleSize = false, want true")
	}
}

func TestExtractNumberValues(t *testing.T) {
	tests := []struct {
		in      string
		value   float64
		unit    float64
		percent bool
	}{
		{"0.913", 0.913, 0.001, false},
		{"41", 41, 1, false},
		{"87.3%", 87.3, 0.1, true},
		{"5,824", 5824, 1, false},
		{"1.2e-5", 1.2e-5, 1e-6, false},
		{"1.2×10⁻⁵", 1.2e-5, 1e-6, false},
		{"2.50 x 10^3", 2500, 10, false},
		{"10^-8", 1e-8, 1e-8, false},
		{"−0.40", -0.4, 0.01, false},
		{".5", 0.5, 0.1, false},
	}
	for _, tt := range tests {
		x := extractNumbers([]byte("value " + tt.in + " here"))
		if len(x.numbers) != 1 {
			t.Fatalf("%q: got %d numbers (%q), want 1", tt.in, len(x.numbers), texts(x))
		}
		n := x.numbers[0]
		if !close(n.Value, tt.value) || !close(n.Unit, tt.unit) || n.Percent != tt.percent {
			t.Errorf("%q: value %v unit %v percent %v, want %v %v %v", tt.in, n.Value, n.Unit, n.Percent, tt.value, tt.unit, tt.percent)
		}
	}
}

func close(a, b float64) bool {
	d := a - b
	if d < 0 {
		d = -d
	}
	m := b
	if m < 0 {
		m = -m
	}
	return d <= 1e-12*m+1e-300
}

// TestNumbersInNestedFencesAreCode: a four-backtick example block holding a
// three-backtick fence is one block (CommonMark); nothing in it is reported.
func TestNumbersInNestedFencesAreCode(t *testing.T) {
	text := "# Findings\n\n````markdown\nAn example:\n```\nAUC 0.99\n```\nstill code: 0.97\n````\n\nAUC 0.81 (n = 40).\n   ~~~\n   0.55\n   ~~~~\n"
	x := extractNumbers([]byte(text))
	var got []string
	for _, n := range x.numbers {
		got = append(got, n.Text)
	}
	if strings.Join(got, ",") != "0.81,40" {
		t.Fatalf("numbers = %v, want [0.81 40]", got)
	}
}
