package recall

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/vibe-science/vibe/internal/config"
	"github.com/vibe-science/vibe/internal/worker/client"
)

// HookVectors is the vector search of a hook: the worker's, within the
// recall deadline, unless VIBE_WORKER=off (then nil: lexical recall).
func HookVectors(getenv func(string) string, socket string, deadline time.Duration) Vectors {
	if config.WorkerOff(getenv) {
		return nil
	}
	return WorkerVectors(socket, deadline)
}

// WorkerVectors asks the embed worker, over its socket, for the memories
// nearest a text, within deadline: a worker that is absent, has no model or
// answers late makes recall fall back to FTS5, and the returned error says
// which (wrapping ErrNoWorker or ErrNoModel).
func WorkerVectors(socket string, deadline time.Duration) Vectors {
	return workerVectors{socket: socket, deadline: deadline}
}

type workerVectors struct {
	socket   string
	deadline time.Duration
}

func (w workerVectors) KNN(ctx context.Context, project, text string, k int, kinds []string) ([]VectorHit, error) {
	ctx, cancel := context.WithTimeout(ctx, w.deadline)
	defer cancel()
	hits, model, err := client.KNNModel(ctx, w.socket, client.KNNRequest{Project: project, Text: text, K: k, Kinds: kinds})
	if err != nil {
		var ce *client.Error
		switch {
		case errors.As(err, &ce) && ce.Code == client.CodeNoModel:
			return nil, fmt.Errorf("%w", ErrNoModel)
		case errors.Is(err, context.DeadlineExceeded):
			// The worker may well be up: a late answer is not an absent
			// worker, and the note must not say it is.
			return nil, fmt.Errorf("%w (deadline %v)", ErrWorkerLate, w.deadline)
		}
		return nil, fmt.Errorf("%w: %v", ErrNoWorker, err)
	}
	out := make([]VectorHit, len(hits))
	for i, h := range hits {
		out[i] = VectorHit{ID: h.MemoryID, Distance: h.Distance, Model: model}
	}
	return out, nil
}
