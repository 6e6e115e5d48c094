package citation

import "strings"

// maxScan caps how much of a text is scanned for paper ids, so a huge tool
// output costs a bounded time on the hook path.
const maxScan = 1 << 20

// Scan calls fn with each paper id in b, in the order found, with the
// offsets of the text it was read from (from a label such as PMID or
// arXiv: to the id's end); fn returns false to stop. Ids are canonical (see
// the package documentation): DOIs lower-cased (10.1038/nbt.3117), PubMed
// ids PMID:25513782, PubMed Central ids PMC4320685, arXiv ids
// arXiv:2101.00001 or arXiv:hep-th/9901001 (versions dropped) and ISBNs
// ISBN:9780262033848 (an ISBN-10 with a valid check digit as its ISBN-13).
// b may be raw JSON: an id ends at a quote or a backslash, so escaped text
// does not glue ids to their neighbours. It is one pass over (at most the
// first 1 MB of) b with no regular expressions, because it runs on every
// Read and Bash output.
func Scan(b []byte, fn func(id string, from, to int) bool) {
	if len(b) > maxScan {
		b = b[:maxScan]
	}
	for i := 0; i < len(b); i++ {
		var id string
		var next int
		switch b[i] {
		case '1':
			if boundaryBefore(b, i) {
				id, next = doiAt(b, i)
			}
		case 'p', 'P':
			if boundaryBefore(b, i) {
				id, next = pubmedAt(b, i)
			}
		case 'a', 'A':
			if boundaryBefore(b, i) {
				id, next = arxivAt(b, i)
			}
		case 'i', 'I':
			if i+1 < len(b) && b[i+1]|0x20 == 's' && boundaryBefore(b, i) {
				id, next = isbnAt(b, i)
			}
		}
		if id == "" {
			continue
		}
		if !fn(id, i, next) {
			return
		}
		i = next - 1
	}
}

// IDs returns the paper ids in b (Scan), once each, in the order found, at
// most max of them.
func IDs(b []byte, max int) []string {
	var out []string
	var seen map[string]bool
	Scan(b, func(id string, _, _ int) bool {
		if seen == nil {
			seen = map[string]bool{}
		}
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
		return len(out) < max
	})
	return out
}

func isAlnum(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// boundaryBefore reports whether an id may start at i: nothing word-like or
// dotted right before it (so v10.2023/x and abc10.1/x are not DOIs). In raw
// JSON a line break is the two bytes \n, so a letter right after a backslash
// is an escape, not part of a word.
func boundaryBefore(b []byte, i int) bool {
	if i == 0 {
		return true
	}
	c := b[i-1]
	if i >= 2 && b[i-2] == '\\' {
		switch c {
		case 'n', 't', 'r', 'b', 'f', '"', '/', '\\':
			return true
		}
	}
	return !isAlnum(c) && c != '.' && c != '_' && c != '-'
}

func hasFold(b []byte, i int, lower string) bool {
	if len(b)-i < len(lower) {
		return false
	}
	for k := 0; k < len(lower); k++ {
		c := b[i+k]
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != lower[k] {
			return false
		}
	}
	return true
}

func digitsAt(b []byte, i int) int {
	j := i
	for j < len(b) && isDigit(b[j]) {
		j++
	}
	return j - i
}

// doiAt reads a DOI at i: 10. + a registrant of 4–9 digits (sub-registrants
// with dots allowed) + / + a suffix that runs to whitespace, a quote, a
// backslash, <, > or |, minus trailing punctuation and unbalanced closing
// brackets.
func doiAt(b []byte, i int) (string, int) {
	if !hasFold(b, i, "10.") {
		return "", 0
	}
	j := i + 3
	n := digitsAt(b, j)
	if n < 4 || n > 9 {
		return "", 0
	}
	j += n
	for j < len(b) && b[j] == '.' && digitsAt(b, j+1) > 0 {
		j += 1 + digitsAt(b, j+1)
	}
	if j >= len(b) || b[j] != '/' {
		return "", 0
	}
	start := j + 1
	k := start
	for k < len(b) {
		c := b[k]
		if c <= ' ' || c == '"' || c == '\'' || c == '\\' || c == '<' || c == '>' || c == '|' || c == 0x7f {
			break
		}
		k++
	}
	end := trimSuffixPunct(b, start, k)
	if end <= start {
		return "", 0
	}
	return strings.ToLower(string(b[i:end])), end
}

// trimSuffixPunct drops trailing sentence punctuation and closing brackets
// that have no opening partner inside the suffix b[start:end].
func trimSuffixPunct(b []byte, start, end int) int {
	for end > start {
		c := b[end-1]
		switch c {
		case '.', ',', ';', ':', '!', '?', '*', '_':
			end--
			continue
		case ')', ']', '}':
			open := byte('(')
			if c == ']' {
				open = '['
			} else if c == '}' {
				open = '{'
			}
			depth := 0
			for k := start; k < end; k++ {
				if b[k] == open {
					depth++
				} else if b[k] == c {
					depth--
				}
			}
			if depth < 0 {
				end--
				continue
			}
		}
		break
	}
	return end
}

func endsWord(b []byte, j int) bool { return j >= len(b) || !isAlnum(b[j]) }

// pubmedAt reads PMID 123, PMID: 123, pubmed.ncbi.nlm.nih.gov/123,
// pubmed/123, PMC123456 and PMCID: PMC123456 at i.
func pubmedAt(b []byte, i int) (string, int) {
	switch {
	case hasFold(b, i, "pmcid"):
		j := i + 5
		for j < len(b) && (b[j] == ' ' || b[j] == ':' || b[j] == '=') && j-i < 9 {
			j++
		}
		if hasFold(b, j, "pmc") {
			j += 3
		}
		if n := digitsAt(b, j); n >= 4 && n <= 9 && endsWord(b, j+n) {
			return "PMC" + string(b[j:j+n]), j + n
		}
	case hasFold(b, i, "pmid"):
		j := i + 4
		for j < len(b) && (b[j] == ' ' || b[j] == ':' || b[j] == '=' || b[j] == '#') && j-i < 8 {
			j++
		}
		if n := digitsAt(b, j); n >= 1 && n <= 9 && endsWord(b, j+n) {
			return "PMID:" + string(b[j:j+n]), j + n
		}
	case hasFold(b, i, "pubmed.ncbi.nlm.nih.gov/"):
		j := i + len("pubmed.ncbi.nlm.nih.gov/")
		if n := digitsAt(b, j); n >= 1 && n <= 9 && endsWord(b, j+n) {
			return "PMID:" + string(b[j:j+n]), j + n
		}
	case hasFold(b, i, "pubmed/"):
		j := i + len("pubmed/")
		if n := digitsAt(b, j); n >= 1 && n <= 9 && endsWord(b, j+n) {
			return "PMID:" + string(b[j:j+n]), j + n
		}
	case i+3 <= len(b) && b[i] == 'P' && b[i+1] == 'M' && b[i+2] == 'C':
		j := i + 3
		if n := digitsAt(b, j); n >= 4 && n <= 9 && endsWord(b, j+n) {
			return "PMC" + string(b[j:j+n]), j + n
		}
	}
	return "", 0
}

// arxivAt reads arXiv:2101.00001v2, arxiv.org/abs/2101.00001 and the old
// form arXiv:hep-th/9901001 at i.
func arxivAt(b []byte, i int) (string, int) {
	var j int
	switch {
	case hasFold(b, i, "arxiv:"):
		j = i + len("arxiv:")
		for j < len(b) && b[j] == ' ' && j-i < 8 {
			j++
		}
	case hasFold(b, i, "arxiv.org/abs/"), hasFold(b, i, "arxiv.org/pdf/"):
		j = i + len("arxiv.org/abs/")
	default:
		return "", 0
	}
	// New style: YYMM.NNNNN.
	if n := digitsAt(b, j); n == 4 && j+4 < len(b) && b[j+4] == '.' {
		m := digitsAt(b, j+5)
		if m == 4 || m == 5 {
			id := string(b[j : j+5+m])
			k := j + 5 + m
			if k < len(b) && b[k] == 'v' && digitsAt(b, k+1) > 0 {
				k += 1 + digitsAt(b, k+1)
			}
			if endsWord(b, k) {
				return "arXiv:" + id, k
			}
		}
		return "", 0
	}
	// Old style: archive(.XX)/YYMMNNN.
	k := j
	for k < len(b) && (b[k] >= 'a' && b[k] <= 'z' || b[k] == '-') {
		k++
	}
	if k == j {
		return "", 0
	}
	if k < len(b) && b[k] == '.' && k+3 < len(b) && b[k+1] >= 'A' && b[k+1] <= 'Z' && b[k+2] >= 'A' && b[k+2] <= 'Z' {
		k += 3
	}
	if k >= len(b) || b[k] != '/' || digitsAt(b, k+1) != 7 {
		return "", 0
	}
	id := string(b[j : k+8])
	k += 8
	if k < len(b) && b[k] == 'v' && digitsAt(b, k+1) > 0 {
		k += 1 + digitsAt(b, k+1)
	}
	return "arXiv:" + id, k
}

// isbnAt reads ISBN 978-0-262-03384-8, ISBN-13: 9780262033848, ISBN-10
// 0-262-03384-4 and isbn:026203384X at i: the label, then ten or thirteen
// digits that single hyphens or spaces may separate (an ISBN-10 may end in
// X). An ISBN-10 with a valid check digit is returned as its ISBN-13; one
// without keeps its ten characters, for the audit to say it cannot exist.
func isbnAt(b []byte, i int) (string, int) {
	if !hasFold(b, i, "isbn") {
		return "", 0
	}
	j := i + 4
	if j+3 <= len(b) && b[j] == '-' && b[j+1] == '1' && (b[j+2] == '0' || b[j+2] == '3') {
		j += 3
	}
	for k := 0; k < 3 && j < len(b) && (b[j] == ' ' || b[j] == ':' || b[j] == '='); k++ {
		j++
	}
	var digits []byte
	var ends []int // ends[k]: the offset after digit k
	for j < len(b) && len(digits) < 13 {
		c := b[j]
		if isDigit(c) || (c == 'X' || c == 'x') && len(digits) == 9 {
			if c == 'x' {
				c = 'X'
			}
			digits = append(digits, c)
			j++
			ends = append(ends, j)
			if c == 'X' {
				break
			}
			continue
		}
		if (c == '-' || c == ' ') && len(digits) > 0 && j+1 < len(b) &&
			(isDigit(b[j+1]) || len(digits) == 9 && (b[j+1] == 'X' || b[j+1] == 'x')) {
			j++
			continue
		}
		break
	}
	switch {
	case len(digits) == 13 && endsWord(b, ends[12]) && digits[12] != 'X':
		return "ISBN:" + string(digits), ends[12]
	case len(digits) >= 10 && endsWord(b, ends[9]) && (len(digits) == 10 || b[ends[9]] == ' '):
		isbn := string(digits[:10])
		if thirteen, ok := isbn10To13(isbn); ok {
			return "ISBN:" + thirteen, ends[9]
		}
		return "ISBN:" + isbn, ends[9]
	}
	return "", 0
}
