package embed

import (
	"context"
	"hash/fnv"
	"math"
	"strings"
	"unicode"
)

// FallbackModel is the name the fallback embedder records next to its
// vectors. Every place that shows where vectors came from (recall notes,
// `vibe status`, `vibe model`) says "fallback" when it sees this name, and
// the worker queues every memory again for the real model as soon as one
// is installed, so these vectors are replaced, never mixed with a model's.
const FallbackModel = "fallback-hashed-v1"

// FallbackDims is the fallback embedder's width: the vector table's.
const FallbackDims = 384

// Fallback is the embedder used while no model is installed: each word and
// each character trigram of a word is hashed (FNV-1a) to one of
// FallbackDims signed buckets, and the sum is L2-normalised. It knows no
// meaning, only shared words and word pieces ("normalise" is near
// "normalize"), so it is a degraded vector path that keeps KNN, the queue
// and hybrid recall working offline; it costs a few microseconds a text.
type Fallback struct{}

// Embed returns one unit vector per text; a text without words gives the
// zero vector.
func (Fallback) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	out := make([][]float32, len(texts))
	for i, t := range texts {
		out[i] = fallbackVector(t)
	}
	return out, nil
}

// Model is FallbackModel.
func (Fallback) Model() string { return FallbackModel }

// Dims is FallbackDims.
func (Fallback) Dims() int { return FallbackDims }

// Close does nothing: there is nothing loaded.
func (Fallback) Close() error { return nil }

func fallbackVector(text string) []float32 {
	v := make([]float32, FallbackDims)
	add := func(s string, w float32) {
		h := fnv.New64a()
		h.Write([]byte(s))
		x := h.Sum64()
		sign := float32(1)
		if x>>63 == 1 {
			sign = -1
		}
		v[x%FallbackDims] += sign * w
	}
	for _, word := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	}) {
		add("w:"+word, 1)
		r := []rune("^" + word + "$")
		for j := 0; j+3 <= len(r); j++ {
			add("t:"+string(r[j:j+3]), 0.25)
		}
	}
	var n float64
	for _, x := range v {
		n += float64(x) * float64(x)
	}
	if n > 0 {
		inv := float32(1 / math.Sqrt(n))
		for j := range v {
			v[j] *= inv
		}
	}
	return v
}

// IsFallback reports whether model is the fallback embedder's name.
func IsFallback(model string) bool { return model == FallbackModel }
