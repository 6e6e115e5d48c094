package recall

import "slices"

// NearDuplicate is the word-bigram Jaccard at or above which two hits are
// the same memory said twice (a narrative checkpoint and its final
// version, a note re-added with different punctuation).
const NearDuplicate = 0.9

// shingles are the word bigrams of a text's words (the single word for a
// one-word text), over all words: stop words included, since "effect" and
// "no effect" must stay apart. Each is kept as a 64-bit FNV-1a hash, the
// set as a sorted slice without repeats: collapse builds fifty of them per
// recall, and strings in maps cost it 650 allocations (74 µs) where this
// costs a slice each. Two distinct bigrams share a hash with odds of about
// 2^-64 (TestCollapseMatchesReference holds the results to the strings').
func shingles(words []string) []uint64 {
	const offset, prime = 14695981039346656037, 1099511628211
	add := func(h uint64, s string) uint64 {
		for i := 0; i < len(s); i++ {
			h = (h ^ uint64(s[i])) * prime
		}
		return h
	}
	out := make([]uint64, 0, len(words))
	if len(words) == 1 {
		out = append(out, add(offset, words[0]))
	}
	for i := 0; i+1 < len(words); i++ {
		out = append(out, add((add(offset, words[i])^' ')*prime, words[i+1]))
	}
	slices.Sort(out)
	return slices.Compact(out)
}

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
		id    int64
		words []string // normalised: folded, punctuation gone
		sh    []uint64
	}
	linked := func(h Hit, k seen) bool {
		return (h.SupersededBy != nil && *h.SupersededBy == k.id) || slices.Contains(h.Conflicts, k.id)
	}
	kept := make([]seen, 0, max(min(len(hits), limit), 0))
	out := hits[:0]
next:
	for _, h := range hits {
		s := seen{id: h.ID, words: Words(h.Text)}
		for _, k := range kept {
			if slices.Equal(k.words, s.words) && !linked(h, k) {
				continue next
			}
		}
		s.sh = shingles(s.words)
		for _, k := range kept {
			if sortedJaccard(k.sh, len(k.sh), s.sh) >= NearDuplicate && !linked(h, k) {
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
