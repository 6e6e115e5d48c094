package hugotembed

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vibe-science/vibe/internal/embed"
	"github.com/vibe-science/vibe/internal/embed/hugotembed/testmodel"
)

var _ embed.Embedder = (*Embedder)(nil)

func openModel(t *testing.T, v testmodel.Variant) *Embedder {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "minilm-test")
	if err := testmodel.CopyTo(testmodel.Dir(t, v), dir); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	e, err := Open(dir, embed.ONNXFile)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Logf("load %s", time.Since(start))
	t.Cleanup(func() { e.Close() })
	return e
}

func norm(v []float32) float64 {
	var s float64
	for _, x := range v {
		s += float64(x) * float64(x)
	}
	return math.Sqrt(s)
}

func maxDiff(a, b []float32) float64 {
	var d float64
	for i := range a {
		d = max(d, math.Abs(float64(a[i]-b[i])))
	}
	return d
}

func TestEmbedRealHugotPath(t *testing.T) {
	e := openModel(t, testmodel.Small)
	if e.Dims() != 384 || e.Model() != "minilm-test" {
		t.Fatalf("Dims, Model = %d, %q; want 384, minilm-test", e.Dims(), e.Model())
	}
	texts := []string{
		"The knockout reduced expression by 40% in replicate 2.",
		"Batch effect explains the clustering; claim C-012 killed.",
		"ok",
	}
	ctx := context.Background()
	batch, err := e.Embed(ctx, texts)
	if err != nil {
		t.Fatal(err)
	}
	if len(batch) != 3 {
		t.Fatalf("got %d vectors, want 3", len(batch))
	}
	for i, v := range batch {
		if len(v) != 384 {
			t.Fatalf("vector %d has %d dims", i, len(v))
		}
		if n := norm(v); math.Abs(n-1) > 1e-4 {
			t.Errorf("vector %d norm = %f, want 1 (L2-normalised)", i, n)
		}
		// Alone or in a padded batch, a text gets the same vector: the
		// attention mask keeps padding out of attention and pooling.
		one, err := e.Embed(ctx, []string{texts[i]})
		if err != nil {
			t.Fatal(err)
		}
		if d := maxDiff(v, one[0]); d > 1e-4 {
			t.Errorf("text %d: batched and single vectors differ by %g", i, d)
		}
	}
	if d := maxDiff(batch[0], batch[1]); d < 1e-3 {
		t.Errorf("different texts gave near-identical vectors (max diff %g)", d)
	}
	if got, err := e.Embed(ctx, nil); err != nil || got != nil {
		t.Errorf("Embed(nil) = %v, %v; want nil, nil", got, err)
	}
}

func TestEmbedAfterCloseAndCancel(t *testing.T) {
	e := openModel(t, testmodel.Tiny)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := e.Embed(ctx, []string{"x"}); err == nil || !strings.Contains(err.Error(), "context canceled") {
		t.Errorf("Embed on a cancelled context: err = %v", err)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	if err := e.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	if _, err := e.Embed(context.Background(), []string{"x"}); err == nil || err.Error() != "embed: model is closed" {
		t.Errorf("Embed after Close: err = %v", err)
	}
}

func TestOpenErrors(t *testing.T) {
	src := testmodel.Dir(t, testmodel.Tiny)
	noTok := t.TempDir()
	if err := os.Link(filepath.Join(src, embed.ONNXFile), filepath.Join(noTok, embed.ONNXFile)); err != nil {
		t.Fatal(err)
	}
	garbage := t.TempDir()
	os.WriteFile(filepath.Join(garbage, embed.ONNXFile), []byte("not a protobuf"), 0o644)
	os.Link(filepath.Join(src, "tokenizer.json"), filepath.Join(garbage, "tokenizer.json"))
	tests := []struct {
		name, dir, want string
	}{
		{"missing dir", filepath.Join(t.TempDir(), "nope"), "no such file or directory (run `vibe model pull`)"},
		{"no tokenizer", noTok, "requires a tokenizer"},
		{"not onnx", garbage, "open model " + garbage},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e, err := Open(tc.dir, embed.ONNXFile)
			if err == nil {
				e.Close()
				t.Fatal("Open succeeded")
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want it to contain %q", err, tc.want)
			}
		})
	}
}
