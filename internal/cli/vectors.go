package cli

import (
	"time"

	"github.com/vibe-science/vibe/internal/config"
	"github.com/vibe-science/vibe/internal/recall"
)

// cliVectorDeadline bounds the CLI's wait for the worker's vectors: longer
// than a hook's, since a person waits for the answer, not a tool call.
const cliVectorDeadline = 5 * time.Second

// Vectors is the CLI's vector search: the resident worker's, unless
// VIBE_WORKER=off (then nil, and why).
func (f *Factory) Vectors() (recall.Vectors, string) {
	if config.WorkerOff(f.Getenv) {
		return nil, "VIBE_WORKER=off keeps the embed worker, and so vector search, off"
	}
	return recall.WorkerVectors(f.Paths().Socket, cliVectorDeadline), ""
}
