package disclosure

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Tokens estimates how many tokens a text costs in Claude's context:
// ceil(runes / 4). This is the one estimator vibe uses for every budget.
// Four characters per token is the usual figure for English prose with
// BPE tokenizers (claude-mem estimates the same way); runes rather than
// bytes, so accented or non-Latin text is not counted two or three times
// over. It needs no tokenizer file and costs one pass over the string, which
// matters on the hook path. Dense text (numbers, ids, code) tokenizes
// tighter than four characters per token, so budgets are set with room to
// spare: the blueprint's 1,000-token cap holds the layers' 700.
func Tokens(s string) int {
	return (utf8.RuneCountInString(s) + 3) / 4
}

// ellipsis ends a line that was shortened.
const ellipsis = "…"

// Shorten returns s cut so that Tokens(result) ≤ budget, ending in an
// ellipsis when anything was cut, at a word boundary when one is close
// enough; "" when not even the ellipsis fits.
func Shorten(s string, budget int) string {
	if Tokens(s) <= budget {
		return s
	}
	keep := budget*4 - utf8.RuneCountInString(ellipsis)
	if keep <= 0 {
		return ""
	}
	r := []rune(s)
	cut := keep
	// Back off to a space if one lies within the last fifth of what is kept.
	for i := keep; i > keep*4/5; i-- {
		if unicode.IsSpace(r[i]) {
			cut = i
			break
		}
	}
	return strings.TrimRightFunc(string(r[:cut]), unicode.IsSpace) + ellipsis
}
