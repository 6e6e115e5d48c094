package recall

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/vibe-science/vibe/internal/fault"
	"github.com/vibe-science/vibe/internal/record"
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

// The sources a Hit lists.
const (
	SourceFTS    = "fts"
	SourceVector = "vector"
)

// ErrNoWorker and ErrNoModel are what a Vectors client wraps when the embed
// worker is not running or has no model, so the note a person reads says
// which.
var (
	ErrNoWorker = errors.New("worker not running")
	ErrNoModel  = errors.New("no embedding model (run `vibe model pull`)")
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
}

// Hit is one recalled memory.
type Hit struct {
	ID        int64
	Ref       string
	Kind      string
	Text      string
	Score     float64
	Sources   []string // SourceFTS, SourceVector
	CreatedAt time.Time
	// Conflict is a memory that states the opposite, if one was detected.
	Conflict *int64
}

// VectorHit is one KNN result: a memory id and its L2 distance to the
// query (vec_memories holds unit vectors, so cosine = 1 − Distance²/2).
type VectorHit struct {
	ID       int64
	Distance float64
}

// Vectors is the embed worker's KNN, reached through its socket: embed
// text, then the k nearest memories of a project (of the given kinds, all
// when empty), nearest first. The implementation owns its deadline and
// wraps ErrNoWorker or ErrNoModel when it cannot answer.
type Vectors interface {
	KNN(ctx context.Context, project, text string, k int, kinds []string) ([]VectorHit, error)
}

// Result is a recall answer: the hits, whether vectors took part, and why
// not when they did not.
type Result struct {
	Hits []Hit
	Mode string // ModeHybrid or ModeLexical
	Note string
	// VectorWeight is the confidence the vector ranks were given (0..1).
	VectorWeight float64
}

// Search recalls memories of a project for free text: FTS5 BM25 and, when
// vec answers, vector KNN, fused and weighted as the package doc describes.
// Forgotten memories never appear. vec may be nil.
func Search(ctx context.Context, st Reads, vec Vectors, q Query) (Result, error) {
	if q.Project == "" {
		return Result{}, fault.Errorf(fault.Invalid, "recall", "no project given; pass the project folder")
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
	var knn chan knnAnswer
	if vec != nil && strings.TrimSpace(q.Text) != "" {
		// The worker embeds while SQLite searches.
		knn = make(chan knnAnswer, 1)
		go func() {
			h, err := vec.KNN(ctx, q.Project, q.Text, max(Candidates, limit), q.Kinds)
			knn <- knnAnswer{h, err}
		}()
	}

	// Without vectors there is nothing to fuse: freshness and trust only
	// reorder BM25's head, so a shorter candidate list does.
	candidates := max(Candidates, limit)
	if knn == nil {
		candidates = max(LexicalCandidates, 4*limit)
	}
	lex, lexNote, err := lexical(ctx, st, q.Project, q.Text, q.Kinds, candidates)
	if err != nil {
		if knn != nil {
			<-knn
		}
		return Result{}, fmt.Errorf("recall %q: %w", q.Text, err)
	}

	var vhits []VectorHit
	switch {
	case vec == nil:
		res.Note = "no vector search configured: lexical only"
	case knn == nil:
		res.Note = "the query is empty: nothing to search"
	default:
		a := <-knn
		if a.err != nil {
			res.Note = vectorNote(a.err)
		} else {
			res.Mode = ModeHybrid
			vhits = a.hits
		}
	}
	if len(Terms(q.Text)) == 0 && res.Mode == ModeHybrid {
		res.Note = "the query has no searchable words: vector ranks only"
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
		if err := addVectorHits(ctx, st, q.Project, now, vhits, inLexical, records, byID, &res); err != nil {
			return Result{}, err
		}
	}

	hits := make([]Hit, 0, len(byID))
	for id, h := range byID {
		m := records[id]
		h.ID, h.Ref, h.Kind, h.Text, h.CreatedAt, h.Conflict = m.ID, m.Ref, m.Kind, m.Text, m.CreatedAt, m.ConflictsWith
		hits = append(hits, *h)
	}
	sortHits(hits)
	res.Hits = collapse(hits, limit)
	return res, nil
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
// now is zero).
func decay(m record.MemoryRecord, now time.Time) float64 {
	if now.IsZero() {
		now = m.CreatedAt
	}
	return weight(m.Kind, m.Trust, m.CreatedAt, now)
}

// addVectorHits hydrates the vector hits (dropping forgotten ones and those
// of other projects), weighs them by confidence and adds their share.
func addVectorHits(ctx context.Context, st Reads, project string, now time.Time, vhits []VectorHit,
	inLexical map[int64]bool, records map[int64]record.MemoryRecord, byID map[int64]*Hit, res *Result) error {
	var missing []int64
	for _, v := range vhits {
		if _, ok := records[v.ID]; !ok {
			missing = append(missing, v.ID)
		}
	}
	ms, err := st.MemoriesByID(ctx, project, missing)
	if err != nil {
		return fmt.Errorf("recall: %w", err)
	}
	for _, m := range ms {
		records[m.ID] = m
	}
	// The model's own order decides the confidence; freshness and trust
	// then reorder by cosine, as they reorder BM25.
	order := make([]int64, 0, len(vhits))
	ranked := make([]scored, 0, len(vhits))
	seen := make(map[int64]bool, len(vhits))
	for _, v := range vhits {
		m, ok := records[v.ID]
		if !ok || seen[v.ID] {
			continue
		}
		seen[v.ID] = true
		order = append(order, v.ID)
		ranked = append(ranked, scored{v.ID, (1 - v.Distance*v.Distance/2) * decay(m, now)})
	}
	pool := len(inLexical)
	if len(inLexical) > 0 && len(order) > 0 {
		if pool, err = st.MemoryCount(ctx, project); err != nil {
			return fmt.Errorf("recall: %w", err)
		}
	}
	w := vectorWeight(order, inLexical, pool)
	res.VectorWeight = w
	if w == 0 {
		if len(order) > 0 {
			res.Note = joinNotes(res.Note, "vector ranks agree with the lexical ones no better than chance: lexical order kept")
		}
		return nil
	}
	for i, s := range rank(ranked) {
		h := byID[s.id]
		if h == nil {
			h = &Hit{}
			byID[s.id] = h
		}
		h.Score += w * rrf(i+1)
		h.Sources = append(h.Sources, SourceVector)
	}
	return nil
}

// vectorNote says why vectors did not take part.
func vectorNote(err error) string {
	switch {
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
