package lineage

import (
	"bytes"
	"encoding/json"
	"github.com/vibe-science/vibe/internal/lazyre"
	"math"
	"strconv"
	"strings"
)

// numberToken is a number as text writes it: 0.58, -3, .5, 1e-3.
var numberToken = lazyre.New(`[-+]?(?:[0-9]+\.[0-9]*|\.[0-9]+|[0-9]+)(?:[eE][-+]?[0-9]+)?`)

// significant reports whether a value says something a command is
// unlikely to spell by chance: a fraction, or an integer of three digits
// or more. Counts such as 5 folds or seed 1 are not.
func significant(f float64) bool {
	return f != math.Trunc(f) || math.Abs(f) >= 100
}

// contentNumbers are the numbers a result holds: for JSON its numbers and
// the strings that are a number as a whole (DQ4 reads both), for other
// text every numeric token.
func contentNumbers(content []byte) []float64 {
	trimmed := bytes.TrimSpace(content)
	if len(trimmed) > 0 && (trimmed[0] == '{' || trimmed[0] == '[') {
		dec := json.NewDecoder(bytes.NewReader(trimmed))
		dec.UseNumber()
		var doc any
		if dec.Decode(&doc) == nil {
			var out []float64
			var walk func(v any)
			walk = func(v any) {
				switch t := v.(type) {
				case map[string]any:
					for _, e := range t {
						walk(e)
					}
				case []any:
					for _, e := range t {
						walk(e)
					}
				case json.Number:
					if f, err := strconv.ParseFloat(string(t), 64); err == nil {
						out = append(out, f)
					}
				case string:
					s := strings.TrimSuffix(strings.TrimSpace(t), "%")
					if f, err := strconv.ParseFloat(s, 64); err == nil && !math.IsNaN(f) && !math.IsInf(f, 0) {
						out = append(out, f)
					}
				}
			}
			walk(doc)
			return out
		}
	}
	return textNumbers(string(content))
}

// textNumbers are the numeric tokens of a text.
func textNumbers(text string) []float64 {
	var out []float64
	for _, tok := range numberToken.FindAllString(text, -1) {
		if f, err := strconv.ParseFloat(tok, 64); err == nil && !math.IsInf(f, 0) {
			out = append(out, f)
		}
	}
	return out
}

// spelledOut reports whether every significant number of content is
// written literally in one of texts (a command, the heredoc it feeds, the
// script it runs), and there is at least one: the values were typed, not
// computed.
func spelledOut(content []byte, texts ...string) bool {
	var want []float64
	for _, f := range contentNumbers(content) {
		if significant(f) {
			want = append(want, f)
		}
	}
	if len(want) == 0 {
		return false
	}
	have := map[float64]bool{}
	for _, t := range texts {
		for _, f := range textNumbers(t) {
			have[f] = true
		}
	}
	for _, f := range want {
		if !have[f] {
			return false
		}
	}
	return true
}

// HasNumbers reports whether a result holds a number at all: one that
// holds none (an empty template, a list of names) backs nothing, and its
// lineage is not worth a record.
func HasNumbers(content []byte) bool { return len(contentNumbers(content)) > 0 }
