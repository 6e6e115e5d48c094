package embed

import (
	"context"
	"math"
	"testing"
)

func cos(a, b []float32) float64 {
	var s float64
	for i := range a {
		s += float64(a[i]) * float64(b[i])
	}
	return s
}

func TestFallbackEmbedder(t *testing.T) {
	var e Embedder = Fallback{}
	if e.Model() != FallbackModel || e.Dims() != 384 || !IsFallback(e.Model()) || IsFallback(MiniLMModel) {
		t.Fatalf("Model, Dims = %q, %d", e.Model(), e.Dims())
	}
	texts := []string{
		"Normalise the counts before clustering",
		"normalize counts before the clustering step",
		"The reviewer rejected claim C-012 on batch effects",
		"!!!",
	}
	v, err := e.Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	for i, x := range v[:3] {
		var n float64
		for _, f := range x {
			n += float64(f) * float64(f)
		}
		if math.Abs(n-1) > 1e-5 {
			t.Errorf("vector %d has squared norm %f, want 1", i, n)
		}
	}
	if s := cos(v[3], v[3]); s != 0 {
		t.Errorf("a text without words gave a non-zero vector (|v|² = %f)", s)
	}
	near, far := cos(v[0], v[1]), cos(v[0], v[2])
	if near < 0.5 || far > 0.3 || near <= far {
		t.Errorf("cos(paraphrase) = %.3f, cos(unrelated) = %.3f; want shared words near, others far", near, far)
	}
	again, _ := e.Embed(context.Background(), texts[:1])
	if cos(again[0], v[0]) < 0.999999 {
		t.Error("the fallback embedder is not deterministic")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := e.Embed(ctx, texts); err == nil {
		t.Error("Embed on a cancelled context succeeded")
	}
}

func BenchmarkFallbackEmbed(b *testing.B) {
	texts := []string{"why did the knockout reduce expression in replicate two of the batch"}
	for b.Loop() {
		Fallback{}.Embed(context.Background(), texts)
	}
}
