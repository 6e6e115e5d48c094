package recall

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/vibe-science/vibe/internal/fault"
	"github.com/vibe-science/vibe/internal/record"
)

// The thresholds of "about the same thing" (package doc).
const (
	ConflictCosine  = 0.85
	ConflictJaccard = 0.6
)

// conflictCandidates is how many near memories are checked for polarity;
// conflictProbe caps the counts that order words by rarity; conflictRare is
// how many of the rarest words find candidates.
const (
	conflictCandidates = 20
	conflictProbe      = 200
	conflictRare       = 3
)

// negations flip the polarity of the text they are in.
var negations = map[string]bool{
	"not": true, "no": true, "never": true, "without": true, "cannot": true, "nor": true, "none": true,
	"neither": true, "lacks": true, "lack": true, "non": true,
	"isn": true, "wasn": true, "aren": true, "weren": true, "doesn": true, "didn": true, "don": true,
	"won": true, "hasn": true, "haven": true, "hadn": true, "couldn": true, "wouldn": true, "shouldn": true,
}

// antonyms maps each outcome word to its side of an opposition: two texts
// that differ by words of the same group but opposite sides state opposite
// outcomes.
var antonyms = func() map[string]polar {
	groups := [][2][]string{
		{{"pass", "passed", "passes", "passing"}, {"fail", "failed", "fails", "failing", "failure"}},
		{{"succeeded", "succeeds", "success", "successful"}, {"failed", "fails", "failure", "unsuccessful"}},
		{{"increase", "increased", "increases", "increasing", "higher", "rose", "raises", "raised", "gain", "gained"},
			{"decrease", "decreased", "decreases", "decreasing", "lower", "fell", "dropped", "drops", "loss", "lost", "reduced", "reduces"}},
		{{"significant", "significantly"}, {"insignificant", "nonsignificant"}},
		{{"verified", "verify", "confirmed", "confirms", "confirm", "supported", "supports", "validated", "replicated", "replicates", "holds", "held"},
			{"killed", "refuted", "refutes", "refute", "disproved", "disproven", "falsified", "rejected", "unsupported", "invalidated"}},
		{{"improved", "improves", "improve", "better", "outperforms", "outperformed"},
			{"worsened", "worsens", "worse", "degraded", "degrades", "hurt", "hurts", "underperforms", "underperformed"}},
		{{"positive"}, {"negative"}},
		{{"present", "detected", "observed"}, {"absent", "undetected", "unobserved"}},
		{{"enriched", "upregulated", "overexpressed"}, {"depleted", "downregulated", "underexpressed"}},
		{{"accept", "accepted", "keep", "kept", "include", "included", "adopt", "adopted"},
			{"reject", "rejected", "drop", "dropped", "exclude", "excluded", "abandon", "abandoned"}},
		{{"valid", "correct", "true"}, {"invalid", "incorrect", "false", "wrong"}},
		{{"above", "exceeds", "exceeded", "over"}, {"below", "under"}},
		{{"robust", "stable"}, {"fragile", "unstable"}},
		{{"causal", "causes", "caused"}, {"confounded", "spurious", "artifact", "artefact"}},
		{{"promoted"}, {"killed", "demoted"}},
	}
	m := map[string]polar{}
	for gi, g := range groups {
		for side, words := range g {
			for _, w := range words {
				m[w] = append(m[w], cue{group: gi, side: side})
			}
		}
	}
	return m
}()

type cue struct{ group, side int }

// polar lists the oppositions a word takes part in (some words, such as
// "failed", oppose more than one word).
type polar []cue

// cueWord reports whether w carries polarity (a negation or an outcome
// word), so similarity leaves it out.
func cueWord(w string) bool {
	if negations[w] {
		return true
	}
	_, ok := antonyms[w]
	return ok
}

// similarityWords are the content words of a text without polarity cues.
func similarityWords(text string) map[string]struct{} {
	out := map[string]struct{}{}
	for _, w := range similarityList(text) {
		out[w] = struct{}{}
	}
	return out
}

// Opposite reports whether two texts state opposite outcomes. Only the cue
// words one text holds and the other does not count: a negation on one side
// flips the polarity (their parity decides), and any antonym pair across
// the sides is one opposition of outcome; the texts are opposite when
// exactly one of the two holds, so "did not pass" and "failed" agree while
// "increased and passed" and "decreased and failed" do not. It does not
// judge whether the texts are about the same thing (see Contradicts).
func Opposite(a, b string) bool {
	wa, wb := wordSet(a), wordSet(b)
	onlyA, onlyB := minus(wa, wb), minus(wb, wa)
	negated := false
	for _, w := range onlyA {
		if negations[w] {
			negated = !negated
		}
	}
	for _, w := range onlyB {
		if negations[w] {
			negated = !negated
		}
	}
	return negated != crosses(onlyA, onlyB)
}

// crosses reports whether a word of a and a word of b sit on opposite sides
// of one antonym group.
func crosses(a, b []string) bool {
	for _, x := range a {
		for _, cx := range antonyms[x] {
			for _, y := range b {
				for _, cy := range antonyms[y] {
					if cx.group == cy.group && cx.side != cy.side {
						return true
					}
				}
			}
		}
	}
	return false
}

func wordSet(text string) map[string]bool {
	m := map[string]bool{}
	for _, w := range Words(text) {
		m[w] = true
	}
	return m
}

// minus lists the words of a not in b, sorted (so the result never depends
// on map order).
func minus(a, b map[string]bool) []string {
	var out []string
	for w := range a {
		if !b[w] {
			out = append(out, w)
		}
	}
	sort.Strings(out)
	return out
}

// Similar is the Jaccard of two texts' content words, polarity cues left
// out.
func Similar(a, b string) float64 {
	return jaccard(similarityWords(a), similarityWords(b))
}

// Contradicts reports whether b is about the same thing as a (Similar ≥
// ConflictJaccard) and states the opposite outcome.
func Contradicts(a, b string) bool {
	return Similar(a, b) >= ConflictJaccard && Opposite(a, b)
}

// AddMemory stores a memory and reports the memory it contradicts, if any:
// a near memory of the same project (by vectors when vec answers, and by
// words always) stating the opposite outcome. The conflict is recorded on
// both memories. Adding a text that is already stored returns its id (and
// its conflict); adding a forgotten text brings it back. vec may be nil.
func AddMemory[W Writes](ctx context.Context, st Memories[W], vec Vectors, m record.NewMemory) (id int64, conflict *int64, err error) {
	if err := validate(m); err != nil {
		return 0, nil, err
	}
	near, err := nearByVectors(ctx, st, vec, m)
	if err != nil {
		return 0, nil, err
	}
	words, err := nearByWords(ctx, st, m)
	if err != nil {
		return 0, nil, fmt.Errorf("add memory: %w", err)
	}
	near = append(near, words...)
	err = st.Tx(ctx, func(tx W) error {
		var err error
		id, conflict, _, err = addInTx(ctx, tx, m, near)
		return err
	})
	if err != nil {
		return 0, nil, err
	}
	return id, conflict, nil
}

func validate(m record.NewMemory) error {
	switch {
	case m.ProjectPath == "":
		return fault.Errorf(fault.Invalid, "add memory", "no project given; pass the project folder")
	case len(Words(m.Text)) == 0:
		return fault.Errorf(fault.Invalid, "add memory", "the memory text is empty; give the fact to remember")
	case !KnownKind(m.Kind):
		return fault.Errorf(fault.Invalid, "add memory", "unknown kind %q; use one of %v", m.Kind, Kinds)
	case m.Trust != nil && (*m.Trust < 0 || *m.Trust > 1):
		return fault.Errorf(fault.Invalid, "add memory", "trust %v is outside 0..1", *m.Trust)
	case m.SourceType != "" && !knownSourceType(m.SourceType):
		return fault.Errorf(fault.Invalid, "add memory", "unknown source type %q; use one of code, paper, person, blog, model", m.SourceType)
	}
	return nil
}

// Kinds are the memory kinds vibe records.
// (record.KindFailure, which the hooks record for failed tool calls, joins
// them when the retrieval set has memories of that kind.)
var Kinds = []string{record.KindAction, record.KindClaimEvent, record.KindDecision, record.KindGateFailure,
	record.KindNarrative, record.KindNote, record.KindSeed}

func knownSourceType(t string) bool { _, ok := record.SourceTrust[t]; return ok }

// KnownKind reports whether k is one of Kinds.
func KnownKind(k string) bool {
	for _, x := range Kinds {
		if x == k {
			return true
		}
	}
	return false
}

// nearByVectors returns memories whose vectors are within ConflictCosine of
// the new text, nearest first; nil when vec is nil or cannot answer.
func nearByVectors(ctx context.Context, st Reads, vec Vectors, m record.NewMemory) ([]record.MemoryRecord, error) {
	if vec == nil {
		return nil, nil
	}
	hits, err := vec.KNN(ctx, m.ProjectPath, m.Text, conflictCandidates, nil)
	if err != nil || len(hits) == 0 {
		return nil, nil
	}
	var ids []int64
	for _, h := range hits {
		if 1-h.Distance*h.Distance/2 >= ConflictCosine {
			ids = append(ids, h.ID)
		}
	}
	if len(ids) == 0 {
		return nil, nil
	}
	recs, err := st.MemoriesByID(ctx, m.ProjectPath, ids)
	if err != nil {
		return nil, fmt.Errorf("add memory: %w", err)
	}
	return recs, nil
}

// addInTx stores m and links a conflict with the first of near (nearest
// first) that states the opposite. The searches that fill near run before
// the write transaction, so the write lock that hooks wait for is held for
// the inserts only.
func addInTx(ctx context.Context, tx Writes, m record.NewMemory, near []record.MemoryRecord) (id int64, conflict *int64, added bool, err error) {
	id, added, err = tx.AddMemory(ctx, m)
	if err != nil {
		return 0, nil, false, err
	}
	if !added {
		prev, err := tx.Memory(ctx, id)
		if err != nil {
			return 0, nil, false, err
		}
		if prev.Forgotten {
			if err := tx.RememberMemory(ctx, id, m.At); err != nil {
				return 0, nil, false, err
			}
		}
		return id, prev.ConflictsWith, false, nil
	}
	for _, n := range near {
		if n.ID != id && Opposite(m.Text, n.Text) {
			c := n.ID
			if err := tx.LinkConflict(ctx, id, c); err != nil {
				return 0, nil, false, err
			}
			return id, &c, true, nil
		}
	}
	return id, nil, true, nil
}

// nearByWords finds the memories of m's project whose content words reach
// ConflictJaccard with m's. Candidates are the BM25 best of the project's
// memories holding any of m's conflictRare rarest words: two statements
// of one fact with opposite outcomes share their specific words (claim
// ids, gate names, numbers, terms), and a search for the rarest of them
// matches a few memories where a search for all words matched half the
// store (1.5 ms a line on an import of 5,000 lines). A memory that shares
// 60% of the words but none of the three rarest is missed; the Jaccard
// test on what is found is exact.
func nearByWords(ctx context.Context, st Reads, m record.NewMemory) ([]record.MemoryRecord, error) {
	words := similarityList(m.Text)
	if len(words) == 0 {
		return nil, nil
	}
	terms := make([]string, len(words))
	var b strings.Builder
	for i, w := range words {
		b.Reset()
		quote(&b, w)
		terms[i] = b.String()
	}
	// Only the order of rarity matters here, so a low cap does.
	counts, err := st.TermCounts(ctx, terms, conflictProbe)
	if err != nil {
		return nil, err
	}
	order := make([]int, len(terms))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return counts[order[a]] < counts[order[b]] })
	var rare []string
	for _, i := range order {
		if len(rare) == conflictRare {
			break
		}
		if counts[i] > 0 {
			rare = append(rare, terms[i])
		}
	}
	if len(rare) == 0 {
		return nil, nil
	}
	hits, err := st.SearchMemories(ctx, record.TextQuery{Project: m.ProjectPath, Match: strings.Join(rare, " OR "), Limit: conflictCandidates})
	if err != nil {
		return nil, err
	}
	type scoredRec struct {
		rec record.MemoryRecord
		sim float64
	}
	var near []scoredRec
	for _, h := range hits {
		if sim := Similar(m.Text, h.Text); sim >= ConflictJaccard {
			near = append(near, scoredRec{h.MemoryRecord, sim})
		}
	}
	sort.SliceStable(near, func(a, b int) bool { return near[a].sim > near[b].sim })
	out := make([]record.MemoryRecord, len(near))
	for i, r := range near {
		out[i] = r.rec
	}
	return out, nil
}

// similarityList is similarityWords in first-seen order.
func similarityList(text string) []string {
	var out []string
	for _, w := range contentWords(text) {
		if !cueWord(w) {
			out = append(out, w)
		}
	}
	return out
}

// polarity lists the words of text that can flip an outcome (negations and
// antonym-group members), sorted and unique: Opposite depends on nothing
// else, so an import computes it once per text and compares these short
// lists instead of building two word sets per pair.
func polarity(text string) []string {
	var out []string
	for _, w := range Words(text) {
		if negations[w] || len(antonyms[w]) > 0 {
			out = append(out, w)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// oppositePolarity is Opposite(a, b) given polarity(a) and polarity(b).
func oppositePolarity(a, b []string) bool {
	onlyA, onlyB := sortedMinus(a, b), sortedMinus(b, a)
	negated := false
	for _, w := range onlyA {
		if negations[w] {
			negated = !negated
		}
	}
	for _, w := range onlyB {
		if negations[w] {
			negated = !negated
		}
	}
	return negated != crosses(onlyA, onlyB)
}

// sortedMinus lists the words of sorted a not in sorted b.
func sortedMinus(a, b []string) []string {
	var out []string
	j := 0
	for _, w := range a {
		for j < len(b) && b[j] < w {
			j++
		}
		if j < len(b) && b[j] == w {
			continue
		}
		out = append(out, w)
	}
	return out
}
