package vecindex

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

func TestFloatsKeepsTheMostRecentlyUsed(t *testing.T) {
	f := NewFloats(2)
	a, b, c := []float32{1}, []float32{2}, []float32{3}
	f.Put(1, "m", a)
	f.Put(2, "m", b)
	out := make([][]float32, 2)
	if missing := f.Get("m", []int64{1, 9}, out); !slices.Equal(missing, []int{1}) || out[0][0] != 1 {
		t.Fatalf("Get = %v, missing %v", out, missing)
	}
	f.Put(3, "m", c) // 2 is now the least recently used
	out = make([][]float32, 3)
	if missing := f.Get("m", []int64{1, 2, 3}, out); !slices.Equal(missing, []int{1}) || f.Len() != 2 {
		t.Fatalf("after a third Put: missing %v, len %d; want 2 gone, 2 kept", missing, f.Len())
	}
}

func TestFloatsAnswersOnlyForTheModelThatMadeTheVector(t *testing.T) {
	f := NewFloats(4)
	f.Put(1, "A", []float32{1})
	out := make([][]float32, 1)
	if missing := f.Get("B", []int64{1}, out); len(missing) != 1 || out[0] != nil {
		t.Fatalf("model B got A's vector: %v", out)
	}
	f.Put(1, "B", []float32{2}) // embedded again by B: replaces A's
	if missing := f.Get("A", []int64{1}, out); len(missing) != 1 {
		t.Fatal("A's vector still kept after B's replaced it")
	}
	if missing := f.Get("B", []int64{1}, out); len(missing) != 0 || out[0][0] != 2 || f.Len() != 1 {
		t.Fatalf("B: %v, len %d", out, f.Len())
	}
	f.Delete(1)
	if missing := f.Get("B", []int64{1}, out); len(missing) != 1 || f.Len() != 0 {
		t.Fatal("deleted vector still kept")
	}
}

func TestFloatsOfReadsLittleEndianFloat32(t *testing.T) {
	want := []float32{1.5, -2.25, 0, float32(math.Pi)}
	b := make([]byte, 0, 16)
	for _, x := range want {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(x))
	}
	if got := FloatsOf(b); !slices.Equal(got, want) {
		t.Fatalf("FloatsOf = %v, want %v", got, want)
	}
}

func TestL2(t *testing.T) {
	stored := []float32{3, 0, 4, 0}
	if d := L2(stored, []float32{0, 0, 0, 0}); d != 5 {
		t.Errorf("L2 = %v, want 5", d)
	}
	// The shorter counts as zero-padded, as stored vectors are.
	if d := L2([]float32{1, 2, 0, 0}, []float32{1, 2}); d != 0 {
		t.Errorf("L2 with a padded query = %v, want 0", d)
	}
	if d, want := L2([]float32{1, 2}, []float32{1, 2, 0, 3}), L2([]float32{1, 2, 0, 0}, []float32{1, 2, 0, 3}); d != want || d != 3 {
		t.Errorf("L2 with a shorter stored vector = %v, want %v (as padded) and 3", d, want)
	}
	// float32 arithmetic, rounded to float32 as sqlite-vec returns it.
	a, q := []float32{0.1, 0.2, 0.3}, []float32{0.3, 0.1, 0.2}
	var sum float32
	for i := range a {
		d := a[i] - q[i]
		sum += d * d
	}
	if d, want := L2(a, q), float64(float32(math.Sqrt(float64(sum)))); d != want {
		t.Errorf("L2 = %v, want %v", d, want)
	}
}

// TestL2sIsL2 holds L2s to L2 bit for bit over every count mod 4, nil and
// padded vectors among full ones, and values whose float32 sums round
// differently when added in another order.
func TestL2sIsL2(t *testing.T) {
	r := rand.New(rand.NewPCG(15, 4))
	vec := func(n int) []float32 {
		v := make([]float32, n)
		for i := range v {
			v[i] = float32(r.NormFloat64()) * float32(math.Pow(10, float64(r.IntN(7)-3)))
		}
		return v
	}
	for _, dims := range []int{0, 1, 3, 384} {
		q := vec(dims)
		for try := range 22 {
			count, mixed := try/2, try%2 == 1 // all full, then some not
			stored := make([][]float32, count)
			for i := range stored {
				kind := 3 // full length
				if mixed {
					kind = r.IntN(6)
				}
				switch kind {
				case 0:
					stored[i] = nil
				case 1:
					stored[i] = vec(dims / 2) // shorter: padded
				case 2:
					stored[i] = vec(dims + 2) // longer: the query padded
				default:
					stored[i] = vec(dims)
				}
			}
			got := make([]float64, count)
			for i := range got {
				got[i] = -1 // a nil vector's distance is left alone
			}
			L2s(stored, q, got)
			for i, v := range stored {
				want := -1.0
				if v != nil {
					want = L2(v, q)
				}
				if math.Float64bits(got[i]) != math.Float64bits(want) {
					t.Fatalf("dims %d, %d vectors: L2s[%d] = %v, L2 = %v", dims, count, i, got[i], want)
				}
			}
		}
	}
}

func BenchmarkRerank(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	stored := make([][]float32, 100) // store.Shortlist's 100 for a prompt's 50 candidates
	for i := range stored {
		stored[i] = make([]float32, 384)
		for k := range stored[i] {
			stored[i][k] = r.Float32()
		}
	}
	q := stored[0]
	d := make([]float64, len(stored))
	b.Run("L2", func(b *testing.B) {
		for b.Loop() {
			for i, v := range stored {
				d[i] = L2(v, q)
			}
		}
	})
	b.Run("L2s", func(b *testing.B) {
		for b.Loop() {
			L2s(stored, q, d)
		}
	})
}
