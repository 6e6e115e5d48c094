package hugotembed

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sync"
	"unicode/utf8"

	"github.com/sugarme/tokenizer"
	"github.com/sugarme/tokenizer/pretrained"

	"github.com/vibe-science/vibe/internal/embed"
)

// Static is a static-embedding (Model2Vec) model read natively: the
// tokenizer.json, and model.safetensors with one "embeddings" matrix (a row
// per token id) and optionally a "weights" vector (a weight per token id).
// A text's vector is the (weighted) mean of its tokens' rows, unknown
// tokens dropped, L2-normalised, as Model2Vec's StaticModel.encode does. No
// graph runs, so one query costs tens of microseconds rather than the
// ~270 ms a six-layer transformer costs on the pure-Go backend.
type Static struct {
	name    string
	dims    int
	rows    int
	emb     []float32 // rows × dims
	weights []float32 // per row; nil means 1
	unk     int       // -1 when the tokenizer has no [UNK]

	mu  sync.Mutex // the tokenizer is not documented as safe for concurrent use
	tok *tokenizer.Tokenizer
}

// Limits that bound one text's cost, as Model2Vec's defaults do.
const (
	staticMaxTokens = 512
	staticMaxBytes  = 8 << 10
)

// OpenStatic loads the static model in dir.
func OpenStatic(dir string) (*Static, error) {
	tok, err := pretrained.FromFile(filepath.Join(dir, embed.TokenizerFile))
	if err != nil {
		return nil, fmt.Errorf("open static model %s: tokenizer: %w", dir, err)
	}
	tensors, err := readSafetensors(filepath.Join(dir, embed.StaticFile))
	if err != nil {
		return nil, fmt.Errorf("open static model %s: %w", dir, err)
	}
	e, ok := tensors["embeddings"]
	if !ok || len(e.shape) != 2 || e.shape[0] <= 0 || e.shape[1] <= 0 {
		return nil, fmt.Errorf("open static model %s: %s has no 2-d \"embeddings\" tensor (is it a Model2Vec model?)", dir, embed.StaticFile)
	}
	if _, ok := tensors["mappings"]; ok {
		return nil, fmt.Errorf("open static model %s: the \"mappings\" tensor of vocabulary-quantised Model2Vec models is not supported; use a model without it such as %s", dir, embed.PotionModel)
	}
	s := &Static{name: filepath.Base(filepath.Clean(dir)), rows: e.shape[0], dims: e.shape[1], emb: e.data, unk: -1, tok: tok}
	if w, ok := tensors["weights"]; ok {
		if len(w.data) != s.rows {
			return nil, fmt.Errorf("open static model %s: \"weights\" has %d values for %d rows", dir, len(w.data), s.rows)
		}
		s.weights = w.data
	}
	if id, ok := tok.TokenToId("[UNK]"); ok {
		s.unk = id
	}
	return s, nil
}

// Embed returns one unit vector per text; a text without known tokens
// gives the zero vector (it matches nothing).
func (s *Static) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if len(texts) == 0 {
		return nil, nil
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("embed: %w", err)
	}
	out := make([][]float32, len(texts))
	for i, t := range texts {
		v, err := s.embedOne(t)
		if err != nil {
			return nil, fmt.Errorf("embed: %w", err)
		}
		out[i] = v
	}
	return out, nil
}

func (s *Static) embedOne(text string) ([]float32, error) {
	if len(text) > staticMaxBytes {
		cut := staticMaxBytes
		for cut > 0 && !utf8.RuneStart(text[cut]) {
			cut--
		}
		text = text[:cut]
	}
	s.mu.Lock()
	emb, weights := s.emb, s.weights // Close may drop them meanwhile
	if emb == nil {
		s.mu.Unlock()
		return nil, errors.New("model is closed")
	}
	enc, err := s.tok.EncodeSingle(text, false)
	s.mu.Unlock()
	if err != nil {
		return nil, err
	}
	acc := make([]float64, s.dims)
	var total float64
	for n, id := range enc.Ids {
		if n == staticMaxTokens {
			break
		}
		if id == s.unk || id < 0 || id >= s.rows {
			continue
		}
		w := float64(1)
		if weights != nil {
			w = float64(weights[id])
		}
		row := emb[id*s.dims : (id+1)*s.dims]
		for j, x := range row {
			acc[j] += w * float64(x)
		}
		total += w
	}
	v := make([]float32, s.dims)
	if total == 0 {
		return v, nil
	}
	// The mean's divisor cancels in the normalisation; only the norm matters.
	var norm float64
	for _, x := range acc {
		norm += x * x
	}
	if norm == 0 {
		return v, nil
	}
	inv := 1 / math.Sqrt(norm)
	for j, x := range acc {
		v[j] = float32(x * inv)
	}
	return v, nil
}

// Model is the model directory's name.
func (s *Static) Model() string { return s.name }

// Dims is the matrix's width (256 for potion-base-8M; the store pads it).
func (s *Static) Dims() int { return s.dims }

// Close drops the matrix; Embed calls after it fail.
func (s *Static) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.emb, s.weights = nil, nil
	return nil
}

type tensor struct {
	shape []int
	data  []float32
}

// readSafetensors reads the float tensors of a safetensors file: an 8-byte
// little-endian header length, a JSON header naming each tensor's dtype,
// shape and byte range, then the data. F32 and F16 are read (F16 widened).
func readSafetensors(path string) (map[string]tensor, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if len(raw) < 8 {
		return nil, fmt.Errorf("%s is not a safetensors file (%d bytes)", path, len(raw))
	}
	n := binary.LittleEndian.Uint64(raw[:8])
	if n > uint64(len(raw)-8) || n > 100<<20 {
		return nil, fmt.Errorf("%s is not a safetensors file (header of %d bytes in a %d-byte file)", path, n, len(raw))
	}
	var header map[string]json.RawMessage
	if err := json.Unmarshal(raw[8:8+n], &header); err != nil {
		return nil, fmt.Errorf("%s: header: %w", path, err)
	}
	data := raw[8+n:]
	out := map[string]tensor{}
	for name, msg := range header {
		if name == "__metadata__" {
			continue
		}
		var h struct {
			DType   string  `json:"dtype"`
			Shape   []int   `json:"shape"`
			Offsets []int64 `json:"data_offsets"`
		}
		if err := json.Unmarshal(msg, &h); err != nil {
			return nil, fmt.Errorf("%s: tensor %q: %w", path, name, err)
		}
		count := int64(1)
		for _, d := range h.Shape {
			if d < 0 {
				return nil, fmt.Errorf("%s: tensor %q has shape %v", path, name, h.Shape)
			}
			count *= int64(d)
		}
		width := map[string]int64{"F32": 4, "F16": 2}[h.DType]
		if width == 0 {
			// Integer tensors (mappings) only need to be seen, not read.
			out[name] = tensor{shape: h.Shape}
			continue
		}
		if len(h.Offsets) != 2 || h.Offsets[0] < 0 || h.Offsets[1] > int64(len(data)) || h.Offsets[1]-h.Offsets[0] != count*width {
			return nil, fmt.Errorf("%s: tensor %q: byte range %v does not hold %d %s values in %d data bytes", path, name, h.Offsets, count, h.DType, len(data))
		}
		b := data[h.Offsets[0]:h.Offsets[1]]
		f := make([]float32, count)
		for i := range f {
			if width == 4 {
				f[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
			} else {
				f[i] = halfToFloat(binary.LittleEndian.Uint16(b[2*i:]))
			}
		}
		out[name] = tensor{shape: h.Shape, data: f}
	}
	return out, nil
}

// halfToFloat widens an IEEE 754 binary16 value.
func halfToFloat(h uint16) float32 {
	sign := uint32(h>>15) << 31
	exp := uint32(h>>10) & 0x1f
	frac := uint32(h) & 0x3ff
	switch {
	case exp == 0 && frac == 0:
		return math.Float32frombits(sign)
	case exp == 0: // subnormal: scale by 2^-24
		f := float32(frac) / (1 << 24)
		if sign != 0 {
			f = -f
		}
		return f
	case exp == 0x1f:
		return math.Float32frombits(sign | 0xff<<23 | frac<<13)
	}
	return math.Float32frombits(sign | (exp+112)<<23 | frac<<13)
}
