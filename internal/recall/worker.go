package recall

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/vibe-science/vibe/internal/config"
	"github.com/vibe-science/vibe/internal/worker/client"
)

// Asker answers one request of the worker's query service: client.Call
// over its socket, or, for a handler running inside the worker, the worker
// itself (hookrun.Env.Query; its Starter form is faster for a search).
type Asker func(context.Context, client.Request) (*client.Response, error)

// Starter sends one request of the worker's query service and returns at
// once; wait gives the answer, or gives up once ctx is done. The worker's
// own (hookrun.Env.StartQuery) works the answer out on a goroutine it
// counts, so a search that starts it needs no goroutine of its own.
type Starter func(context.Context, client.Request) (wait func() (*client.Response, error))

// HookVectors is the vector search of a hook: the worker's, within the
// recall deadline, unless VIBE_WORKER=off (then nil: lexical recall). start
// and query are the worker in-process when the hook runs there (either
// does; start saves the search a goroutine); both nil ask over socket.
func HookVectors(getenv func(string) string, socket string, deadline time.Duration, start Starter, query Asker) Vectors {
	switch {
	case config.WorkerOff(getenv):
		return nil
	case start != nil:
		return workerVectors{start: start, deadline: deadline}
	case query != nil:
		return workerVectors{call: query, deadline: deadline}
	}
	return WorkerVectors(socket, deadline)
}

// WorkerVectors asks the embed worker, over its socket, for the memories
// nearest a text, within deadline: a worker that is absent, has no model or
// answers late makes recall fall back to FTS5, and the returned error says
// which (wrapping ErrNoWorker or ErrNoModel).
func WorkerVectors(socket string, deadline time.Duration) Vectors {
	return workerVectors{deadline: deadline, call: func(ctx context.Context, req client.Request) (*client.Response, error) {
		return client.Call(ctx, socket, req)
	}}
}

// workerVectors asks the worker through call (waiting for the answer) or
// start (one of the two is set).
type workerVectors struct {
	call     Asker
	start    Starter
	deadline time.Duration
}

func (w workerVectors) KNN(ctx context.Context, project, text string, k int, kinds []string) ([]VectorHit, error) {
	if w.start != nil {
		return w.StartKNN(ctx, project, text, k, kinds)()
	}
	ctx, cancel := context.WithTimeout(ctx, w.deadline)
	defer cancel()
	resp, err := w.call(ctx, client.Request{Op: client.OpKNN, Project: project, Text: text, K: k, Kinds: kinds})
	return w.hits(resp, err)
}

// StartKNN is KNN begun without waiting (starter): nil when w cannot.
func (w workerVectors) StartKNN(ctx context.Context, project, text string, k int, kinds []string) func() ([]VectorHit, error) {
	if w.start == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, w.deadline)
	wait := w.start(ctx, client.Request{Op: client.OpKNN, Project: project, Text: text, K: k, Kinds: kinds})
	return func() ([]VectorHit, error) {
		defer cancel()
		return w.hits(wait())
	}
}

// hits turns the worker's KNN answer into VectorHits, or its error into
// one that says why recall went without vectors.
func (w workerVectors) hits(resp *client.Response, err error) ([]VectorHit, error) {
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
	out := make([]VectorHit, len(resp.Hits))
	for i, h := range resp.Hits {
		out[i] = VectorHit{ID: h.MemoryID, Distance: h.Distance, Model: resp.Model}
	}
	return out, nil
}
