package recall

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/vibe-science/vibe/internal/embed"
	"github.com/vibe-science/vibe/internal/fault"
	"github.com/vibe-science/vibe/internal/store/record"
)

// Candidates is how many hits each list contributes to the fusion.
const Candidates = 50

// LexicalCandidates is how many BM25 hits a search without vectors
// re-ranks by freshness and trust (at least four times the limit).
const LexicalCandidates = 20

// DefaultLimit is how many hits Search returns when Query.Limit is 0.
const DefaultLimit = 10

// The modes a Result reports.
const (
	ModeHybrid  = "hybrid"
	ModeLexical = "lexical"
)

// The sources a Hit lists. SourceFallback marks a vector hit of the
// fallback hashed-token embedder (no model installed): its vectors hash
// the words, so such a hit matched words, not meanings, and is never
// listed as SourceVector.
const (
	SourceFTS      = "fts"
	SourceVector   = "vector"
	SourceFallback = "fallback"
)

// ErrNoWorker and ErrNoModel are what a Vectors client wraps when the embed
// worker is not running or has no model, so the note a person reads says
// which.
var (
	ErrNoWorker = errors.New("worker not running")
	ErrNoModel  = errors.New("no embedding model (run `vibe model pull`)")
	// ErrWorkerLate says the worker is up but did not answer within the
	// recall deadline (a model loading, a busy machine).
	ErrWorkerLate = errors.New("worker did not answer in time")
)

// Query is one recall request.
type Query struct {
	Project string
	Text    string
	// Limit is how many hits to return (DefaultLimit when 0).
	Limit int
	// Kinds keeps only these memory kinds (all when empty).
	Kinds []string
	// Now dates freshness; the zero time turns decay off.
	Now time.Time
	// Since, when not zero, keeps memories created at or after it;
	// Session, when set, those of one session.
	Since   time.Time
	Session string
	// AllProjects searches every project's memories (Project is then
	// ignored); it is lexical only, since vectors are kept per project.
	AllProjects bool
	// StandoutsOnly counts vector hits only when they stand out of the
	// model's own similarities even with no lexical candidate, where the
	// vector ranks are otherwise the order (package doc): for a recall
	// nobody asked for, the prompt hook's, which should say nothing rather
	// than the nearest of memories the model cannot tell apart ("go").
	StandoutsOnly bool
}

// keeps reports whether a memory passes the query's filters.
func (q Query) keeps(m record.MemoryRecord) bool {
	return (q.AllProjects || m.ProjectPath == q.Project) && (q.Since.IsZero() || !m.CreatedAt.Before(q.Since)) &&
		(q.Session == "" || m.SessionID == q.Session)
}

// Hit is one recalled memory.
type Hit struct {
	ID        int64
	Ref       string
	Kind      string
	Text      string
	Score     float64
	Sources   []string // SourceFTS, SourceVector or SourceFallback
	CreatedAt time.Time
	// Conflicts are the memories it contradicts, smallest id first.
	Conflicts []int64
	// SupersededBy is the newer memory, at least as trusted, that
	// contradicts it; Disputes the older, better-sourced memory it
	// contradicts, which stays current. Either ranks the hit down
	// (SupersededWeight), never hides it.
	SupersededBy *int64
	Disputes     *int64
	// DisputedBy are the newer, less trusted memories that contradict it,
	// newest first: the hit stays current, and Dispute is the newest of
	// them, for the line that says so.
	DisputedBy []int64
	Dispute    *Dispute
	// ProjectPath is the hit's project (differs between hits only with
	// Query.AllProjects).
	ProjectPath string
}

// Dispute is a memory that disputes a hit, as a line about the hit names
// it: its trust says where it comes from (record.TrustLabel).
type Dispute struct {
	ID        int64
	Trust     float64
	CreatedAt time.Time
	Text      string
}

// SupersededWeight multiplies the relevance (BM25, cosine) of a memory
// that a newer one contradicts, so that it ranks below the newer one and
// below equally relevant memories that stand, and is still found when it
// is the only match.
const SupersededWeight = 0.25

// VectorHit is one KNN result: a memory id and its L2 distance to the
// query (vec_memories holds unit vectors, so cosine = 1 − Distance²/2).
type VectorHit struct {
	ID       int64
	Distance float64
	// Model made the vectors (embed.FallbackModel marks the fallback
	// embedder's, which recall labels as degraded).
	Model string
}

// Vectors is the embed worker's KNN, reached through its socket: embed
// text, then the k nearest memories of a project (of the given kinds, all
// when empty), nearest first. The implementation owns its deadline and
// wraps ErrNoWorker or ErrNoModel when it cannot answer.
type Vectors interface {
	KNN(ctx context.Context, project, text string, k int, kinds []string) ([]VectorHit, error)
}

// starter is a Vectors that can begin a search and return at once
// (workerVectors with a Starter); the func it returns waits for the
// answer. It returns nil when this Vectors cannot start without waiting.
type starter interface {
	StartKNN(ctx context.Context, project, text string, k int, kinds []string) func() ([]VectorHit, error)
}

// Result is a recall answer: the hits, whether vectors took part, and why
// not when they did not.
type Result struct {
	Hits []Hit
	Mode string // ModeHybrid or ModeLexical
	Note string
	// Standouts is how many vector hits stood out of the model's own
	// similarities and were placed first (package doc); 0 means the
	// lexical order stands.
	Standouts int
	// Embedder is the model whose vectors took part (the hits' model), ""
	// when none did or the search found no vector hit; Fallback says it
	// is the fallback hashed-token embedder (no model installed): hybrid
	// in form, words only in substance. The CLI says which ranked its
	// results; the hooks do not tell the agent (Note and Embedder are for
	// people).
	Embedder string
	Fallback bool
}

// Search recalls memories of a project for free text: FTS5 BM25 and, when
// vec answers, vector KNN, fused and weighted as the package doc describes.
// Forgotten memories never appear. vec may be nil.
func Search(ctx context.Context, st Reads, vec Vectors, q Query) (Result, error) {
	if q.Project == "" && !q.AllProjects {
		return Result{}, fault.Errorf(fault.Invalid, "recall", "no project given; pass the project folder")
	}
	filter := record.TextQuery{Project: q.Project, Kinds: q.Kinds, Since: q.Since, Session: q.Session}
	if q.AllProjects {
		filter.Project, vec = "", nil
	}
	limit := q.Limit
	if limit <= 0 {
		limit = DefaultLimit
	}
	res := Result{Mode: ModeLexical}

	type knnAnswer struct {
		hits []VectorHit
		err  error
	}
	var knnWait func() knnAnswer // nil: no vector search
	if vec != nil && strings.TrimSpace(q.Text) != "" {
		// The worker embeds while SQLite searches. A Vectors that can start
		// a search and be waited on later (the worker's own, in-process)
		// needs no goroutine here.
		k := max(Candidates, limit)
		if s, ok := vec.(starter); ok {
			if wait := s.StartKNN(ctx, q.Project, q.Text, k, q.Kinds); wait != nil {
				knnWait = func() knnAnswer { h, err := wait(); return knnAnswer{h, err} }
			}
		}
		if knnWait == nil {
			ch := make(chan knnAnswer, 1)
			go func() {
				h, err := vec.KNN(ctx, q.Project, q.Text, k, q.Kinds)
				ch <- knnAnswer{h, err}
			}()
			knnWait = func() knnAnswer { return <-ch }
		}
	}

	// Without vectors there is nothing to fuse: freshness and trust only
	// reorder BM25's head, so a shorter candidate list does.
	candidates := max(Candidates, limit)
	if knnWait == nil {
		candidates = max(LexicalCandidates, 4*limit)
	}
	lex, lexNote, err := lexical(ctx, st, filter, q.Text, candidates)
	if err != nil {
		if knnWait != nil {
			knnWait()
		}
		return Result{}, fmt.Errorf("recall %q: %w", q.Text, err)
	}

	var vhits []VectorHit
	switch {
	case q.AllProjects:
		res.Note = "all projects: lexical only (vectors are kept per project)"
	case vec == nil:
		res.Note = "no vector search configured: lexical only"
	case knnWait == nil:
		res.Note = "the query is empty: nothing to search"
	default:
		a := knnWait()
		if a.err != nil {
			res.Note = vectorNote(a.err)
		} else {
			res.Mode = ModeHybrid
			vhits = a.hits
			if len(vhits) > 0 {
				res.Embedder = vhits[0].Model
				res.Fallback = embed.IsFallback(res.Embedder)
			}
		}
	}
	if len(Terms(q.Text)) == 0 && res.Mode == ModeHybrid {
		res.Note = "the query has no searchable words: vector ranks only"
		if q.StandoutsOnly {
			res.Note = "the query has no searchable words: vector hits that stand out only"
		}
	}
	if lexNote != "" {
		res.Note = joinNotes(res.Note, lexNote)
	}

	now := q.Now
	byID := make(map[int64]*Hit, len(lex)+len(vhits))
	inLexical := make(map[int64]bool, len(lex))
	records := make(map[int64]record.MemoryRecord, len(lex)+len(vhits))
	ranked := make([]scored, 0, len(lex))
	for _, h := range lex {
		inLexical[h.ID] = true
		records[h.ID] = h.MemoryRecord
		ranked = append(ranked, scored{h.ID, h.BM25 * decay(h.MemoryRecord, now)})
	}
	for i, s := range rank(ranked) {
		byID[s.id] = &Hit{Score: rrf(i + 1), Sources: []string{SourceFTS}}
	}
	if len(vhits) > 0 {
		// The fallback embedder hashes words: with no lexical candidate its
		// nearest memories share hash buckets, not meaning, so only a group
		// that stands out counts (a query of unknown words recalls nothing
		// rather than every memory).
		standoutsOnly := q.StandoutsOnly || res.Fallback
		if err := addVectorHits(ctx, st, q.Project, now, limit, standoutsOnly, vhits, inLexical, records, byID, &res); err != nil {
			return Result{}, err
		}
	}

	hits := make([]Hit, 0, len(byID))
	for id, h := range byID {
		m := records[id]
		if !q.keeps(m) {
			continue // a vector hit outside --since or --session
		}
		h.ID, h.Ref, h.Kind, h.Text, h.CreatedAt = m.ID, m.Ref, m.Kind, m.Text, m.CreatedAt
		h.Conflicts, h.SupersededBy, h.ProjectPath = m.Conflicts, m.SupersededBy, m.ProjectPath
		h.Disputes, h.DisputedBy = m.Disputes, m.DisputedBy
		hits = append(hits, *h)
	}
	sortHits(hits)
	belowSuperseder(hits)
	res.Hits = collapse(hits, limit)
	if err := addDisputes(ctx, st, res.Hits, records); err != nil {
		return Result{}, fmt.Errorf("recall %q: %w", q.Text, err)
	}
	return res, nil
}

// HitOf is a memory as a hit that no search scored (SessionStart's
// salient memories): its text and where it stands.
func HitOf(m record.MemoryRecord) Hit {
	return Hit{ID: m.ID, Ref: m.Ref, Kind: m.Kind, Text: m.Text, CreatedAt: m.CreatedAt, Conflicts: m.Conflicts,
		SupersededBy: m.SupersededBy, Disputes: m.Disputes, DisputedBy: m.DisputedBy, ProjectPath: m.ProjectPath}
}

// FillDisputes sets Dispute on each disputed hit (as Search does), reading
// the memories that dispute them.
func FillDisputes(ctx context.Context, st Reads, hits []Hit) error {
	return addDisputes(ctx, st, hits, map[int64]record.MemoryRecord{})
}

// addDisputes sets Dispute on each disputed hit: the newest memory that
// disputes it, from the records the search read or, when it did not read
// it, from the store (one read; a memory is rarely disputed).
func addDisputes(ctx context.Context, st Reads, hits []Hit, records map[int64]record.MemoryRecord) error {
	missing := map[string][]int64{}
	for _, h := range hits {
		if len(h.DisputedBy) > 0 {
			if _, ok := records[h.DisputedBy[0]]; !ok {
				missing[h.ProjectPath] = append(missing[h.ProjectPath], h.DisputedBy[0])
			}
		}
	}
	for project, ids := range missing {
		ms, err := st.MemoriesByID(ctx, project, ids)
		if err != nil {
			return err
		}
		for _, m := range ms {
			records[m.ID] = m
		}
	}
	for i, h := range hits {
		if len(h.DisputedBy) == 0 {
			continue
		}
		if m, ok := records[h.DisputedBy[0]]; ok {
			hits[i].Dispute = &Dispute{ID: m.ID, Trust: m.Trust, CreatedAt: m.CreatedAt, Text: m.Text}
		}
	}
	return nil
}

// outrankedBy is the memory a hit is ranked below: the one that
// supersedes it, else the one it disputes.
func (h Hit) outrankedBy() *int64 {
	if h.SupersededBy != nil {
		return h.SupersededBy
	}
	return h.Disputes
}

// belowSuperseder moves each hit whose superseder (or the better-sourced
// memory it disputes) is also a hit to just below it: SupersededWeight
// ranks an outranked memory down among the others, but a query that
// quotes its value matches its text best, and the statement that stands
// must still come first. Outranking is an order (record.Outranks), so the
// moves end; the bound guards against links that disagree (two records
// read at different times), which would otherwise loop.
func belowSuperseder(hits []Hit) {
	for moved, n := true, 0; moved && n <= len(hits)*len(hits); n++ {
		moved = false
		pos := make(map[int64]int, len(hits))
		for i, h := range hits {
			pos[h.ID] = i
		}
		for i, h := range hits {
			over := h.outrankedBy()
			if over == nil {
				continue
			}
			j, ok := pos[*over]
			if !ok || j < i {
				continue
			}
			// Move hit i to just after hit j.
			copy(hits[i:j], hits[i+1:j+1])
			h.Score = hits[j-1].Score
			hits[j] = h
			moved = true
			break
		}
	}
}

// scored is a memory and its relevance within one list.
type scored struct {
	id  int64
	rel float64
}

// rank orders a list by relevance, best first, ties by id.
func rank(s []scored) []scored {
	sort.Slice(s, func(i, j int) bool {
		if s[i].rel != s[j].rel {
			return s[i].rel > s[j].rel
		}
		return s[i].id < s[j].id
	})
	return s
}

// decay is the freshness and trust weight of a memory at now (none when
// now is zero), and SupersededWeight when a memory that contradicts it
// outranks it (it is superseded, or disputes a better-sourced one).
func decay(m record.MemoryRecord, now time.Time) float64 {
	if now.IsZero() {
		now = m.CreatedAt
	}
	w := weight(m.Kind, m.Trust, m.CreatedAt, now)
	if m.OutrankedBy() != nil {
		w *= SupersededWeight
	}
	return w
}

// addVectorHits places the group of vector hits that stands out of the
// model's similarities (standouts) ahead of the lexical order, in BM25's
// order and then, for memories BM25 did not match, the model's; the other
// vector hits change nothing (package doc), so only the group's memories
// are read (dropping forgotten ones and those of other projects). With no
// lexical candidate there is nothing to protect, and the vector ranks are
// the order, unless standoutsOnly (Query.StandoutsOnly, or the fallback
// embedder's vectors) keeps the group alone.
func addVectorHits(ctx context.Context, st Reads, project string, now time.Time, limit int, standoutsOnly bool, vhits []VectorHit,
	inLexical map[int64]bool, records map[int64]record.MemoryRecord, byID map[int64]*Hit, res *Result) error {
	// The model's raw cosines, nearest first, decide the group, over every
	// hit: vectors are stored per project and leave with their memory, so
	// a hit the read below drops (a memory another process forgot while
	// the worker's index still held its vector) is a rare straggler.
	type near struct {
		id  int64
		cos float64
	}
	nears := make([]near, 0, len(vhits))
	seen := make(map[int64]bool, len(vhits))
	for _, v := range vhits {
		if seen[v.ID] {
			continue
		}
		seen[v.ID] = true
		nears = append(nears, near{v.ID, 1 - v.Distance*v.Distance/2})
	}
	if len(nears) == 0 {
		return nil
	}
	sort.SliceStable(nears, func(i, j int) bool { return nears[i].cos > nears[j].cos })
	n := len(nears)
	if len(inLexical) > 0 || standoutsOnly {
		sims := make([]float64, len(nears))
		for i, nr := range nears {
			sims[i] = nr.cos
		}
		n = standouts(sims, limit)
	}
	if n == 0 {
		kept := "lexical order kept"
		if len(inLexical) == 0 {
			kept = "nothing recalled"
		}
		res.Note = joinNotes(res.Note, "no vector hit stands out of the model's own similarities: "+kept)
		return nil
	}
	var missing []int64
	for _, nr := range nears[:n] {
		if _, ok := records[nr.id]; !ok {
			missing = append(missing, nr.id)
		}
	}
	ms, err := st.MemoriesByID(ctx, project, missing)
	if err != nil {
		return fmt.Errorf("recall: %w", err)
	}
	for _, m := range ms {
		records[m.ID] = m
	}
	// Freshness and trust order the group's memories BM25 did not match,
	// as they order BM25's.
	ranked := make([]scored, 0, n)
	for _, nr := range nears[:n] {
		if m, ok := records[nr.id]; ok {
			ranked = append(ranked, scored{nr.id, nr.cos * decay(m, now)})
		}
	}
	res.Standouts = len(ranked)
	// Lexical hits hold 1/(RRFK + rank) ≤ 1/61; the group is lifted by 1
	// above all of them, keeping BM25's order inside it, and the members
	// BM25 did not match follow its candidates.
	added := 0
	for _, s := range rank(ranked) {
		h := byID[s.id]
		if h == nil {
			added++
			h = &Hit{Score: rrf(len(inLexical) + added)}
			byID[s.id] = h
		}
		h.Score++
		if res.Fallback {
			h.Sources = append(h.Sources, SourceFallback)
		} else {
			h.Sources = append(h.Sources, SourceVector)
		}
	}
	return nil
}

// vectorNote says why vectors did not take part.
func vectorNote(err error) string {
	switch {
	case errors.Is(err, ErrWorkerLate):
		return err.Error() + ": lexical only"
	case errors.Is(err, ErrNoWorker):
		return "worker not running: lexical only"
	case errors.Is(err, ErrNoModel):
		return ErrNoModel.Error() + ": lexical only"
	case errors.Is(err, context.DeadlineExceeded):
		return "worker did not answer in time: lexical only"
	}
	return fmt.Sprintf("vector search failed (%v): lexical only", err)
}

func joinNotes(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}

// sortHits orders by score, best first, ties by id.
func sortHits(h []Hit) {
	sort.Slice(h, func(i, j int) bool {
		if h[i].Score != h[j].Score {
			return h[i].Score > h[j].Score
		}
		return h[i].ID < h[j].ID
	})
}
