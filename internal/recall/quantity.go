package recall

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// quantity is a number a text states, in the base unit of its class
// (seconds, bytes, metres, grams, hertz; a percentage as a fraction, so
// "1%" and "0.01" are one value).
type quantity struct {
	value float64
	class string // "" for plain numbers and fractions
}

// units maps a unit word to its class and its size in the base unit.
var units = map[string]struct {
	class string
	scale float64
}{
	"%": {"", 0.01}, "percent": {"", 0.01}, "pct": {"", 0.01},
	"ns": {"s", 1e-9}, "us": {"s", 1e-6}, "µs": {"s", 1e-6}, "ms": {"s", 1e-3}, "s": {"s", 1}, "sec": {"s", 1},
	"secs": {"s", 1}, "seconds": {"s", 1}, "second": {"s", 1}, "min": {"s", 60}, "mins": {"s", 60},
	"minutes": {"s", 60}, "minute": {"s", 60}, "h": {"s", 3600}, "hr": {"s", 3600}, "hrs": {"s", 3600},
	"hours": {"s", 3600}, "hour": {"s", 3600}, "days": {"s", 86400},
	"kb": {"byte", 1e3}, "mb": {"byte", 1e6}, "gb": {"byte", 1e9}, "tb": {"byte", 1e12},
	"kib": {"byte", 1024}, "mib": {"byte", 1 << 20}, "gib": {"byte", 1 << 30},
	"nm": {"m", 1e-9}, "um": {"m", 1e-6}, "µm": {"m", 1e-6}, "mm": {"m", 1e-3}, "cm": {"m", 1e-2}, "km": {"m", 1e3},
	"mg": {"g", 1e-3}, "kg": {"g", 1e3}, "ug": {"g", 1e-6}, "µg": {"g", 1e-6},
	"hz": {"hz", 1}, "khz": {"hz", 1e3}, "mhz": {"hz", 1e6}, "ghz": {"hz", 1e9},
	"x": {"x", 1}, "fold": {"x", 1},
	"bp": {"bp", 1}, "kbp": {"bp", 1e3}, "mbp": {"bp", 1e6},
	"°c": {"°c", 1}, "ev": {"ev", 1}, "gev": {"ev", 1e9}, "tev": {"ev", 1e12}, "mev": {"ev", 1e6},
	"db": {"db", 1},
}

// idNouns are words whose following whole number names a thing rather
// than measures it: "chromosome 2" and "chromosome 5" are two subjects,
// not two values of one.
var idNouns = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`chromosome chr position pos batch seed run step version day week month
figure fig table section line gate claim session lane sample patient donor exon intron round cohort page
item issue cluster replicate rep plate well site guide phase stage wave arm experiment exp trial study part
chapter appendix row column col fold layer epoch iteration attempt test case group`) {
		m[w] = true
	}
	return m
}()

// subject splits text into the words that say what it is about and the
// quantities it states. Words are Words' words; a number is a quantity
// unless it names a thing: after a letter and a hyphen ("C-12", "S-02")
// or after one of idNouns ("chromosome 2"), it joins that word as one
// identifier ("c 12"; the space makes it an FTS5 phrase), and a four-digit
// year or a number with letters that are no unit attached ("3k") stays a
// word. "3e-4", "0.1%", "38,112", "500 ms" and "n=120" are quantities.
func subject(text string) (words []string, qs []quantity) {
	prev := "" // the word before, for identifiers
	i := 0
	for i < len(text) {
		r, size := utf8.DecodeRuneInString(text[i:])
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			if r != ' ' && r != '#' && r != '\t' && r != '-' {
				prev = ""
			}
			i += size
			continue
		}
		start := i
		if unicode.IsDigit(r) {
			end, q, ok := readQuantity(text, start)
			// "C-12", and the later parts of "2026-04-09", "09:30", "v1.2".
			joined := start > 1 && (text[start-1] == '-' || text[start-1] == ':' || text[start-1] == '.') &&
				isAlnumBefore(text, start-1)
			switch {
			case joined:
				// "C-12" is an identifier; the later parts of "2026-04-09"
				// are words, as Words reads them.
				w := strings.ToLower(text[start:runEnd(text, start)])
				if prev != "" && text[start-1] == '-' {
					w = prev + " " + w
				}
				words = append(words, w)
				i = runEnd(text, start)
				prev = ""
				continue
			case prev != "" && idNouns[prev] && ok && q.class == "" && isWhole(text[start:end]):
				words = append(words, prev+" "+text[start:runEnd(text, start)])
				i = runEnd(text, start)
				prev = ""
				continue
			case ok:
				if start > 0 && (text[start-1] == '-') && !isAlnumBefore(text, start-1) {
					q.value = -q.value
				}
				qs = append(qs, q)
				i = end
				prev = ""
				continue
			}
		}
		end := runEnd(text, start)
		w := strings.ToLower(text[start:end])
		words = append(words, w)
		prev = w
		i = end
	}
	return words, qs
}

// runEnd is the end of the run of letters and digits at start.
func runEnd(text string, start int) int {
	i := start
	for i < len(text) {
		r, size := utf8.DecodeRuneInString(text[i:])
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			break
		}
		i += size
	}
	return i
}

// isAlnumBefore reports whether the rune before byte i is a letter or digit.
func isAlnumBefore(text string, i int) bool {
	if i <= 0 {
		return false
	}
	r, _ := utf8.DecodeLastRuneInString(text[:i])
	return unicode.IsLetter(r) || unicode.IsDigit(r)
}

func isWhole(s string) bool {
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// readQuantity parses the number at start (digits, thousands commas, a
// decimal part, an exponent) and the unit after it, if any. ok is false
// for what is a word rather than a quantity: a number glued to letters
// that are no unit, a year, a time of day.
func readQuantity(text string, start int) (end int, q quantity, ok bool) {
	i := start
	digits := func() int {
		n := 0
		for i < len(text) && text[i] >= '0' && text[i] <= '9' {
			i++
			n++
		}
		return n
	}
	lead := digits()
	var num strings.Builder
	num.WriteString(text[start:i])
	// Thousands: "38,112" (exactly three digits after each comma).
	for lead <= 3 && i+4 <= len(text) && text[i] == ',' && isWhole(text[i+1:i+4]) &&
		(i+4 == len(text) || text[i+4] < '0' || text[i+4] > '9') {
		num.WriteString(text[i+1 : i+4])
		i += 4
	}
	if i+1 < len(text) && text[i] == '.' && text[i+1] >= '0' && text[i+1] <= '9' {
		j := i
		i++
		digits()
		num.WriteString(text[j:i])
	}
	if i+1 < len(text) && (text[i] == 'e' || text[i] == 'E') {
		j := i + 1
		if j < len(text) && (text[j] == '-' || text[j] == '+') {
			j++
		}
		if j < len(text) && text[j] >= '0' && text[j] <= '9' {
			num.WriteString("e" + text[i+1:j])
			i = j
			k := i
			digits()
			num.WriteString(text[k:i])
		}
	}
	if i < len(text) && text[i] == ':' && i+1 < len(text) && text[i+1] >= '0' && text[i+1] <= '9' {
		return 0, q, false // a time of day or a ratio written 3:1
	}
	v, err := strconv.ParseFloat(num.String(), 64)
	if err != nil || math.IsInf(v, 0) {
		return 0, q, false
	}
	q.value = v
	// The unit: attached letters ("500ms", "10x") or "%", or one word
	// after a space ("500 ms"), when it is a unit.
	u, uend := "", i
	switch {
	case i < len(text) && text[i] == '%':
		u, uend = "%", i+1
	case strings.HasPrefix(text[i:], "°"):
		e := runEnd(text, i+len("°"))
		u, uend = "°"+strings.ToLower(text[i+len("°"):e]), e
	case i < len(text) && isLetterAt(text, i):
		e := runEnd(text, i)
		u, uend = strings.ToLower(text[i:e]), e
		if _, known := units[u]; !known {
			return 0, q, false // "3k", "hg19"-like: a word
		}
	case i+1 < len(text) && text[i] == ' ' && isLetterAt(text, i+1):
		e := runEnd(text, i+1)
		if w := strings.ToLower(text[i+1 : e]); unitAfterSpace(w) {
			u, uend = w, e
		}
	}
	if u == "" {
		if n := i - start; n == 4 && isWhole(text[start:i]) && v >= 1900 && v <= 2100 {
			return 0, q, false // a year
		}
		return i, q, true
	}
	if unit, known := units[u]; known {
		q.value *= unit.scale
		q.class = unit.class
	}
	if math.IsInf(q.value, 0) {
		return 0, q, false // 1e308 TB
	}
	return uend, q, true
}

// unitAfterSpace reports whether w, a word after a number and a space, is
// its unit. Of the one-letter units only s and h are read after a space
// ("2 s", "3 h"); "5 x" in prose is too often something else.
func unitAfterSpace(w string) bool {
	_, ok := units[w]
	return ok && (utf8.RuneCountInString(w) > 1 || w == "s" || w == "h")
}

// identifiers maps each identifier prefix of a subject ("c" of "c 12",
// "chromosome" of "chromosome 2") to its values.
func identifiers(words []string) map[string][]string {
	var out map[string][]string
	for _, w := range words {
		if i := strings.IndexByte(w, ' '); i > 0 {
			if out == nil {
				out = map[string][]string{}
			}
			out[w[:i]] = append(out[w[:i]], w[i+1:])
		}
	}
	return out
}

// otherThing reports whether two texts name different things of one kind
// ("claim C-3" and "claim C-7", "chromosome 2" and "chromosome 5"): a
// prefix both use with no value in common. Such texts are about different
// subjects however many other words they share.
func otherThing(a, b map[string][]string) bool {
	for p, va := range a {
		vb, ok := b[p]
		if !ok {
			continue
		}
		shared := false
		for _, x := range va {
			if slices.Contains(vb, x) {
				shared = true
				break
			}
		}
		if !shared {
			return true
		}
	}
	return false
}

func isLetterAt(text string, i int) bool {
	r, _ := utf8.DecodeRuneInString(text[i:])
	return unicode.IsLetter(r)
}

// numbersDiffer reports whether two lists of quantities state different
// values of one class: a value of a that b lacks and a value of b that a
// lacks, in the same class. Lists that only add a value ("AUC 0.91" vs
// "AUC 0.91 on 120 guides") do not differ.
func numbersDiffer(a, b []quantity) bool {
	if len(a) == 0 || len(b) == 0 {
		return false
	}
	onlyA, onlyB := quantityMinus(a, b), quantityMinus(b, a)
	for _, x := range onlyA {
		for _, y := range onlyB {
			if x.class == y.class {
				return true
			}
		}
	}
	return false
}

func quantityMinus(a, b []quantity) []quantity {
	var out []quantity
	for _, x := range a {
		if !slices.ContainsFunc(b, func(y quantity) bool { return y.class == x.class && sameValue(x.value, y.value) }) {
			out = append(out, x)
		}
	}
	return out
}

func sameValue(x, y float64) bool {
	return x == y || math.Abs(x-y) <= 1e-9*math.Max(math.Abs(x), math.Abs(y))
}
