package citation

import "testing"

func TestParse(t *testing.T) {
	tests := []struct{ in, want, err string }{
		{"doi:10.1038/NBT.3117", "10.1038/nbt.3117", ""},
		{"https://doi.org/10.1038/nbt.3117", "10.1038/nbt.3117", ""},
		{"10.1038/nbt.3117", "10.1038/nbt.3117", ""},
		{" PMID 25513782 ", "PMID:25513782", ""},
		{"pmid:25513782", "PMID:25513782", ""},
		{"pmc4320685", "PMC4320685", ""},
		{"PMCID: PMC4320685", "PMC4320685", ""},
		{"arXiv:1706.03762v5", "arXiv:1706.03762", ""},
		{"1706.03762", "arXiv:1706.03762", ""},
		{"hep-th/9901001", "arXiv:hep-th/9901001", ""},
		{"ISBN 978-0-262-03384-8", "ISBN:9780262033848", ""},
		{"9780262033848", "ISBN:9780262033848", ""},
		{"0-262-03384-4", "ISBN:9780262033848", ""},
		{"25513782", "", `"25513782" is not a DOI, PMID, PMCID, arXiv id or ISBN`},
		{"10.1038/nbt.3117 and more", "", `"10.1038/nbt.3117 and more" is not a DOI`},
		{"", "", "no paper id given"},
	}
	for _, tt := range tests {
		got, err := Parse(tt.in)
		if tt.err != "" {
			if err == nil || len(err.Error()) < len(tt.err) || err.Error()[:len(tt.err)] != tt.err {
				t.Errorf("Parse(%q) error %v, want %q…", tt.in, err, tt.err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("Parse(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
}

func TestKindDisplayURL(t *testing.T) {
	tests := []struct{ id, kind, display, url string }{
		{"10.1038/nbt.3117", KindDOI, "doi:10.1038/nbt.3117", "https://doi.org/10.1038/nbt.3117"},
		{"PMID:25513782", KindPMID, "PMID 25513782", "https://pubmed.ncbi.nlm.nih.gov/25513782/"},
		{"PMC4320685", KindPMCID, "PMC4320685", "https://www.ncbi.nlm.nih.gov/pmc/articles/PMC4320685/"},
		{"arXiv:1706.03762", KindArXiv, "arXiv:1706.03762", "https://arxiv.org/abs/1706.03762"},
		{"ISBN:9780262033848", KindISBN, "ISBN 9780262033848", "https://openlibrary.org/isbn/9780262033848"},
		{"C-001", "", "C-001", ""},
	}
	for _, tt := range tests {
		if k, d, u := Kind(tt.id), Display(tt.id), URL(tt.id); k != tt.kind || d != tt.display || u != tt.url {
			t.Errorf("%s: kind %q display %q url %q; want %q %q %q", tt.id, k, d, u, tt.kind, tt.display, tt.url)
		}
	}
}
