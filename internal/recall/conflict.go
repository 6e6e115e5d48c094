package recall

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/vibe-science/vibe/internal/citation"
	"github.com/vibe-science/vibe/internal/fault"
	"github.com/vibe-science/vibe/internal/store/record"
)

// The thresholds of "about the same thing" (package doc).
const (
	ConflictCosine  = 0.85
	ConflictJaccard = 0.6
	// NumericJaccard is the stricter similarity two texts need for
	// different numbers to contradict: one different word in five is
	// already another subject ("minimum depth per guide" and "… per
	// sample").
	NumericJaccard = 0.75
)

// conflictCandidates is how many near memories are checked for polarity;
// conflictProbe caps the counts that order words by rarity; conflictRare is
// how many of the rarest words find candidates.
const (
	conflictCandidates = 20
	conflictProbe      = 200
	conflictRare       = 3
)

// nearScan is how many of the newest memories holding the rarest words
// are compared with a new memory; conflictCount is how many of its words
// are counted to find the rarest.
const (
	nearScan      = 50
	conflictCount = 8
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
// out; 0 when they name different things of one kind ("claim C-3" and
// "claim C-7", see otherThing).
func Similar(a, b string) float64 {
	wa, wb := similarityList(a), similarityList(b)
	if otherThing(identifiers(wa), identifiers(wb)) {
		return 0
	}
	return jaccard(setOf(wa), setOf(wb))
}

func setOf(words []string) map[string]struct{} {
	out := make(map[string]struct{}, len(words))
	for _, w := range words {
		out[w] = struct{}{}
	}
	return out
}

// Contradicts reports whether b is about the same thing as a (Similar ≥
// ConflictJaccard) and states the opposite outcome or different values of
// one quantity ("a 1% read threshold" vs "a 0.1% read threshold").
func Contradicts(a, b string) bool {
	sim := Similar(a, b)
	return sim >= ConflictJaccard && (Opposite(a, b) || (sim >= NumericJaccard && numbersDiffer(quantities(a), quantities(b))))
}

// opposes reports whether two memories of given kinds, already known to be
// about the same thing (by words or by vectors), contradict: opposite
// outcomes, or different values of a quantity when both kinds state
// facts. Actions, narratives and failures record events, and two runs
// with different numbers ("took 40 s", "took 52 s") are two events, not a
// contradiction. An action (a record that the agent ran or searched
// something) states no fact, so it opposes nothing: "ran QC on batch 3:
// failed to start" says nothing of whether batch 3 passed QC.
func opposes(kindA, a, kindB, b string) bool {
	if !statesFact(kindA) || !statesFact(kindB) {
		return false
	}
	return Opposite(a, b) || numericConflict(kindA, a, kindB, b)
}

// statesFact reports whether memories of kind state something that a
// memory can contradict: every kind but an action, which records only
// that a call was made.
func statesFact(kind string) bool { return kind != record.KindAction }

// numericConflict reports whether two memories state different values of
// one quantity on the same subject: both kinds state facts, the texts
// reach NumericJaccard (whatever found them, words or vectors: a vector
// barely sees a number, and "depth per guide" and "depth per sample" are
// near), and their numbers differ.
func numericConflict(kindA, a, kindB, b string) bool {
	return numericKind(kindA) && numericKind(kindB) && numbersDiffer(quantities(a), quantities(b)) &&
		Similar(a, b) >= NumericJaccard
}

// numericKind reports whether memories of kind state facts whose numbers
// can contradict.
func numericKind(kind string) bool {
	switch kind {
	case record.KindAction, record.KindNarrative, record.KindFailure:
		return false
	}
	return true
}

func quantities(text string) []quantity {
	_, qs := subject(text)
	return qs
}

// Added is what adding a memory did.
type Added struct {
	ID int64
	// New is false when the text was already stored (its links are
	// reported as they stand).
	New bool
	// Conflicts are the memories it contradicts.
	Conflicts []int64
	// Of Conflicts, as record.Outranks places them against it (trust,
	// then recency): Supersedes are older and no more trusted, which
	// recall now ranks down and points to it; Disputes are older and
	// better sourced, which stay current while recall ranks it down as
	// disputing them; DisputedBy are newer and less trusted, which
	// dispute it while it stays current (an import of an older, better
	// sourced fact).
	Supersedes []int64
	Disputes   []int64
	DisputedBy []int64
	// SupersededBy is a newer memory, at least as trusted, that
	// contradicts it (an import of an older fact, or a text stored
	// before).
	SupersededBy *int64
	// Raised says the text was stored before with less trust and now has
	// this one's (a person restating what model output said): it may now
	// stand over memories it disputed.
	Raised bool
}

// AddMemory stores a memory and links it with the memories it
// contradicts: near memories of the same project (by vectors when vec
// answers, and by words always) that state the opposite outcome or other
// values of the same quantity. Of two contradicting memories the older is
// superseded by the newer (see the store's Tx.LinkConflict). Adding a text that
// is already stored returns its id and links; adding a forgotten text
// brings it back. vec may be nil.
func AddMemory[W Writes](ctx context.Context, st Memories[W], vec Vectors, m record.NewMemory) (Added, error) {
	if err := validate(m); err != nil {
		return Added{}, err
	}
	near, err := nearByVectors(ctx, st, vec, m)
	if err != nil {
		return Added{}, err
	}
	words, err := nearByWords(ctx, st, m)
	if err != nil {
		return Added{}, fmt.Errorf("add memory: %w", err)
	}
	near = append(near, words...)
	var a Added
	err = st.Tx(ctx, func(tx W) error {
		var err error
		a, err = addInTx(ctx, tx, m, near)
		return err
	})
	return a, err
}

// CheckPending links the memories stored without the contradiction check
// (what the hooks write; see record.NewMemory.Checked) with those they
// contradict, oldest first, at most limit, and reports how many it
// checked and how many links it made. It runs in the worker, off the hook
// path: by words only, each search before the short write transaction.
// BenchmarkCheckPending10k measures it.
func CheckPending[W Writes](ctx context.Context, st Memories[W], limit int) (checked, links int, err error) {
	ms, err := st.UncheckedMemories(ctx, limit)
	if err != nil {
		return 0, 0, err
	}
	var searchErr error
	for _, m := range ms {
		var near []record.MemoryRecord
		if !m.Forgotten {
			nm := record.NewMemory{ProjectPath: m.ProjectPath, Kind: m.Kind, Text: m.Text, At: m.CreatedAt}
			if near, err = nearByWords(ctx, st, nm); err != nil {
				if fault.KindOf(err) == fault.Unavailable {
					return checked, links, fmt.Errorf("check memory M-%d: %w", m.ID, err) // busy: next poll
				}
				// Marked checked all the same: a text the search cannot
				// take must not hold up the ones after it at every poll.
				searchErr = cmp.Or(searchErr, fmt.Errorf("check memory M-%d: %w", m.ID, err))
				near = nil
			}
		}
		var n int
		err := st.Tx(ctx, func(tx W) error {
			var err error
			if n, err = linkContradictions(ctx, tx, m.ID, m.Kind, m.Text, m.CreatedAt, m.Trust, near, nil); err != nil {
				return err
			}
			return tx.MarkChecked(ctx, m.ID)
		})
		if err != nil {
			return checked, links, fmt.Errorf("check memory M-%d: %w", m.ID, err)
		}
		checked, links = checked+1, links+n
	}
	return checked, links, searchErr
}

func validate(m record.NewMemory) error {
	switch {
	case m.ProjectPath == "":
		return fault.Errorf(fault.Invalid, "add memory", "no project given; pass the project folder")
	case len(Words(m.Text)) == 0:
		return fault.Errorf(fault.Invalid, "add memory", "the memory text is empty; give the fact to remember")
	case !KnownKind(m.Kind):
		return fault.Errorf(fault.Invalid, "add memory", "unknown kind %q; use one of %s", m.Kind, strings.Join(Kinds, ", "))
	case m.Trust != nil && (*m.Trust < 0 || *m.Trust > 1):
		return fault.Errorf(fault.Invalid, "add memory", "trust %v is outside 0..1", *m.Trust)
	case m.SourceType != "" && !knownSourceType(m.SourceType):
		return fault.Errorf(fault.Invalid, "add memory", "unknown source type %q; use one of code, paper, person, blog, model", m.SourceType)
	}
	return nil
}

// Kinds are the memory kinds vibe records: what the hooks write (action,
// claim_event, gate_failure, narrative, failure, seed) and what a person
// or an agent adds (note, decision, pattern, insight, hypothesis,
// open_thread).
var Kinds = []string{record.KindAction, record.KindClaimEvent, record.KindDecision, record.KindFailure,
	record.KindGateFailure, record.KindHypothesis, record.KindInsight, record.KindNarrative, record.KindNote,
	record.KindOpenThread, record.KindPattern, record.KindSeed}

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

// addInTx stores m and links it with each of near (nearest first) that
// it contradicts. The searches that fill near run before the insert, so
// an import's write lock is held for the inserts only.
func addInTx(ctx context.Context, tx Writes, m record.NewMemory, near []record.MemoryRecord) (Added, error) {
	m = Sourced(m)
	m.Checked = true
	id, added, err := tx.AddMemory(ctx, m)
	if err != nil {
		return Added{}, err
	}
	if !added {
		prev, err := tx.Memory(ctx, id)
		if err != nil {
			return Added{}, err
		}
		if prev.Forgotten {
			if err := tx.RememberMemory(ctx, id, m.At); err != nil {
				return Added{}, err
			}
		}
		raised := record.TrustOf(m) > prev.Trust
		if raised {
			if err := tx.RaiseTrust(ctx, id, record.TrustOf(m)); err != nil {
				return Added{}, err
			}
		}
		if prev.Forgotten || raised {
			if prev, err = tx.Memory(ctx, id); err != nil {
				return Added{}, err
			}
		}
		a := Added{ID: id, Conflicts: prev.Conflicts, SupersededBy: prev.SupersededBy, DisputedBy: prev.DisputedBy, Raised: raised}
		if prev.Disputes != nil {
			a.Disputes = []int64{*prev.Disputes}
		}
		return a, nil
	}
	a := Added{ID: id, New: true}
	if _, err := linkContradictions(ctx, tx, id, m.Kind, m.Text, m.At, record.TrustOf(m), near, &a); err != nil {
		return Added{}, err
	}
	if len(a.Conflicts) > 0 {
		rec, err := tx.Memory(ctx, id)
		if err != nil {
			return Added{}, err
		}
		a.SupersededBy = rec.SupersededBy
	}
	return a, nil
}

// linkContradictions links memory id (of the given trust) with each of
// near that it contradicts and reports how many; a, when not nil, collects
// them, placed as record.Outranks places them (near must carry their
// trust).
func linkContradictions(ctx context.Context, tx Writes, id int64, kind, text string, at time.Time, trust float64,
	near []record.MemoryRecord, a *Added) (int, error) {
	seen := map[int64]bool{id: true}
	n := 0
	for _, o := range near {
		if seen[o.ID] || !opposes(kind, text, o.Kind, o.Text) {
			continue
		}
		seen[o.ID] = true
		added, err := tx.LinkConflict(ctx, id, o.ID, at)
		if err != nil {
			return n, err
		}
		if added {
			n++
		}
		if a != nil {
			a.Conflicts = append(a.Conflicts, o.ID)
			wins := record.Outranks(trust, at, id, o.Trust, o.CreatedAt, o.ID)
			switch old := older(o.CreatedAt, o.ID, at, id); {
			case old && wins:
				a.Supersedes = append(a.Supersedes, o.ID)
			case old:
				a.Disputes = append(a.Disputes, o.ID)
			case wins:
				a.DisputedBy = append(a.DisputedBy, o.ID)
			}
		}
	}
	return n, nil
}

// older reports whether memory (at, id) is older than (at2, id2): by
// time, then by id, as the store's Tx.LinkConflict decides.
func older(at time.Time, id int64, at2 time.Time, id2 int64) bool {
	a, b := at.UnixMilli(), at2.UnixMilli()
	return a < b || (a == b && id < id2)
}

// nearFinder is the FTS5 side of the store that nearByWords needs,
// inside a transaction or not.
type nearFinder interface {
	TermCounts(ctx context.Context, exprs []string, limit int) ([]int, error)
	NewestMatches(ctx context.Context, project, match string, limit int) ([]record.MemoryRecord, error)
}

// nearByWords finds the memories of m's project whose content words reach
// ConflictJaccard with m's. Candidates are the newest nearScan memories
// holding any of m's conflictRare rarest words: two statements of one
// fact share their specific words (claim ids, gate names, terms), and a
// search for the rarest of them matches few memories where a search for
// all words matched half the store. The newest matches are read in rowid
// order, which FTS5 stops at the limit, so the cost is bounded when even
// the rarest words are common (a BM25 order scored every match: 5 ms on
// 10,000 memories of repetitive text). A memory that shares 60% of the
// words but none of the three rarest, or that is older than the newest
// nearScan holding them, is missed; the Jaccard test on what is found is
// exact.
func nearByWords(ctx context.Context, st nearFinder, m record.NewMemory) ([]record.MemoryRecord, error) {
	all := similarityList(m.Text)
	if len(all) == 0 {
		return nil, nil
	}
	// Counting a word costs a cursor on the index (tens of microseconds
	// each), so only the likeliest rare words are counted: identifiers
	// ("c 12") first, then the longest words.
	words := slices.Clone(all)
	if len(words) > conflictCount {
		sort.SliceStable(words, func(a, b int) bool {
			ia, ib := strings.Contains(words[a], " "), strings.Contains(words[b], " ")
			if ia != ib {
				return ia
			}
			return len(words[a]) > len(words[b])
		})
		words = words[:conflictCount]
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
	hits, err := st.NewestMatches(ctx, m.ProjectPath, strings.Join(rare, " OR "), nearScan)
	if err != nil {
		return nil, err
	}
	type scoredRec struct {
		rec record.MemoryRecord
		sim float64
	}
	var near []scoredRec
	mine, ids := setOf(all), identifiers(all)
	for _, h := range hits {
		theirs := similarityList(h.Text)
		if otherThing(ids, identifiers(theirs)) {
			continue
		}
		if sim := jaccard(mine, setOf(theirs)); sim >= ConflictJaccard {
			near = append(near, scoredRec{h, sim})
		}
	}
	sort.SliceStable(near, func(a, b int) bool { return near[a].sim > near[b].sim })
	out := make([]record.MemoryRecord, 0, min(len(near), conflictCandidates))
	for _, r := range near[:min(len(near), conflictCandidates)] {
		out = append(out, r.rec)
	}
	return out, nil
}

// similarityList lists, in first-seen order, the subject words of text (see subject: quantities left out, identifiers such as
// "c 12" whole) without stop words, one-rune words and polarity cues.
func similarityList(text string) []string {
	words, _ := subject(text)
	out := words[:0]
	seen := make(map[string]bool, len(words))
	for _, w := range words {
		if utf8.RuneCountInString(w) < 2 || stopWords[w] || seen[w] || cueWord(w) {
			continue
		}
		seen[w] = true
		out = append(out, w)
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

// Sourced is m with the trust it is stored with set when its source alone
// does not give it: a memory of source type paper whose text and ref name
// no paper id (a DOI, PMID, PMCID, arXiv id or ISBN, as internal/citation
// reads them) is trusted record.TrustPaperNoID, below a paper anyone can
// look up. An explicit trust is kept.
func Sourced(m record.NewMemory) record.NewMemory {
	if m.Trust != nil {
		return m
	}
	st := m.SourceType
	if st == "" {
		st = record.DefaultSourceType(m.Source)
	}
	if st == record.SourcePaper && len(citation.IDs([]byte(m.Text), 1)) == 0 && len(citation.IDs([]byte(m.Ref), 1)) == 0 {
		m.Trust = record.Trust(record.TrustPaperNoID)
	}
	return m
}

// FromAgent is m as the agent may claim it (a memory it adds inside a
// Claude Code session) and whether that changed it: the agent is neither
// a person nor code, so a memory it says is a person's note or code's
// observation, or that names no source, is model output; a trust it gives
// is at most its source's default (a paper without an id its
// TrustPaperNoID), so it may lower its own trust but never raise it. A
// paper with an id, a blog and model output keep their defaults.
func FromAgent(m record.NewMemory) (record.NewMemory, bool) {
	changed := false
	switch m.SourceType {
	case record.SourcePaper, record.SourceBlog, record.SourceModel:
	default:
		m.SourceType, changed = record.SourceModel, m.SourceType != ""
	}
	if m.Trust != nil {
		d := m
		d.Trust = nil
		if ceiling := record.TrustOf(Sourced(d)); *m.Trust > ceiling {
			m.Trust, changed = record.Trust(ceiling), true
		}
	}
	return m, changed
}
