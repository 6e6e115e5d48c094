package recall

import (
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
)

func TestCollapse(t *testing.T) {
	h := func(id int64, text string) Hit { return Hit{ID: id, Text: text} }
	tests := []struct {
		name string
		in   []Hit
		want []int64
	}{
		{"distinct stay", []Hit{h(1, "gate DQ1 failed"), h(2, "gate DQ2 failed")}, []int64{1, 2}},
		{"same words, other case and punctuation", []Hit{h(1, "Gate DQ1 failed."), h(2, "gate dq1 FAILED")}, []int64{1}},
		{"the better (first) one is kept", []Hit{h(9, "x y z"), h(3, "X, y; z!")}, []int64{9}},
		{"one word more in a long text is a near duplicate",
			[]Hit{h(1, "session summary: re-aligned the reads, rebuilt the site table, re-ran DQ1 which passes, opened C-7 on distal mismatches today"),
				h(2, "session summary: re-aligned the reads, rebuilt the site table, re-ran DQ1 which passes, opened C-7 on distal mismatches")},
			[]int64{1}},
		{"negation keeps texts apart", []Hit{h(1, "the effect is significant"), h(2, "the effect is not significant")}, []int64{1, 2}},
		{"empty text", []Hit{h(1, ""), h(2, "...")}, []int64{1}},
		{"stops at the limit", []Hit{h(1, "a b"), h(2, "c d"), h(3, "e f"), h(4, "g h"), h(5, "i j"), h(6, "k l"),
			h(7, "m n"), h(8, "o p"), h(9, "q r"), h(10, "s t"), h(11, "u v")}, []int64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}},
	}
	for _, tt := range tests {
		var got []int64
		for _, x := range collapse(tt.in, 10) {
			got = append(got, x.ID)
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: kept %v, want %v", tt.name, got, tt.want)
		}
	}
}

// collapseReference is collapse as first written, over string shingles in
// maps: the oracle for the hashed, sorted form.
func collapseReference(hits []Hit, limit int) []Hit {
	type seen struct {
		id   int64
		norm string
		sh   map[string]struct{}
	}
	shingles := func(text string) map[string]struct{} {
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
	linked := func(h Hit, k seen) bool {
		return (h.SupersededBy != nil && *h.SupersededBy == k.id) || slices.Contains(h.Conflicts, k.id)
	}
	var kept []seen
	var out []Hit
next:
	for _, h := range hits {
		s := seen{id: h.ID, norm: strings.Join(Words(h.Text), " ")}
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

// randomHits are n hits drawn from a small vocabulary, many of them
// copies of an earlier one with a word changed, added or dropped (near
// duplicates on either side of NearDuplicate), some linked to an earlier
// one as a contradiction or a successor.
func randomHits(rng *rand.Rand, n int) []Hit {
	vocab := strings.Fields("the a guide site DQ1 DQ2 fold leakage AUC 0.71 0.9 not effect significant reads table C-7 split per, Gate; summary: re-ran passes")
	var hits []Hit
	for i := 0; i < n; i++ {
		var words []string
		if i > 0 && rng.IntN(2) == 0 {
			words = strings.Fields(hits[rng.IntN(len(hits))].Text)
			switch rng.IntN(4) {
			case 0:
				words = append(words, vocab[rng.IntN(len(vocab))])
			case 1:
				if len(words) > 1 {
					words = words[:len(words)-1]
				}
			case 2:
				words[rng.IntN(len(words))] = strings.ToUpper(vocab[rng.IntN(len(vocab))])
			}
		} else {
			for j := rng.IntN(30); j >= 0; j-- {
				words = append(words, vocab[rng.IntN(len(vocab))])
			}
		}
		h := Hit{ID: int64(i + 1), Text: strings.Join(words, " ")}
		if i > 0 && rng.IntN(6) == 0 {
			id := int64(rng.IntN(i) + 1)
			if rng.IntN(2) == 0 {
				h.SupersededBy = &id
			} else {
				h.Conflicts = []int64{id}
			}
		}
		hits = append(hits, h)
	}
	return hits
}

func TestCollapseMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	for round := 0; round < 3000; round++ {
		hits := randomHits(rng, 1+rng.IntN(60))
		limit := 1 + rng.IntN(12)
		want := collapseReference(slices.Clone(hits), limit)
		got := collapse(slices.Clone(hits), limit)
		if !reflect.DeepEqual(ids(got), ids(want)) {
			t.Fatalf("round %d, limit %d: kept %v, reference %v", round, limit, ids(got), ids(want))
		}
	}
}

func ids(hs []Hit) []int64 {
	var out []int64
	for _, h := range hs {
		out = append(out, h.ID)
	}
	return out
}

// BenchmarkCollapse is the dedup of one recall: fifty candidates of
// sentence length, ten kept.
func BenchmarkCollapse(b *testing.B) {
	hits := randomHits(rand.New(rand.NewPCG(1, 2)), 50)
	buf := make([]Hit, len(hits))
	b.ReportAllocs()
	for b.Loop() {
		copy(buf, hits)
		collapse(buf, 10)
	}
}

// A limit of zero or less keeps every distinct hit, as the first form did
// (no caller passes one: Search defaults it).
func TestCollapseWithoutLimit(t *testing.T) {
	hits := []Hit{{ID: 1, Text: "a b"}, {ID: 2, Text: "A, b"}, {ID: 3, Text: "c d"}}
	for _, limit := range []int{0, -1} {
		if got := ids(collapse(slices.Clone(hits), limit)); !reflect.DeepEqual(got, []int64{1, 3}) {
			t.Errorf("limit %d: kept %v", limit, got)
		}
	}
}
