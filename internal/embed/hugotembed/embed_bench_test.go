package hugotembed

import (
	"context"
	"fmt"
	"testing"

	"github.com/vibe-science/vibe/internal/embed"
	"github.com/vibe-science/vibe/internal/embed/hugotembed/testmodel"
)

// BenchmarkEmbed is each generated model shape's embedding throughput:
// 256 texts in batches of 32 an iteration (texts-per-s), after one warm-up
// batch (the Go backend compiles a graph per input shape), and the test
// process's peak resident memory with the model loaded (peak-rss-MB). The
// static (potion-base-8M) shape runs first: the peak (VmHWM) only grows,
// so this order gives each shape its own figure. `make bench` runs it with
// -benchtime 1x and reports the MiniLM shape's throughput next to the
// acceptance floor of 15 texts a second on two cores.
func BenchmarkEmbed(b *testing.B) {
	texts := benchTexts(256)
	const batch = 32
	for _, shape := range []struct {
		name    string
		variant testmodel.Variant
	}{
		{"static-batch32", testmodel.Static},
		{"minilm-batch32", testmodel.Full},
	} {
		b.Run(shape.name, func(b *testing.B) {
			e, err := Load(testmodel.Dir(b, shape.variant))
			if err != nil {
				b.Fatal(err)
			}
			defer e.Close()
			ctx := context.Background()
			if _, err := e.Embed(ctx, texts[:batch]); err != nil {
				b.Fatalf("warm-up: %v", err)
			}
			n := 0
			for b.Loop() {
				for i := 0; i < len(texts); i += batch {
					if _, err := e.Embed(ctx, texts[i:min(i+batch, len(texts))]); err != nil {
						b.Fatal(err)
					}
				}
				n += len(texts)
			}
			b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "texts-per-s")
			mem, err := embed.ReadMemory()
			if err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(float64(mem.Peak>>20), "peak-rss-MB")
		})
	}
}

// benchTexts is n distinct research-note sentences.
func benchTexts(n int) []string {
	base := []string{
		"DQ2 failed: the split was per site, so one guide sat on both sides of the fold",
		"Hold out 22 guides entirely for testing and report AUC per guide",
		"Reviewer 2 asked for a bootstrap interval on the Spearman correlation",
		"Coverage dropped to 0.71 on fold 3 after recalibration",
		"The leakage column gc_content_label was dropped from the features table",
		"Conformal prediction sets at alpha 0.1 on guide-held-out folds",
		"CHANGE-seq reads were re-aligned to hg38 before joining with GUIDE-seq",
		"Seed: bulged sites cleave more than their mismatch count predicts",
	}
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("%s (run %d)", base[i%len(base)], i)
	}
	return out
}
