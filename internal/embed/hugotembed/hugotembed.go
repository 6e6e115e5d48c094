package hugotembed

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/knights-analytics/hugot"
	"github.com/knights-analytics/hugot/pipelines"

	"github.com/vibe-science/vibe/internal/embed"
)

// Embedder runs one model. Embed may be called from several goroutines: the
// pipeline is shared, as hugot recommends; Close waits for calls in flight.
type Embedder struct {
	name    string
	dims    int
	mu      sync.RWMutex // read-held by Embed, write-held by Close
	session *hugot.Session
	pipe    *pipelines.FeatureExtractionPipeline
}

// Load opens the model in dir with the standard file names: a static model
// (model.safetensors, no graph) natively, anything else as an ONNX graph
// through hugot. It is the embed.Loader the worker binary passes to the
// worker.
func Load(dir string) (embed.Embedder, error) {
	if embed.IsStatic(dir) {
		s, err := OpenStatic(dir)
		if err != nil {
			return nil, err
		}
		return s, nil
	}
	e, err := Open(dir, embed.ONNXFile)
	if err != nil {
		return nil, err
	}
	return e, nil
}

// Open builds a feature-extraction pipeline over dir/onnxFile and the
// tokenizer.json beside it. Loading a MiniLM-sized graph on the Go backend
// takes seconds, which is why the worker keeps the result and unloads it
// only after an idle period.
func Open(dir, onnxFile string) (e *Embedder, err error) {
	if _, err := os.Stat(filepath.Join(dir, onnxFile)); err != nil {
		return nil, fmt.Errorf("open model %s: %w (run `vibe model pull`)", dir, err)
	}
	session, err := hugot.NewGoSession()
	if err != nil {
		return nil, fmt.Errorf("open model %s: start hugot session: %w", dir, err)
	}
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("open model %s: the Go backend cannot load this graph: %v", dir, r)
		}
		if err != nil {
			session.Destroy()
		}
	}()
	pipe, err := hugot.NewPipeline(session, hugot.FeatureExtractionConfig{
		ModelPath:    dir,
		Name:         "embed",
		OnnxFilename: onnxFile,
		Options:      []hugot.FeatureExtractionOption{pipelines.WithNormalization()},
	})
	if err != nil {
		return nil, fmt.Errorf("open model %s: %w", dir, err)
	}
	dims := pipe.Output.Dimensions
	if len(dims) == 0 || dims[len(dims)-1] <= 0 {
		return nil, fmt.Errorf("open model %s: output %q has no fixed embedding size (%v)", dir, pipe.Output.Name, dims)
	}
	return &Embedder{name: filepath.Base(filepath.Clean(dir)), dims: int(dims[len(dims)-1]), session: session, pipe: pipe}, nil
}

// Embed returns one normalised vector per text. A panic inside the backend
// (hugot's Go kernels panic on unsupported ops) becomes an error, so one bad
// input cannot take the worker down.
func (e *Embedder) Embed(ctx context.Context, texts []string) (vecs [][]float32, err error) {
	if len(texts) == 0 {
		return nil, nil
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("embed: %w", err)
	}
	e.mu.RLock()
	defer e.mu.RUnlock()
	if e.pipe == nil {
		return nil, errors.New("embed: model is closed")
	}
	defer func() {
		if r := recover(); r != nil {
			vecs, err = nil, fmt.Errorf("embed %d texts: backend panic: %v", len(texts), r)
		}
	}()
	out, err := e.pipe.RunPipeline(texts)
	if err != nil {
		return nil, fmt.Errorf("embed %d texts: %w", len(texts), err)
	}
	if len(out.Embeddings) != len(texts) {
		return nil, fmt.Errorf("embed %d texts: the model returned %d vectors", len(texts), len(out.Embeddings))
	}
	for i, v := range out.Embeddings {
		if len(v) != e.dims {
			return nil, fmt.Errorf("embed: vector %d has %d dims, the model declares %d", i, len(v), e.dims)
		}
	}
	return out.Embeddings, nil
}

// Model is the model directory's name (the name `vibe model use` takes).
func (e *Embedder) Model() string { return e.name }

// Dims is the embedding size the graph declares.
func (e *Embedder) Dims() int { return e.dims }

// Close frees the session; Embed calls after it fail.
func (e *Embedder) Close() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.session == nil {
		return nil
	}
	err := e.session.Destroy()
	e.session, e.pipe = nil, nil
	if err != nil {
		return fmt.Errorf("close model %s: %w", e.name, err)
	}
	return nil
}
