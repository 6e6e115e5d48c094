package citation

import (
	"testing"
	"time"
)

var now = time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)

func TestCheck(t *testing.T) {
	tests := []struct {
		id     string
		reason string
		form   bool
	}{
		// Real ids.
		{"10.1038/nbt.3117", "", false},
		{"10.1000/182", "", false},
		{"10.1000.10/123456", "", false},
		{"PMID:25513782", "", false},
		{"PMC4320685", "", false},
		{"arXiv:1706.03762", "", false},
		{"arXiv:0704.0001", "", false},
		{"arXiv:1412.6980", "", false},
		{"arXiv:hep-th/9901001", "", false},
		{"arXiv:math.GT/0309136", "", false},
		{"ISBN:9780262033848", "", false},
		// Invented or impossible ones.
		{"10.9999/fabricated.2021.001", "its prefix 10.9999 is a prefix no registration agency has assigned, the usual placeholder of invented references", false},
		{"10.5555/12345678", "its prefix 10.5555 is Crossref's test prefix", false},
		{"10.0123/abc", "its prefix 10.0123 is no registrant's: registrant codes start at 1000", false},
		{"PMID:99999999", "PubMed has assigned no id above 50,000,000 by 2026", false},
		{"PMID:0", "PubMed ids start at 1", true},
		{"PMC99999999", "PubMed Central has assigned no id above 16,000,000 by 2026", false},
		{"arXiv:2113.01234", "month 13 does not exist", true},
		{"arXiv:0612.1234", "ids of the form YYMM.NNNN start in April 2007 (0704)", true},
		{"arXiv:1706.0376", "ids since 2015 have a five-digit number", true},
		{"arXiv:1312.60199", "ids before 2015 have a four-digit number", true},
		{"arXiv:2712.01234", "its month 2712 is after 2611", false},
		{"arXiv:2101.00000", "arXiv numbers start at 1", true},
		{"arXiv:hep-th/0801001", "ids of the form archive/YYMMNNN were given from August 1991 to March 2007 only", true},
		{"arXiv:fake-ph/9901001", "fake-ph is no arXiv archive of the scheme before 2007", false},
		{"ISBN:9780262033849", "its ISBN-13 check digit is wrong", true},
		{"ISBN:0262033845", "its ISBN-10 check digit is wrong", true},
		{"ISBN:9770262033841", "an ISBN-13 starts with 978 or 979", true},
		{"C-001", "it is no DOI, PMID, PMCID, arXiv id or ISBN", true},
	}
	for _, tt := range tests {
		p := Check(tt.id, now)
		if p.Reason != tt.reason || p.Form != tt.form {
			t.Errorf("Check(%s) = %q form=%v; want %q form=%v", tt.id, p.Reason, p.Form, tt.reason, tt.form)
		}
	}
}

func TestCeilingsGrowWithTheClock(t *testing.T) {
	later := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	if p := Check("PMID:60000000", later); !p.OK() {
		t.Errorf("PMID 60,000,000 in 2030: %q", p.Reason)
	}
	if p := Check("PMID:60000000", now); p.OK() {
		t.Error("PMID 60,000,000 in 2026 passed")
	}
}

func TestStatusOf(t *testing.T) {
	tests := []struct {
		p         Problem
		retrieved bool
		want      string
	}{
		{Problem{}, true, StatusRetrieved},
		{Problem{}, false, StatusUnretrieved},
		{Problem{Reason: "test prefix"}, false, StatusInvalid},
		{Problem{Reason: "test prefix"}, true, StatusRetrieved},
		{Problem{Reason: "check digit", Form: true}, true, StatusInvalid},
	}
	for _, tt := range tests {
		if got := StatusOf(tt.p, tt.retrieved); got != tt.want {
			t.Errorf("StatusOf(%+v, %v) = %s, want %s", tt.p, tt.retrieved, got, tt.want)
		}
	}
}

func TestAWrongClockDoesNotInvalidateArXivIDs(t *testing.T) {
	if p := Check("arXiv:1706.03762", time.Date(2001, 1, 1, 0, 0, 0, 0, time.UTC)); !p.OK() {
		t.Errorf("a clock in 2001 made arXiv:1706.03762 impossible: %q", p.Reason)
	}
}
