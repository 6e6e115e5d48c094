package hugotembed

import (
	"context"
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vibe-science/vibe/internal/embed"
	"github.com/vibe-science/vibe/internal/embed/hugotembed/testmodel"
)

var _ embed.Embedder = (*Static)(nil)

func openStatic(t testing.TB) (embed.Embedder, string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "potion-test")
	if err := testmodel.CopyTo(testmodel.Dir(t, testmodel.Static), dir); err != nil {
		t.Fatal(err)
	}
	e, err := Load(dir)
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	t.Cleanup(func() { e.Close() })
	return e, dir
}

func TestStaticModel(t *testing.T) {
	e, dir := openStatic(t)
	if _, ok := e.(*Static); !ok || e.Dims() != 256 || e.Model() != "potion-test" {
		t.Fatalf("Load gave %T, Dims %d, Model %q; want *Static, 256, potion-test", e, e.Dims(), e.Model())
	}
	ctx := context.Background()
	texts := []string{"The knockout reduced expression", "the knockout reduced expression", "Batch effect explains clustering", "", "\u2603\u2603"}
	v, err := e.Embed(ctx, texts)
	if err != nil {
		t.Fatal(err)
	}
	for i, x := range v[:3] {
		if n := norm(x); math.Abs(n-1) > 1e-5 {
			t.Errorf("vector %d norm = %f", i, n)
		}
	}
	// Lower-casing is the tokenizer's: the same tokens give the same vector.
	if d := maxDiff(v[0], v[1]); d > 1e-6 {
		t.Errorf("case changed the vector by %g", d)
	}
	if d := maxDiff(v[0], v[2]); d < 1e-3 {
		t.Errorf("different texts gave the same vector")
	}
	if norm(v[3]) != 0 || norm(v[4]) != 0 {
		t.Errorf("texts without known tokens gave non-zero vectors (%f, %f)", norm(v[3]), norm(v[4]))
	}
	// The vector is the normalised mean of the token rows: recompute it
	// from the matrix for one word that is a single token.
	tensors, err := readSafetensors(filepath.Join(dir, embed.StaticFile))
	if err != nil {
		t.Fatal(err)
	}
	st := e.(*Static)
	id, ok := st.tok.TokenToId("knockout")
	if !ok {
		t.Skip("tokenizer splits knockout")
	}
	one, _ := e.Embed(ctx, []string{"knockout"})
	row := tensors["embeddings"].data[id*256 : (id+1)*256]
	var n float64
	for _, x := range row {
		n += float64(x) * float64(x)
	}
	for j := range row {
		if math.Abs(float64(row[j])/math.Sqrt(n)-float64(one[0][j])) > 1e-6 {
			t.Fatalf("dim %d: %f, want %f", j, one[0][j], float64(row[j])/math.Sqrt(n))
		}
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Embed(ctx, texts); err == nil || err.Error() != "embed: model is closed" {
		t.Errorf("Embed after Close: %v", err)
	}
}

func TestStaticOpenErrors(t *testing.T) {
	src := testmodel.Dir(t, testmodel.Static)
	mk := func(body []byte) string {
		d := t.TempDir()
		os.Link(filepath.Join(src, embed.TokenizerFile), filepath.Join(d, embed.TokenizerFile))
		os.WriteFile(filepath.Join(d, embed.StaticFile), body, 0o644)
		return d
	}
	st := func(header string, data int) []byte {
		b := binary.LittleEndian.AppendUint64(nil, uint64(len(header)))
		return append(append(b, header...), make([]byte, data)...)
	}
	tests := []struct{ name, dir, want string }{
		{"short", mk([]byte("abc")), "is not a safetensors file (3 bytes)"},
		{"no embeddings", mk(st(`{"other":{"dtype":"F32","shape":[2,2],"data_offsets":[0,16]}}`, 16)), `has no 2-d "embeddings" tensor`},
		{"bad range", mk(st(`{"embeddings":{"dtype":"F32","shape":[2,2],"data_offsets":[0,12]}}`, 16)), "byte range [0 12] does not hold 4 F32 values"},
		{"mappings", mk(st(`{"embeddings":{"dtype":"F16","shape":[2,2],"data_offsets":[0,8]},"mappings":{"dtype":"I64","shape":[2],"data_offsets":[8,24]}}`, 24)), `"mappings" tensor`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := OpenStatic(tc.dir)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want %q", err, tc.want)
			}
		})
	}
}

func TestHalfToFloat(t *testing.T) {
	for h, want := range map[uint16]float32{0x3c00: 1, 0xc000: -2, 0x3555: 0.33325195, 0x0001: 5.9604645e-08, 0x8000: float32(math.Copysign(0, -1)), 0x7bff: 65504} {
		if got := halfToFloat(h); got != want {
			t.Errorf("halfToFloat(%#04x) = %g, want %g", h, got, want)
		}
	}
}

func BenchmarkStaticQuery(b *testing.B) {
	e, _ := openStatic(b)
	q := []string{"why did the knockout reduce expression in replicate two after the batch correction"}
	ctx := context.Background()
	for b.Loop() {
		if _, err := e.Embed(ctx, q); err != nil {
			b.Fatal(err)
		}
	}
}
