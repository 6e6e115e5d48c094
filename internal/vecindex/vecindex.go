// Package vecindex keeps the binary codes of embedding vectors in memory
// and finds the codes nearest to a query by Hamming distance: the first,
// coarse pass of a k-nearest-neighbour search, whose short list the caller
// then ranks by the exact distance of the float vectors.
//
// A code has one bit per dimension, set when the value is above zero:
// sqlite-vec's vec_quantize_binary, whose bytes (bit i in byte i/8 at
// position i%8) read as little-endian 64-bit words (bit i in word i/64 at
// position i%64), so a code read from the database and one made here
// compare bit for bit.
//
// The resident process (internal/worker) holds one Set per project and
// model. Scanning 48-byte codes in Go takes about a microsecond per
// hundred vectors, where sqlite-vec's vec0 scan with the same short list
// took 0.2–0.3 ms at a few hundred vectors and 0.9 ms at 10,000 (its top-k
// selection passes over every chunk once per result). Floats keeps the
// float vectors the rerank reads most (the worker keeps 8192), and L2
// computes the exact distance as sqlite-vec does, so a rerank in Go ranks
// and ties as the database's.
//
// Standard library only.
package vecindex

import (
	"encoding/binary"
	"math/bits"
)

// Code is v's binary code: bit i is set when v[i] > 0.
func Code(v []float32) []uint64 {
	c := make([]uint64, (len(v)+63)/64)
	for i, x := range v {
		if x > 0 {
			c[i/64] |= 1 << (i % 64)
		}
	}
	return c
}

// CodeOf reads a code stored as bytes (vec_quantize_binary's output).
func CodeOf(b []byte) []uint64 {
	c := make([]uint64, (len(b)+7)/8)
	for i := range c {
		var w [8]byte
		copy(w[:], b[i*8:])
		c[i] = binary.LittleEndian.Uint64(w[:])
	}
	return c
}

// Set is the codes of one group of vectors (one project and model), each
// under its id with a kind to filter on. It is not safe for concurrent
// use: the caller locks.
type Set struct {
	words int // 64-bit words per code
	ids   []int64
	kinds []uint8
	codes []uint64
	at    map[int64]int // id → position
	names []string      // kind number → kind
}

// NewSet makes an empty set of codes of dims bits.
func NewSet(dims int) *Set {
	return &Set{words: (dims + 63) / 64, at: map[int64]int{}}
}

// Len is the number of codes held.
func (s *Set) Len() int { return len(s.ids) }

// Put adds id's code, or replaces it. A code of another width is cut or
// zero-padded to the set's (zero bits match a zero-padded query).
func (s *Set) Put(id int64, kind string, code []uint64) {
	k := s.kind(kind)
	i, ok := s.at[id]
	if !ok {
		i = len(s.ids)
		s.at[id] = i
		s.ids = append(s.ids, id)
		s.kinds = append(s.kinds, k)
		s.codes = append(s.codes, make([]uint64, s.words)...)
	}
	s.kinds[i] = k
	dst := s.codes[i*s.words : (i+1)*s.words]
	clear(dst)
	copy(dst, code)
}

// Delete removes id's code, if held.
func (s *Set) Delete(id int64) {
	i, ok := s.at[id]
	if !ok {
		return
	}
	last := len(s.ids) - 1
	if i != last {
		s.ids[i], s.kinds[i] = s.ids[last], s.kinds[last]
		copy(s.codes[i*s.words:(i+1)*s.words], s.codes[last*s.words:])
		s.at[s.ids[i]] = i
	}
	s.ids, s.kinds, s.codes = s.ids[:last], s.kinds[:last], s.codes[:last*s.words]
	delete(s.at, id)
}

// kind numbers a kind name; a set holds a handful of kinds.
func (s *Set) kind(name string) uint8 {
	for i, n := range s.names {
		if n == name {
			return uint8(i)
		}
	}
	if len(s.names) == 255 { // more kinds than vibe has: share the last number
		return 254
	}
	s.names = append(s.names, name)
	return uint8(len(s.names) - 1)
}

// Nearest returns the ids of the n codes nearest to q by Hamming distance,
// nearest first, ties by smaller id; with kinds, only codes of those kinds.
func (s *Set) Nearest(q []uint64, n int, kinds []string) []int64 {
	if n <= 0 || len(s.ids) == 0 {
		return nil
	}
	var allow [256]bool
	if len(kinds) > 0 {
		some := false
		for _, k := range kinds {
			for i, name := range s.names {
				if name == k {
					allow[i], some = true, true
				}
			}
		}
		if !some {
			return nil
		}
	}
	qc := make([]uint64, s.words)
	copy(qc, q)
	h := make(worstFirst, 0, n)
	for i, id := range s.ids {
		if len(kinds) > 0 && !allow[s.kinds[i]] {
			continue
		}
		d := 0
		for j, w := range s.codes[i*s.words : (i+1)*s.words] {
			d += bits.OnesCount64(w ^ qc[j])
		}
		c := candidate{d, id}
		switch {
		case len(h) < n:
			h.push(c)
		case c.before(h[0]):
			h[0] = c
			h.down(0)
		}
	}
	out := make([]int64, len(h))
	for i := len(h) - 1; i >= 0; i-- {
		out[i] = h.pop().id
	}
	return out
}

type candidate struct {
	d  int
	id int64
}

func (c candidate) before(o candidate) bool { return c.d < o.d || c.d == o.d && c.id < o.id }

// worstFirst is a binary heap whose top is the worst candidate kept
// (container/heap's interface would box every candidate).
type worstFirst []candidate

func (h *worstFirst) push(c candidate) {
	*h = append(*h, c)
	a := *h
	for i := len(a) - 1; i > 0; {
		p := (i - 1) / 2
		if !a[p].before(a[i]) {
			break
		}
		a[p], a[i] = a[i], a[p]
		i = p
	}
}

func (h *worstFirst) pop() candidate {
	a := *h
	top := a[0]
	last := len(a) - 1
	a[0] = a[last]
	*h = a[:last]
	h.down(0)
	return top
}

// down moves the candidate at i down to its place.
func (h worstFirst) down(i int) {
	for {
		l, worst := 2*i+1, i
		if l < len(h) && h[worst].before(h[l]) {
			worst = l
		}
		if r := l + 1; r < len(h) && h[worst].before(h[r]) {
			worst = r
		}
		if worst == i {
			return
		}
		h[i], h[worst] = h[worst], h[i]
		i = worst
	}
}
