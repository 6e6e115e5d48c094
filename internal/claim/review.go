package claim

import (
	"slices"
	"sort"
)

// CitedClaims returns, in id order and once each, the claims a review file
// (markdown, YAML or JSON under 05-reviewer2/) cites. A citation is C-001,
// c-001 or C001 standing as a word: not preceded by a letter, digit or
// underscore, and not followed by one, so "C-001.md" and "[C-001]" cite
// C-001 while "ABC-001", "C-0012f" and "SEED-20260101-001" cite nothing.
// Lowercase c followed directly by digits (c001) is not read as a citation,
// because hex hashes look like it. The ids come back normalised (C-001).
func CitedClaims(content []byte) []string {
	var ids []string
	n := len(content)
	for i := 0; i < n; i++ {
		b := content[i]
		if b != 'C' && b != 'c' {
			continue
		}
		if i > 0 && isWordByte(content[i-1]) {
			continue
		}
		j := i + 1
		if j < n && content[j] == '-' {
			j++
		} else if b == 'c' {
			continue
		}
		start := j
		for j < n && content[j] >= '0' && content[j] <= '9' {
			j++
		}
		if j-start < minIDDigits || (j < n && isWordByte(content[j])) {
			i = j - 1
			continue
		}
		id := "C-" + string(content[start:j])
		if !slices.Contains(ids, id) {
			ids = append(ids, id)
		}
		i = j - 1
	}
	sort.SliceStable(ids, func(a, b int) bool { return compareIDs(ids[a], ids[b]) < 0 })
	return ids
}

func isWordByte(b byte) bool {
	return b == '_' || (b >= '0' && b <= '9') || (b >= 'A' && b <= 'Z') || (b >= 'a' && b <= 'z')
}
