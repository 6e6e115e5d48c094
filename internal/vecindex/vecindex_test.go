package vecindex

import (
	"math/bits"
	"math/rand/v2"
	"reflect"
	"slices"
	"sort"
	"testing"
)

func TestCodeSetsTheBitsOfPositiveValues(t *testing.T) {
	v := make([]float32, 130)
	v[0], v[5], v[63], v[64], v[129] = 1, 0.5, 2, 1e-9, 3
	v[1], v[2] = -1, 0 // zero and negatives are clear bits
	got := Code(v)
	want := []uint64{1 | 1<<5 | 1<<63, 1, 1 << 1}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Code = %#x, want %#x", got, want)
	}
}

func TestCodeOfReadsLittleEndianBytes(t *testing.T) {
	// vec_quantize_binary puts bit i in byte i/8 at position i%8.
	b := make([]byte, 16)
	b[0], b[7], b[8] = 0b0000_0101, 0b1000_0000, 0b0000_0010
	got := CodeOf(b)
	want := []uint64{1 | 1<<2 | 1<<63, 1 << 1}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("CodeOf = %#x, want %#x", got, want)
	}
	if got := CodeOf([]byte{0xff, 0x01}); !reflect.DeepEqual(got, []uint64{0x1ff}) {
		t.Fatalf("a short code = %#x, want 0x1ff", got)
	}
}

// bruteNearest is Nearest spelt out: every code's distance, sorted.
func bruteNearest(codes map[int64][]uint64, kindOf map[int64]string, q []uint64, n int, kinds []string) []int64 {
	type c struct {
		d  int
		id int64
	}
	var all []c
	for id, code := range codes {
		if len(kinds) > 0 && !slices.Contains(kinds, kindOf[id]) {
			continue
		}
		d := 0
		for j := range code {
			d += bits.OnesCount64(code[j] ^ q[j])
		}
		all = append(all, c{d, id})
	}
	sort.Slice(all, func(i, j int) bool { return all[i].d < all[j].d || all[i].d == all[j].d && all[i].id < all[j].id })
	var out []int64
	for i := 0; i < n && i < len(all); i++ {
		out = append(out, all[i].id)
	}
	return out
}

func TestNearestMatchesABruteForceScanThroughPutsAndDeletes(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const dims = 384
	s := NewSet(dims)
	codes, kindOf := map[int64][]uint64{}, map[int64]string{}
	kinds := []string{"note", "decision", "seed"}
	random := func() []uint64 {
		v := make([]float32, dims)
		for i := range v {
			v[i] = float32(rng.NormFloat64())
		}
		// Few distinct codes, so ties are common and their order is tested.
		c := Code(v)
		c[0] &= 0xff
		for j := 1; j < len(c); j++ {
			c[j] = 0
		}
		return c
	}
	for step := 0; step < 3000; step++ {
		id := int64(rng.IntN(800)) + 1
		switch rng.IntN(4) {
		case 0:
			s.Delete(id)
			delete(codes, id)
			delete(kindOf, id)
		default:
			c, k := random(), kinds[rng.IntN(len(kinds))]
			s.Put(id, k, c)
			codes[id], kindOf[id] = c, k
		}
		if step%150 != 0 {
			continue
		}
		if s.Len() != len(codes) {
			t.Fatalf("step %d: Len = %d, want %d", step, s.Len(), len(codes))
		}
		q := random()
		for _, n := range []int{1, 10, 100, 5000} {
			for _, ks := range [][]string{nil, {"decision"}, {"seed", "note"}, {"unknown"}} {
				got, want := s.Nearest(q, n, ks), bruteNearest(codes, kindOf, q, n, ks)
				if len(got) != len(want) || (len(want) > 0 && !reflect.DeepEqual(got, want)) {
					t.Fatalf("step %d, n %d, kinds %v:\n got %v\nwant %v", step, n, ks, got, want)
				}
			}
		}
	}
}

func TestPutReplacesAndPadsCodes(t *testing.T) {
	s := NewSet(128)
	s.Put(7, "note", []uint64{0xff, 0xff})
	s.Put(7, "decision", []uint64{1}) // narrower: the rest is zero
	if s.Len() != 1 {
		t.Fatalf("Len = %d after replacing, want 1", s.Len())
	}
	if got := s.Nearest([]uint64{1, 0}, 5, []string{"decision"}); !reflect.DeepEqual(got, []int64{7}) {
		t.Fatalf("Nearest = %v, want [7] under its new kind", got)
	}
	if got := s.Nearest([]uint64{1, 0}, 5, []string{"note"}); len(got) != 0 {
		t.Fatalf("the old kind still matches: %v", got)
	}
	s.Put(8, "note", []uint64{1, 0xffff})
	if got := s.Nearest([]uint64{1}, 2, nil); !reflect.DeepEqual(got, []int64{7, 8}) {
		t.Fatalf("Nearest = %v, want [7 8] (7 is exact, 8 differs in 16 bits)", got)
	}
	s.Delete(7)
	s.Delete(7)
	if got := s.Nearest([]uint64{1}, 2, nil); !reflect.DeepEqual(got, []int64{8}) {
		t.Fatalf("after Delete, Nearest = %v, want [8]", got)
	}
}

func BenchmarkNearest(b *testing.B) {
	for _, n := range []int{1000, 10_000, 100_000} {
		rng := rand.New(rand.NewPCG(1, 2))
		s := NewSet(384)
		v := make([]float32, 384)
		for id := range n {
			for i := range v {
				v[i] = float32(rng.NormFloat64())
			}
			s.Put(int64(id), "note", Code(v))
		}
		q := Code(v)
		b.Run(itoa(n), func(b *testing.B) {
			for range b.N {
				s.Nearest(q, 100, nil)
			}
		})
	}
}

func itoa(n int) string {
	switch {
	case n >= 1000 && n%1000 == 0:
		return itoa(n/1000) + "k"
	case n < 10:
		return string(rune('0' + n))
	}
	return itoa(n/10) + string(rune('0'+n%10))
}
