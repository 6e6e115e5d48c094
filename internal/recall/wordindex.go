package recall

import (
	"cmp"
	"math"
	"slices"
	"sort"
	"time"
)

// wordIndex finds near texts in memory, for imports: the stored memories of
// the project are loaded once, each imported line is checked, then added.
// Checking a line through FTS5 costs a millisecond or more (a capped count
// per word, a ranked search, reading rows); here it costs microseconds, and
// the test is exact: every text whose similarity words reach
// ConflictJaccard is found.
type wordIndex struct {
	ids  map[string]uint32 // word → word id
	post [][]int32         // word id → docs holding it
	docs []indexedDoc
	hits []uint8 // per doc, scratch counter for near
}

type indexedDoc struct {
	id    int64    // memory id; 0 until an imported line is stored
	words []uint32 // sorted word ids
	text  string
	kind  string
	at    time.Time
	trust float64
	pol   []string   // polarity words (see polarity)
	qs    []quantity // quantities (see subject)
}

func newWordIndex() *wordIndex { return &wordIndex{ids: map[string]uint32{}} }

// add indexes a memory's text and returns its doc number.
func (x *wordIndex) add(id int64, kind, text string, at time.Time, trust float64) int {
	ws := similarityList(text)
	d := indexedDoc{id: id, text: text, kind: kind, at: at, trust: trust, words: make([]uint32, 0, len(ws)), pol: polarity(text),
		qs: quantities(text)}
	n := int32(len(x.docs))
	for _, w := range ws {
		wid, ok := x.ids[w]
		if !ok {
			wid = uint32(len(x.post))
			x.ids[w] = wid
			x.post = append(x.post, nil)
		}
		x.post[wid] = append(x.post[wid], n)
		d.words = append(d.words, wid)
	}
	slices.Sort(d.words)
	x.docs = append(x.docs, d)
	x.hits = append(x.hits, 0)
	return int(n)
}

// near lists the docs whose similarity words reach ConflictJaccard with
// text's, most similar first (ties: newest doc first). A doc with Jaccard
// ≥ 0.6 against n words shares need = ⌈0.6·n⌉ of them, so it holds at
// least two of the n − need + 2 rarest (one when need is 1): only those
// words' postings are walked, and only docs counted that often are
// compared.
//
// The work is bounded per text, so an import is linear in its lines
// whatever the store holds: each word's postings are walked newest first
// and at most maxNearScan of them, and at most conflictCandidates docs are
// returned. On repetitive text every word is in most docs; walking them
// all, and checking each for an opposite outcome, made 1,000 lines into
// 83,000 similar memories take minutes. A near text older than the newest
// maxNearScan holding the same rarest words is missed.
func (x *wordIndex) near(text string) []int { return x.nearWhere(text, nil) }

// opposing is near restricted to the docs that text contradicts (the
// opposite outcome, computed on their polarity words, or other values of
// a quantity when both kinds state facts) and that name no other thing of
// a kind it names (otherThing): the candidates an import links a conflict
// with.
func (x *wordIndex) opposing(kind, text string) []int {
	if !statesFact(kind) {
		return nil
	}
	pol := polarity(text)
	qs := quantities(text)
	numeric := numericKind(kind) && len(qs) > 0
	ids := identifiers(similarityList(text))
	return x.nearWhere(text, func(d int) bool {
		doc := &x.docs[d]
		if !statesFact(doc.kind) {
			return false
		}
		if !oppositePolarity(pol, doc.pol) && !(numeric && numericKind(doc.kind) && numbersDiffer(qs, doc.qs) &&
			Similar(text, doc.text) >= NumericJaccard) {
			return false
		}
		return ids == nil || !otherThing(ids, identifiers(similarityList(doc.text)))
	})
}

// nearWhere is near keeping only the docs keep accepts (nil: all).
func (x *wordIndex) nearWhere(text string, keep func(d int) bool) []int {
	list := similarityList(text)
	n := len(list)
	var words []uint32
	for _, w := range list {
		if wid, ok := x.ids[w]; ok {
			words = append(words, wid)
		}
	}
	if n == 0 || len(words) == 0 {
		return nil
	}
	need := int(math.Ceil(ConflictJaccard * float64(n)))
	t := min(2, need)
	k := min(len(words), n-need+t)
	sort.SliceStable(words, func(a, b int) bool { return len(x.post[words[a]]) < len(x.post[words[b]]) })
	var touched []int32
	for _, w := range words[:k] {
		post := x.post[w]
		if len(post) > maxNearScan {
			post = post[len(post)-maxNearScan:]
		}
		nearWork += len(post)
		for _, d := range post {
			if x.hits[d] == 0 {
				touched = append(touched, d)
			}
			if x.hits[d] < math.MaxUint8 {
				x.hits[d]++
			}
		}
	}
	q := make([]uint32, len(words))
	copy(q, words)
	slices.Sort(q)
	type cand struct {
		doc int
		sim float64
	}
	var cs []cand
	for _, d := range touched {
		if int(x.hits[d]) >= t {
			if sim := sortedJaccard(q, n, x.docs[d].words); sim >= ConflictJaccard && (keep == nil || keep(int(d))) {
				cs = append(cs, cand{int(d), sim})
			}
		}
		x.hits[d] = 0
	}
	sort.Slice(cs, func(a, b int) bool {
		if cs[a].sim != cs[b].sim {
			return cs[a].sim > cs[b].sim
		}
		return cs[a].doc > cs[b].doc
	})
	if len(cs) > conflictCandidates {
		cs = cs[:conflictCandidates]
	}
	out := make([]int, len(cs))
	for i, c := range cs {
		out[i] = c.doc
	}
	return out
}

// maxNearScan bounds the postings near walks per word.
const maxNearScan = 4096

// nearWork counts the postings near walked, for the test that proves the
// bound (one process imports at a time; a data race here would only skew
// a test counter).
var nearWork int

// sortedJaccard is the Jaccard of a query of n words (q holds those known
// to the index, sorted) and a doc's sorted words; collapse's shingle
// hashes are such sets too, with n = len(q).
func sortedJaccard[T cmp.Ordered](q []T, n int, d []T) float64 {
	inter := 0
	for i, j := 0, 0; i < len(q) && j < len(d); {
		switch {
		case q[i] == d[j]:
			inter++
			i++
			j++
		case q[i] < d[j]:
			i++
		default:
			j++
		}
	}
	union := n + len(d) - inter
	if union == 0 {
		return 0
	}
	return float64(inter) / float64(union)
}
