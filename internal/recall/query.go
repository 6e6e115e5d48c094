package recall

import (
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxQueryTerms caps the words of one FTS5 query: a pasted prompt of 2,000
// words would otherwise become a 2,000-way OR whose cost grows with every
// term, while the longest words already carry most of what BM25 can use.
const MaxQueryTerms = 24

// prefixMinRunes is the shortest adverb base that gets a prefix term.
// The index is Porter-stemmed, and Porter conflates most suffixes itself
// (calibrated/calibration, sequenced/sequencing) but leaves "-ly" adverbs
// apart from their adjectives ("significantly" vs "significant"); those get
// the adjective as a prefix term. A general prefix for every long word was
// measured and dropped: on testdata/retrieval it cost 0.5 to 6 points of
// recall@5, because a prefix of a stem matches unrelated stems.
const prefixMinRunes = 6

// Words splits text into lower-case words: maximal runs of letters and
// digits. Everything else (quotes, operators, hyphens, parentheses) is a
// separator, which is what makes the FTS5 query built from them inert.
func Words(text string) []string {
	var out []string
	start := -1
	for i, r := range text {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 {
			out = append(out, strings.ToLower(text[start:i]))
			start = -1
		}
	}
	if start >= 0 {
		out = append(out, strings.ToLower(text[start:]))
	}
	return out
}

// contentWords are the words of text that can carry meaning for search:
// no stop words, nothing shorter than two runes, each once, in first-seen
// order.
func contentWords(text string) []string {
	words := Words(text)
	out := words[:0]
	seen := make(map[string]bool, len(words))
	for _, w := range words {
		if utf8.RuneCountInString(w) < 2 || stopWords[w] || seen[w] {
			continue
		}
		seen[w] = true
		out = append(out, w)
	}
	return out
}

// MatchQuery turns free text into an FTS5 MATCH expression that can only
// ever mean "any of these words": the terms of Terms joined by OR. ""
// means the text has nothing searchable.
func MatchQuery(text string) string { return strings.Join(Terms(text), " OR ") }

// Terms are the FTS5 expressions of free text, one per content word, in
// the text's order. Every word is a quoted string (FTS5 syntax such as OR,
// NEAR, column filters, ^ or * inside user text is split away by Words
// and then quoted), stop words are dropped, and a long "-ly" adverb also
// matches its adjective by prefix ("significantly" finds "significant").
// At most MaxQueryTerms words are kept, the longest ones.
func Terms(text string) []string {
	words := contentWords(text)
	if len(words) > MaxQueryTerms {
		idx := make([]int, len(words))
		for i := range idx {
			idx[i] = i
		}
		sort.SliceStable(idx, func(a, b int) bool {
			return utf8.RuneCountInString(words[idx[a]]) > utf8.RuneCountInString(words[idx[b]])
		})
		idx = idx[:MaxQueryTerms]
		sort.Ints(idx)
		kept := make([]string, 0, MaxQueryTerms)
		for _, i := range idx {
			kept = append(kept, words[i])
		}
		words = kept
	}
	out := make([]string, 0, len(words))
	var b strings.Builder
	for _, w := range words {
		b.Reset()
		if base, ok := strings.CutSuffix(w, "ly"); ok && utf8.RuneCountInString(base) >= prefixMinRunes {
			b.WriteString("(")
			quote(&b, w)
			b.WriteString(" OR ")
			quote(&b, base)
			b.WriteString("*)")
		} else {
			quote(&b, w)
		}
		out = append(out, b.String())
	}
	return out
}

// quote writes s as an FTS5 string; a double quote inside is doubled (Words
// never yields one, but the rule holds whatever the caller passes).
func quote(b *strings.Builder, s string) {
	b.WriteByte('"')
	b.WriteString(strings.ReplaceAll(s, `"`, `""`))
	b.WriteByte('"')
}

// stopWords are English function words and the filler of requests to an
// assistant ("please remind me what we…"): they match nearly every memory
// and would only make BM25 slower and noisier.
var stopWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`
a about above after again against all also am an and any are aren as at be because been before being below
between both but by can could did didn do does doesn doing don down during each either else ever every few
for from further had hadn has hasn have haven having he her here hers herself him himself his how i if in
into is isn it its itself just let me might more most must mustn my myself nor of off on once only or other
our ours ourselves out over own same shall she should shouldn so some such than that the their theirs them
themselves then there these they this those through to too under until up upon us very was wasn we were
weren not no what when where which while who whom why will with within won would wouldn you your yours yourself
yourselves re ve ll
please remind tell show give find recall remember know think thought look looked get got go going went
again anything something thing things stuff kind sort one ones way bit lot lots much many maybe really
actually basically okay ok yes yeah hey hi hello thanks thank need want wanted like say said says
earlier previously previous before ago last now today yesterday currently current still
we've i've let's what's that's there's it's`) {
		m[w] = true
	}
	return m
}()
