package recall

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/vibe-science/vibe/internal/record"
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
