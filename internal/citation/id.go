package citation

import (
	"fmt"
	"strings"
)

// The kinds of paper id.
const (
	KindDOI   = "doi"
	KindPMID  = "pmid"
	KindPMCID = "pmcid"
	KindArXiv = "arxiv"
	KindISBN  = "isbn"
)

// Kind says what a canonical id is (KindDOI …), "" for none.
func Kind(id string) string {
	switch {
	case strings.HasPrefix(id, "10."):
		return KindDOI
	case strings.HasPrefix(id, "PMID:"):
		return KindPMID
	case strings.HasPrefix(id, "PMC"):
		return KindPMCID
	case strings.HasPrefix(id, "arXiv:"):
		return KindArXiv
	case strings.HasPrefix(id, "ISBN:"):
		return KindISBN
	}
	return ""
}

// Display is an id as a person writes it: doi:10.1038/nbt.3117, PMID
// 25513782, PMC4320685, arXiv:1706.03762, ISBN 9780262033848.
func Display(id string) string {
	switch Kind(id) {
	case KindDOI:
		return "doi:" + id
	case KindPMID:
		return "PMID " + strings.TrimPrefix(id, "PMID:")
	case KindISBN:
		return "ISBN " + strings.TrimPrefix(id, "ISBN:")
	}
	return id
}

// URL is the page that resolves an id, for a fetch that records it:
// doi.org, PubMed, PubMed Central, arXiv's abstract page, Open Library.
func URL(id string) string {
	switch Kind(id) {
	case KindDOI:
		return "https://doi.org/" + id
	case KindPMID:
		return "https://pubmed.ncbi.nlm.nih.gov/" + strings.TrimPrefix(id, "PMID:") + "/"
	case KindPMCID:
		return "https://www.ncbi.nlm.nih.gov/pmc/articles/" + id + "/"
	case KindArXiv:
		return "https://arxiv.org/abs/" + strings.TrimPrefix(id, "arXiv:")
	case KindISBN:
		return "https://openlibrary.org/isbn/" + strings.TrimPrefix(id, "ISBN:")
	}
	return ""
}

// Parse reads one id as a person gives it on a command line and returns
// it canonical: doi:10.1038/NBT.3117, https://doi.org/10.1038/nbt.3117,
// 10.1038/nbt.3117, PMID 25513782, PMID:25513782, pmc4320685,
// arXiv:1706.03762v5, 1706.03762, hep-th/9901001, ISBN 978-0-262-03384-8,
// 9780262033848. A bare number is refused (a PubMed id needs its PMID
// label), as is anything that is not one whole id.
func Parse(s string) (string, error) {
	t := strings.TrimSpace(s)
	if t == "" {
		return "", fmt.Errorf("no paper id given")
	}
	candidates := []string{t}
	lower := strings.ToLower(t)
	for _, p := range []string{"https://doi.org/", "http://doi.org/", "https://dx.doi.org/", "http://dx.doi.org/", "doi.org/", "doi:", "doi "} {
		if strings.HasPrefix(lower, p) {
			candidates = []string{strings.TrimSpace(t[len(p):])}
			break
		}
	}
	if strings.HasPrefix(lower, "pmc") && !strings.HasPrefix(lower, "pmcid") {
		candidates = []string{"PMC" + t[3:]}
	}
	c := candidates[0]
	if c != "" && isDigit(c[0]) && !strings.HasPrefix(c, "10.") {
		candidates = append(candidates, "arXiv:"+c, "ISBN "+c)
	} else if c != "" && c[0] >= 'a' && c[0] <= 'z' && strings.Contains(c, "/") && !strings.Contains(c, ":") {
		candidates = append(candidates, "arXiv:"+c) // hep-th/9901001
	}
	for _, c := range candidates {
		var got string
		Scan([]byte(c), func(id string, from, to int) bool {
			if from == 0 && strings.TrimSpace(c[to:]) == "" {
				got = id
			}
			return false
		})
		if got != "" {
			return got, nil
		}
	}
	return "", fmt.Errorf("%q is not a DOI, PMID, PMCID, arXiv id or ISBN (write e.g. 10.1038/nbt.3117, PMID:25513782, PMC4320685, arXiv:1706.03762 or ISBN 978-0-262-03384-8)", s)
}

// isbn10To13 is a valid ISBN-10 as its ISBN-13 (978 prefix, check digit
// computed again); false when its check digit is wrong.
func isbn10To13(isbn string) (string, bool) {
	if !isbn10Valid(isbn) {
		return "", false
	}
	body := "978" + isbn[:9]
	return body + string(rune('0'+isbn13Check(body))), true
}

// isbn10Valid checks an ISBN-10's check digit: the sum of each digit times
// its weight (10 down to 1, X counting 10) is a multiple of 11.
func isbn10Valid(isbn string) bool {
	if len(isbn) != 10 {
		return false
	}
	sum := 0
	for k := 0; k < 10; k++ {
		c := isbn[k]
		v := int(c - '0')
		if c == 'X' {
			if k != 9 {
				return false
			}
			v = 10
		} else if !isDigit(c) {
			return false
		}
		sum += v * (10 - k)
	}
	return sum%11 == 0
}

// isbn13Check is the check digit of the first twelve digits of an ISBN-13:
// weights 1 and 3 alternate, the digit brings the sum to a multiple of 10.
func isbn13Check(body string) int {
	sum := 0
	for k := 0; k < 12; k++ {
		w := 1
		if k%2 == 1 {
			w = 3
		}
		sum += int(body[k]-'0') * w
	}
	return (10 - sum%10) % 10
}
