package recall

import (
	"slices"
	"strings"
)

// NearDuplicate is the word-bigram Jaccard at or above which two hits are
// the same memory said twice (a narrative checkpoint and its final
// version, a note re-added with different punctuation).
const NearDuplicate = 0.9

// shingles are the word bigrams of a text (the single word for a one-word
// text), over all words: stop words included, since "effect" and "no
// effect" must stay apart.
func shingles(text string) map[string]struct{} {
	w := Words(text)
	out := make(map[string]struct{}, len(w))
	if len(w) == 1 {
		out[w[0]] = struct{}{}
	}
	for i := 0; i+1 < len(w); i++ {
		out[w[i]+" "+w[i+1]] = struct{}{}
	}
	return out
}

// normalised is text folded to its words joined by single spaces.
func normalised(text string) string { return strings.Join(Words(text), " ") }

func jaccard[T comparable](a, b map[T]struct{}) float64 {
	if len(a) == 0 && len(b) == 0 {
		return 0
	}
	if len(a) > len(b) {
		a, b = b, a
	}
	inter := 0
	for k := range a {
		if _, ok := b[k]; ok {
			inter++
		}
	}
	return float64(inter) / float64(len(a)+len(b)-inter)
}

// collapse drops, from hits already in final order, every hit that repeats
// a better one (same normalised text, or shingle Jaccard ≥ NearDuplicate),
// and stops once limit hits are kept: comparing every pair of fifty
// candidates would cost more than the search. A hit linked to a better one
// as a contradiction is kept: two texts that differ by one number are
// near-duplicates by words, and the older of them must stay visible,
// ranked down with its pointer.
func collapse(hits []Hit, limit int) []Hit {
	type seen struct {
		id   int64
		norm string
		sh   map[string]struct{}
	}
	linked := func(h Hit, k seen) bool {
		return (h.SupersededBy != nil && *h.SupersededBy == k.id) || slices.Contains(h.Conflicts, k.id)
	}
	kept := make([]seen, 0, len(hits))
	out := hits[:0]
next:
	for _, h := range hits {
		s := seen{id: h.ID, norm: normalised(h.Text)}
		for _, k := range kept {
			if k.norm == s.norm && !linked(h, k) {
				continue next
			}
		}
		s.sh = shingles(h.Text)
		for _, k := range kept {
			if jaccard(k.sh, s.sh) >= NearDuplicate && !linked(h, k) {
				continue next
			}
		}
		kept = append(kept, s)
		out = append(out, h)
		if len(out) == limit {
			break
		}
	}
	return out
}
