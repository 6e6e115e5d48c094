package embed

import "context"

// Embedder turns texts into L2-normalised vectors, one per text, in order.
// Implementations must be safe for concurrent Embed calls, because the
// worker embeds a recall query while a background batch is running.
type Embedder interface {
	// Embed returns one vector of Dims() floats per text.
	Embed(ctx context.Context, texts []string) ([][]float32, error)
	// Model names the model that made the vectors (recorded next to each
	// vector so two models never mix).
	Model() string
	// Dims is the vector length.
	Dims() int
	// Close releases the model's memory.
	Close() error
}

// Loader opens the model installed in dir. The worker takes one as a
// parameter, so the hugot dependency is chosen by the binary's main.
type Loader func(dir string) (Embedder, error)
