package citation

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Problem is why an id cannot name a published work; the zero Problem
// means nothing is wrong with it offline.
type Problem struct {
	// Reason says what is wrong, in a few words ("" for nothing).
	Reason string
	// Form says the id is wrong by its form alone (a check digit, an
	// impossible month): no search or record makes it valid. Otherwise the
	// problem comes from what vibe knows of the registries (a test prefix,
	// an id above those assigned so far), and a search that retrieved the
	// id overrules it.
	Form bool
}

// OK reports whether nothing is wrong.
func (p Problem) OK() bool { return p.Reason == "" }

// testPrefixes are DOI prefixes no published work has: the registration
// agencies' test prefixes and the placeholder of invented references.
var testPrefixes = map[string]string{
	"10.5555": "Crossref's test prefix",
	"10.5072": "DataCite's test prefix",
	"10.9999": "a prefix no registration agency has assigned, the usual placeholder of invented references",
}

// The highest ids the registries could have assigned by a date, with a wide
// margin: PubMed assigns about 1.5 million PMIDs a year (40 million were
// passed in 2025), PubMed Central about 1 million PMCIDs (PMC12000000 was
// passed in 2025). An id above the bound cannot exist yet.
func pmidCeiling(now time.Time) int { return ceiling(50_000_000, 4_000_000, now) }
func pmcCeiling(now time.Time) int  { return ceiling(16_000_000, 2_500_000, now) }

func ceiling(at2026, perYear int, now time.Time) int {
	years := now.Year() - 2026
	if years < 0 {
		years = 0
	}
	return at2026 + perYear*years
}

// oldArchives are the arXiv archives of the scheme before April 2007
// (archive/YYMMNNN).
var oldArchives = map[string]bool{
	"acc-phys": true, "adap-org": true, "alg-geom": true, "ao-sci": true, "astro-ph": true, "atom-ph": true,
	"bayes-an": true, "chao-dyn": true, "chem-ph": true, "cmp-lg": true, "comp-gas": true, "cond-mat": true,
	"cs": true, "dg-ga": true, "funct-an": true, "gr-qc": true, "hep-ex": true, "hep-lat": true, "hep-ph": true,
	"hep-th": true, "math": true, "math-ph": true, "mtrl-th": true, "nlin": true, "nucl-ex": true, "nucl-th": true,
	"patt-sol": true, "physics": true, "plasm-ph": true, "q-alg": true, "q-bio": true, "quant-ph": true,
	"solv-int": true, "supr-con": true, "stat": true,
}

// Check judges a canonical id offline, as of now: a DOI's prefix, a PubMed
// or PubMed Central id's range, an arXiv id's month and number scheme, an
// ISBN's check digit.
func Check(id string, now time.Time) Problem {
	switch Kind(id) {
	case KindDOI:
		return checkDOI(id)
	case KindPMID:
		return checkNumber(strings.TrimPrefix(id, "PMID:"), "PubMed", pmidCeiling(now), now)
	case KindPMCID:
		return checkNumber(strings.TrimPrefix(id, "PMC"), "PubMed Central", pmcCeiling(now), now)
	case KindArXiv:
		return checkArXiv(strings.TrimPrefix(id, "arXiv:"), now)
	case KindISBN:
		return checkISBN(strings.TrimPrefix(id, "ISBN:"))
	}
	return Problem{Reason: "it is no DOI, PMID, PMCID, arXiv id or ISBN", Form: true}
}

func checkDOI(id string) Problem {
	prefix, suffix, ok := strings.Cut(id, "/")
	if !ok || suffix == "" || !strings.HasPrefix(prefix, "10.") {
		return Problem{Reason: "a DOI is 10.<registrant>/<suffix>", Form: true}
	}
	registrant := strings.TrimPrefix(prefix, "10.")
	main, _, _ := strings.Cut(registrant, ".")
	if len(main) < 4 || len(main) > 9 || strings.Trim(main, "0123456789") != "" {
		return Problem{Reason: "a DOI's registrant code is 4 to 9 digits", Form: true}
	}
	if what, ok := testPrefixes["10."+main]; ok {
		return Problem{Reason: fmt.Sprintf("its prefix 10.%s is %s", main, what)}
	}
	if main[0] == '0' {
		return Problem{Reason: fmt.Sprintf("its prefix 10.%s is no registrant's: registrant codes start at 1000", main)}
	}
	return Problem{}
}

func checkNumber(digits, registry string, max int, now time.Time) Problem {
	n, err := strconv.Atoi(digits)
	if err != nil || n <= 0 {
		return Problem{Reason: registry + " ids start at 1", Form: true}
	}
	if n > max {
		return Problem{Reason: fmt.Sprintf("%s has assigned no id above %s by %d", registry, grouped(max), now.Year())}
	}
	return Problem{}
}

func checkArXiv(id string, now time.Time) Problem {
	if archive, rest, old := strings.Cut(id, "/"); old {
		if len(rest) != 7 || strings.Trim(rest, "0123456789") != "" {
			return Problem{Reason: "an arXiv id of the scheme before 2007 is archive/YYMMNNN", Form: true}
		}
		base, _, _ := strings.Cut(archive, ".")
		if !oldArchives[base] {
			return Problem{Reason: fmt.Sprintf("%s is no arXiv archive of the scheme before 2007", archive)}
		}
		yy, mm := atoi2(rest[0:2]), atoi2(rest[2:4])
		year := 1900 + yy
		if yy < 91 {
			year = 2000 + yy
		}
		if mm < 1 || mm > 12 {
			return Problem{Reason: fmt.Sprintf("month %s does not exist", rest[2:4]), Form: true}
		}
		if year*100+mm < 199108 || year*100+mm > 200703 {
			return Problem{Reason: "ids of the form archive/YYMMNNN were given from August 1991 to March 2007 only", Form: true}
		}
		if rest[4:] == "000" {
			return Problem{Reason: "arXiv numbers start at 001", Form: true}
		}
		return Problem{}
	}
	month, number, _ := strings.Cut(id, ".")
	if len(month) != 4 || strings.Trim(month+number, "0123456789") != "" || number == "" {
		return Problem{Reason: "an arXiv id is YYMM.NNNNN or archive/YYMMNNN", Form: true}
	}
	yy, mm := atoi2(month[0:2]), atoi2(month[2:4])
	if mm < 1 || mm > 12 {
		return Problem{Reason: fmt.Sprintf("month %s does not exist", month[2:4]), Form: true}
	}
	ym := (2000+yy)*100 + mm
	switch {
	case ym < 200704:
		return Problem{Reason: "ids of the form YYMM.NNNN start in April 2007 (0704)", Form: true}
	case ym <= 201412 && len(number) != 4:
		return Problem{Reason: "ids before 2015 have a four-digit number", Form: true}
	case ym >= 201501 && len(number) != 5:
		return Problem{Reason: "ids since 2015 have a five-digit number", Form: true}
	case strings.Trim(number, "0") == "":
		return Problem{Reason: "arXiv numbers start at 1", Form: true}
	case now.Year() >= 2026 && ym > now.Year()*100+int(now.Month()):
		// A clock before this code was written is wrong, not the id.
		return Problem{Reason: fmt.Sprintf("its month %s is after %s", month, now.Format("0601"))}
	}
	return Problem{}
}

func checkISBN(isbn string) Problem {
	switch len(isbn) {
	case 10:
		if !isbn10Valid(isbn) {
			return Problem{Reason: "its ISBN-10 check digit is wrong", Form: true}
		}
	case 13:
		if !strings.HasPrefix(isbn, "978") && !strings.HasPrefix(isbn, "979") {
			return Problem{Reason: "an ISBN-13 starts with 978 or 979", Form: true}
		}
		if int(isbn[12]-'0') != isbn13Check(isbn) {
			return Problem{Reason: "its ISBN-13 check digit is wrong", Form: true}
		}
	default:
		return Problem{Reason: "an ISBN has 10 or 13 digits", Form: true}
	}
	return Problem{}
}

func atoi2(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}

// grouped writes n with thousands separators (45,000,000).
func grouped(n int) string {
	s := strconv.Itoa(n)
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}
