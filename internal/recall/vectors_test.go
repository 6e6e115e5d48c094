package recall

import (
	"context"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"sort"
	"testing"

	"github.com/vibe-science/vibe/internal/embed"
	"github.com/vibe-science/vibe/internal/store"
	"github.com/vibe-science/vibe/internal/store/record"
)

// memoriesOf lists a project's memories for the fake vector indexes.
func memoriesOf(t testing.TB, st *store.Store, project string) []record.MemoryRecord {
	t.Helper()
	ms, err := st.RecentMemories(context.Background(), project, 1_000_000)
	if err != nil {
		t.Fatal(err)
	}
	sort.Slice(ms, func(i, j int) bool { return ms[i].ID < ms[j].ID })
	return ms
}

// randomVectors is what a model with random weights amounts to: neighbours
// that have nothing to do with the query, the same for the same query.
type randomVectors struct{ ids []int64 }

func (r randomVectors) KNN(_ context.Context, _, text string, k int, _ []string) ([]VectorHit, error) {
	h := fnv.New64a()
	h.Write([]byte(text))
	rng := rand.New(rand.NewPCG(h.Sum64(), 7))
	perm := rng.Perm(len(r.ids))
	out := make([]VectorHit, 0, k)
	d := 0.9
	for _, i := range perm[:min(k, len(perm))] {
		d += rng.Float64() * 0.01
		out = append(out, VectorHit{ID: r.ids[i], Distance: d})
	}
	return out, nil
}

// trigramVectors is a crude model with real signal: cosine over character
// trigram counts, which matches shared word stems and morphology but knows
// no synonyms.
type trigramVectors struct {
	ids  []int64
	vecs []map[string]float64
}

func newTrigramVectors(ms []record.MemoryRecord) *trigramVectors {
	tv := &trigramVectors{}
	for _, m := range ms {
		tv.ids = append(tv.ids, m.ID)
		tv.vecs = append(tv.vecs, trigrams(m.Text))
	}
	return tv
}

func trigrams(text string) map[string]float64 {
	v := map[string]float64{}
	for _, w := range contentWords(text) {
		w = " " + w + " "
		r := []rune(w)
		for i := 0; i+3 <= len(r); i++ {
			v[string(r[i:i+3])]++
		}
	}
	n := 0.0
	for _, x := range v {
		n += x * x
	}
	for k := range v {
		v[k] /= math.Sqrt(n)
	}
	return v
}

func (tv *trigramVectors) KNN(_ context.Context, _, text string, k int, _ []string) ([]VectorHit, error) {
	q := trigrams(text)
	return nearest(tv.ids, func(i int) float64 {
		c := 0.0
		for g, x := range q {
			c += x * tv.vecs[i][g]
		}
		return c
	}, k, ""), nil
}

// nearest is exact KNN over unit vectors: the k ids of highest cosine
// (cos(i) for ids[i]; ties by id), as VectorHits of model.
func nearest(ids []int64, cos func(i int) float64, k int, model string) []VectorHit {
	type sc struct {
		id  int64
		cos float64
	}
	all := make([]sc, len(ids))
	for i, id := range ids {
		all[i] = sc{id, cos(i)}
	}
	sort.Slice(all, func(i, j int) bool {
		if all[i].cos != all[j].cos {
			return all[i].cos > all[j].cos
		}
		return all[i].id < all[j].id
	})
	out := make([]VectorHit, 0, k)
	for _, s := range all[:min(k, len(all))] {
		out = append(out, VectorHit{ID: s.id, Distance: math.Sqrt(math.Max(0, 2-2*s.cos)), Model: model})
	}
	return out
}

// embedderVectors is an embedder's vectors with exact KNN, as the worker
// serves them: embed.Fallback's (words and trigrams hashed to signed
// buckets) while no model is installed, or a model's.
type embedderVectors struct {
	emb  embed.Embedder
	ids  []int64
	vecs [][]float32
}

// newEmbedderVectors embeds ms with emb in batches of 32, as the worker's
// embed loop does.
func newEmbedderVectors(t testing.TB, emb embed.Embedder, ms []record.MemoryRecord) *embedderVectors {
	t.Helper()
	ev := &embedderVectors{emb: emb}
	for start := 0; start < len(ms); start += 32 {
		var texts []string
		for _, m := range ms[start:min(start+32, len(ms))] {
			ev.ids = append(ev.ids, m.ID)
			texts = append(texts, m.Text)
		}
		vecs, err := emb.Embed(context.Background(), texts)
		if err != nil {
			t.Fatalf("embed the memories with %s: %v", emb.Model(), err)
		}
		ev.vecs = append(ev.vecs, vecs...)
	}
	return ev
}

func (ev *embedderVectors) KNN(ctx context.Context, _, text string, k int, _ []string) ([]VectorHit, error) {
	qv, err := ev.emb.Embed(ctx, []string{text})
	if err != nil {
		return nil, err
	}
	return nearest(ev.ids, func(i int) float64 {
		c := 0.0
		for j, x := range ev.vecs[i] {
			c += float64(x) * float64(qv[0][j])
		}
		return c
	}, k, ev.emb.Model()), nil
}

// fixedVectors answers with given hits, or an error.
type fixedVectors struct {
	hits []VectorHit
	err  error
}

func (f fixedVectors) KNN(context.Context, string, string, int, []string) ([]VectorHit, error) {
	return f.hits, f.err
}

// oracleVectors is a model better than any we have: for the set's queries
// it puts the relevant memories first, then ranks like trigramVectors. It
// shows what fusion does with a model that understands paraphrases.
type oracleVectors struct {
	*trigramVectors
	relevant map[string][]int64
}

func newOracleVectors(t testing.TB, st *store.Store, s Set) oracleVectors {
	ms := memoriesOf(t, st, s.Project)
	byRef := map[string]int64{}
	for _, m := range ms {
		byRef[m.Ref] = m.ID
	}
	o := oracleVectors{newTrigramVectors(ms), map[string][]int64{}}
	for _, q := range s.Queries {
		for _, r := range q.Relevant {
			o.relevant[q.Query] = append(o.relevant[q.Query], byRef[r])
		}
	}
	return o
}

func (o oracleVectors) KNN(ctx context.Context, project, text string, k int, kinds []string) ([]VectorHit, error) {
	rest, _ := o.trigramVectors.KNN(ctx, project, text, k+len(o.relevant[text]), kinds)
	out := make([]VectorHit, 0, k)
	first := map[int64]bool{}
	for _, id := range o.relevant[text] {
		first[id] = true
		out = append(out, VectorHit{ID: id, Distance: 0.3})
	}
	for _, h := range rest {
		if len(out) == k {
			break
		}
		if !first[h.ID] {
			out = append(out, h)
		}
	}
	return out, nil
}

// liftedVectors is a model that knows a little: trigram cosines, with the
// memories that answer the set's queries lifted by lift, so they stand
// out of the rest only as far as lift takes them.
type liftedVectors struct {
	*trigramVectors
	relevant map[string]map[int64]bool
	lift     float64
}

func newLiftedVectors(t testing.TB, st *store.Store, s Set, lift float64) liftedVectors {
	o := newOracleVectors(t, st, s)
	l := liftedVectors{o.trigramVectors, map[string]map[int64]bool{}, lift}
	for q, ids := range o.relevant {
		l.relevant[q] = map[int64]bool{}
		for _, id := range ids {
			l.relevant[q][id] = true
		}
	}
	return l
}

func (l liftedVectors) KNN(ctx context.Context, project, text string, k int, kinds []string) ([]VectorHit, error) {
	all, err := l.trigramVectors.KNN(ctx, project, text, len(l.ids), kinds)
	if err != nil {
		return nil, err
	}
	cos := func(h VectorHit) float64 {
		c := 1 - h.Distance*h.Distance/2
		if l.relevant[text][h.ID] {
			c += l.lift
		}
		return math.Min(1, c)
	}
	sort.SliceStable(all, func(i, j int) bool { return cos(all[i]) > cos(all[j]) })
	out := all[:min(k, len(all))]
	for i := range out {
		out[i].Distance = math.Sqrt(math.Max(0, 2-2*cos(out[i])))
	}
	return out, nil
}
