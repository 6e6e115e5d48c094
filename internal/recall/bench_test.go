package recall

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/vibe-science/vibe/internal/embed"
	"github.com/vibe-science/vibe/internal/store"
	"github.com/vibe-science/vibe/internal/store/record"
)

// BenchmarkImport5k imports 5,000 research memories (Fill's text, exported
// as JSONL) into an empty project, conflict detection included.
func BenchmarkImport5k(b *testing.B) {
	ctx := context.Background()
	src := openStore(b)
	if err := Fill(ctx, src, "/src", 5000, t0); err != nil {
		b.Fatal(err)
	}
	var sb strings.Builder
	err := src.ExportMemories(ctx, "/src", func(m record.MemoryRecord) error {
		line, err := json.Marshal(ImportLine{Text: m.Text, Kind: m.Kind, CreatedAt: json.RawMessage(m.CreatedAt.Format(`"2006-01-02T15:04:05Z07:00"`))})
		sb.Write(line)
		sb.WriteByte('\n')
		return err
	})
	if err != nil {
		b.Fatal(err)
	}
	in := sb.String()
	for b.Loop() {
		st := openStore(b)
		rep, err := Import(ctx, st, strings.NewReader(in), "/p", t0, nil)
		if err != nil || rep.Added != 5000 {
			b.Fatalf("import: %+v %v", rep, err)
		}
	}
}

// BenchmarkSearch50k is lexical recall of three hits over 50,000 memories.
func BenchmarkSearch50k(b *testing.B) {
	ctx := context.Background()
	st := openStore(b)
	if err := Fill(ctx, st, "/p", 50000, t0); err != nil {
		b.Fatal(err)
	}
	queries := []string{"why did the DQ1 gate fail on the GUIDE-seq data", "Harmony batch integration decision", "annealing Q factor thermal drift"}
	for i := 0; b.Loop(); i++ {
		if _, err := Search(ctx, st, nil, Query{Project: "/p", Text: queries[i%len(queries)], Limit: 3, Now: t0}); err != nil {
			b.Fatal(err)
		}
	}
}

// storeVectors is a Vectors that embeds in-process and searches st, as the
// worker does behind its socket: it isolates recall's vector path cost.
type storeVectors struct {
	st  *store.Store
	emb embed.Embedder
}

func (v storeVectors) KNN(ctx context.Context, project, text string, k int, kinds []string) ([]VectorHit, error) {
	q, err := v.emb.Embed(ctx, []string{text})
	if err != nil {
		return nil, err
	}
	hits, err := v.st.KNN(ctx, project, q[0], k, v.emb.Model(), kinds)
	out := make([]VectorHit, len(hits))
	for i, h := range hits {
		out[i] = VectorHit{ID: h.MemoryID, Distance: h.Distance, Model: v.emb.Model()}
	}
	return out, err
}

// BenchmarkHybridSearch50k is BenchmarkSearch50k with every memory
// embedded (by the fallback embedder, microseconds a text) and the vector
// path on: the cost hybrid recall adds over lexical in-process.
func BenchmarkHybridSearch50k(b *testing.B) {
	ctx := context.Background()
	st := openStore(b)
	if err := Fill(ctx, st, "/p", 50000, t0); err != nil {
		b.Fatal(err)
	}
	emb := embed.Fallback{}
	for {
		items, err := st.ClaimEmbeds(ctx, emb.Model(), 1000, t0)
		if err != nil {
			b.Fatal(err)
		}
		if len(items) == 0 {
			break
		}
		res := make([]record.EmbedResult, len(items))
		for i, it := range items {
			v, _ := emb.Embed(ctx, []string{it.Text})
			res[i] = record.EmbedResult{Item: it, Vector: v[0]}
		}
		if _, err := st.CompleteEmbeds(ctx, emb.Model(), res, t0); err != nil {
			b.Fatal(err)
		}
	}
	vec := storeVectors{st: st, emb: emb}
	queries := []string{"why did the DQ1 gate fail on the GUIDE-seq data", "Harmony batch integration decision", "annealing Q factor thermal drift"}
	for i := 0; b.Loop(); i++ {
		res, err := Search(ctx, st, vec, Query{Project: "/p", Text: queries[i%len(queries)], Limit: 3, Now: t0})
		if err != nil || res.Mode != ModeHybrid {
			b.Fatal(res.Note, err)
		}
	}
}

// BenchmarkCheckPending10k is the worker's contradiction check of one
// memory a hook wrote, in a project of 10,000 (the insert itself, which is
// all the hook pays, is not timed). The texts are Fill's, so most share
// most of their words with stored memories, the worst case for the search
// of neighbours.
func BenchmarkCheckPending10k(b *testing.B) {
	ctx := context.Background()
	st := openStore(b)
	if err := Fill(ctx, st, "/p", 10000, t0); err != nil {
		b.Fatal(err)
	}
	src := openStore(b)
	if err := Fill(ctx, src, "/src", 2000, t0.Add(time.Hour)); err != nil {
		b.Fatal(err)
	}
	var news []record.NewMemory
	err := src.ExportMemories(ctx, "/src", func(m record.MemoryRecord) error {
		news = append(news, record.NewMemory{ProjectPath: "/p", Kind: m.Kind, Text: "new " + m.Text, Source: "hook", At: t0.Add(time.Hour)})
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	links := 0
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		m := news[i%len(news)]
		m.Text += fmt.Sprintf(" [%d]", i)
		if err := st.Tx(ctx, func(tx *store.Tx) error { _, _, err := tx.AddMemory(ctx, m); return err }); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		n, l, err := CheckPending(ctx, st, 10)
		if err != nil || n != 1 {
			b.Fatalf("checked %d: %v", n, err)
		}
		links += l
	}
	b.ReportMetric(float64(links)/float64(b.N), "links/op")
}
