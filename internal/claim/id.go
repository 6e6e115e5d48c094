package claim

import "strings"

// minIDDigits is the fewest digits a claim id carries (C-001), as in the
// claim-promotion schema of the methodology.
const minIDDigits = 3

// NormaliseID turns a claim id as people write it (C-001, c-001, C001, c001,
// optionally wrapped in ** or backticks) into the canonical form C-001. It
// reports false when s is not a claim id: the C must be followed by an
// optional hyphen and at least three digits, and by nothing else. The digits
// are kept as written, so C-0001 and C-001 stay different claims.
func NormaliseID(s string) (string, bool) {
	s = strings.TrimSpace(s)
	s = strings.Trim(s, "*`_")
	if len(s) < 1+minIDDigits || (s[0] != 'C' && s[0] != 'c') {
		return "", false
	}
	digits := s[1:]
	if digits[0] == '-' {
		digits = digits[1:]
	}
	if len(digits) < minIDDigits {
		return "", false
	}
	for i := 0; i < len(digits); i++ {
		if digits[i] < '0' || digits[i] > '9' {
			return "", false
		}
	}
	if s[0] == 'C' && s[1] == '-' {
		return s, true // already canonical: no allocation on the common path
	}
	return "C-" + digits, true
}

// isClaimID reports whether s is a claim id in canonical form.
func isClaimID(s string) bool {
	n, ok := NormaliseID(s)
	return ok && n == s
}

// compareIDs orders canonical claim ids by their number, so C-999 comes
// before C-1000; ids with the same number (C-001, C-0001) and anything that
// is not a claim id fall back to plain string order.
func compareIDs(a, b string) int {
	if isClaimID(a) && isClaimID(b) {
		da := strings.TrimLeft(a[2:], "0")
		db := strings.TrimLeft(b[2:], "0")
		if len(da) != len(db) {
			if len(da) < len(db) {
				return -1
			}
			return 1
		}
		if c := strings.Compare(da, db); c != 0 {
			return c
		}
	}
	return strings.Compare(a, b)
}
