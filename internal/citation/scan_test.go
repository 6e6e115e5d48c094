package citation

import (
	"reflect"
	"strings"
	"testing"
)

func TestIDs(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{"doi plain", "see 10.1038/nbt.3117 for details", []string{"10.1038/nbt.3117"}},
		{"doi url, upper case", "https://doi.org/10.1016/J.CELL.2020.01.001.", []string{"10.1016/j.cell.2020.01.001"}},
		{"doi with balanced parens", "(doi:10.1016/S0140-6736(20)30183-5)", []string{"10.1016/s0140-6736(20)30183-5"}},
		{"doi in a sentence, comma", "10.1101/2020.05.26.117937, and more", []string{"10.1101/2020.05.26.117937"}},
		{"doi sub-registrant", "10.1000.10/123456", []string{"10.1000.10/123456"}},
		{"doi ends at markdown table pipe", "| 10.1038/nbt.3117| x |", []string{"10.1038/nbt.3117"}},
		{"doi in JSON after escaped newline", `"a\n10.1038/nbt.3117\n"`, []string{"10.1038/nbt.3117"}},
		{"not a doi: short registrant", "ratio 10.5/2 and 10.123/x", nil},
		{"not a doi: glued", "v10.2023/x abc10.1234/y", nil},
		{"not a doi: nothing after slash", "10.1234/ next", nil},
		{"pmid forms", "PMID: 25513782; pmid 123; PMID=42 PMID#7", []string{"PMID:25513782", "PMID:123", "PMID:42", "PMID:7"}},
		{"pubmed urls", "https://pubmed.ncbi.nlm.nih.gov/32541958/ https://www.ncbi.nlm.nih.gov/pubmed/25513782", []string{"PMID:32541958", "PMID:25513782"}},
		{"pmid glued to letters is not one", "PMIDx 12 PMID 12a", nil},
		{"pmcid", "PMC4320685 and pmc/articles/PMC7000000/", []string{"PMC4320685", "PMC7000000"}},
		{"pmc needs 4 digits and upper case", "PMC123 pmc4320685", nil},
		{"arxiv new style", "arXiv:2101.00001v2 and arxiv: 1706.03762", []string{"arXiv:2101.00001", "arXiv:1706.03762"}},
		{"arxiv urls", "https://arxiv.org/abs/2203.01234v3 https://arxiv.org/pdf/2203.01234", []string{"arXiv:2203.01234"}},
		{"arxiv old style", "arXiv:hep-th/9901001 arXiv:math.GT/0309136", []string{"arXiv:hep-th/9901001", "arXiv:math.GT/0309136"}},
		{"arxiv bare id is not enough", "2101.00001", nil},
		{"dedup keeps first order", "PMID:1 10.1038/a PMID:1 10.1038/a", []string{"PMID:1", "10.1038/a"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := IDs([]byte(tt.in), 20); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("IDs(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestIDsCap(t *testing.T) {
	var b strings.Builder
	for i := 0; i < 30; i++ {
		b.WriteString("PMID:")
		b.WriteString(strings.Repeat("1", i+1))
		b.WriteString(" ")
	}
	got := IDs([]byte(b.String()), 3)
	if want := []string{"PMID:1", "PMID:11", "PMID:111"}; !reflect.DeepEqual(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

func FuzzIDs(f *testing.F) {
	for _, s := range []string{"10.1038/nbt.3117", "PMID: 1", "arXiv:hep-th/9901001", "PMC1234", `\n10.1/`, "10.1234/)))"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, id := range IDs(b, 20) {
			if id == "" || strings.ContainsAny(id, " \t\n\"\\") {
				t.Fatalf("bad id %q from %q", id, b)
			}
		}
	})
}

func TestISBNs(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"ISBN 978-0-262-03384-8", []string{"ISBN:9780262033848"}},
		{"isbn-13: 9780262033848.", []string{"ISBN:9780262033848"}},
		{"ISBN-10 0-262-03384-4 (MIT Press)", []string{"ISBN:9780262033848"}},
		{"ISBN 0 262 03384 4 1990", []string{"ISBN:9780262033848"}},
		{"ISBN 0-8044-2957-X", []string{"ISBN:9780804429573"}},
		{"ISBN 0-262-03384-5", []string{"ISBN:0262033845"}}, // wrong check digit: kept, to be flagged
		{"ISBN 978-0-262-03384-9", []string{"ISBN:9780262033849"}},
		{"978-0-262-03384-8 without its label", nil},
		{"ISBN 12345", nil},
		{"ISBNs are numbers", nil},
		{"the ISBN 9780262033848123 is too long", nil},
	}
	for _, tt := range tests {
		if got := IDs([]byte(tt.in), 20); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("IDs(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestScanOffsets(t *testing.T) {
	in := "Cite doi:10.1038/nbt.3117. And PMID: 25513782, ISBN 978-0-262-03384-8."
	var got []string
	Scan([]byte(in), func(id string, from, to int) bool {
		got = append(got, id+"="+in[from:to])
		return true
	})
	want := []string{"10.1038/nbt.3117=10.1038/nbt.3117", "PMID:25513782=PMID: 25513782", "ISBN:9780262033848=ISBN 978-0-262-03384-8"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Scan = %q, want %q", got, want)
	}
}

func TestMarkdownEmphasisIsNotPartOfADOI(t *testing.T) {
	if got := IDs([]byte("**10.1038/nbt.3117**"), 20); !reflect.DeepEqual(got, []string{"10.1038/nbt.3117"}) {
		t.Errorf("got %q", got)
	}
}

// BenchmarkScan1MB scans a megabyte of tool output with a few ids, the
// worst a hook's detector reads.
func BenchmarkScan1MB(b *testing.B) {
	var sb strings.Builder
	for sb.Len() < 1<<20 {
		sb.WriteString("Reads 1,234 (10.2%) at position 10.5/12; PMID-like text pmid and arXiv mentions; isbn-ish 978 numbers. ")
		if sb.Len()%50000 < 120 {
			sb.WriteString("doi:10.1038/nbt.3117 PMID: 25513782 arXiv:1706.03762 ISBN 978-0-262-03384-8 ")
		}
	}
	buf := []byte(sb.String())
	b.SetBytes(int64(len(buf)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		IDs(buf, 500)
	}
}
