package worker

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/vibe-science/vibe/internal/buildinfo"
	"github.com/vibe-science/vibe/internal/embed"
	"github.com/vibe-science/vibe/internal/fault"
	"github.com/vibe-science/vibe/internal/store"
	"github.com/vibe-science/vibe/internal/worker/client"
)

// The query service: health, warm, embed and knn on JSON lines.

func (w *Worker) answer(ctx context.Context, req client.Request) client.Response {
	switch req.Op {
	case client.OpHealth:
		h := w.Health(ctx)
		return client.Response{OK: true, Model: h.Model, Health: &h}
	case client.OpWarm:
		name, err := w.queryModel(ctx)
		if err != nil {
			return refusal(err)
		}
		// The model loads in the background; so, when a project is named,
		// do its vector codes, which the first KNN of a large project
		// would otherwise read (about a second at 100k vectors), under the
		// model name that KNN will use (the fallback's, while the model is
		// not installed).
		rd := w.reader()
		w.goHandler(func() {
			codesOf := name
			if _, release, err := w.models.acquire(name, w.now()); err == nil {
				release()
			} else if errors.Is(err, errNoModel) && w.cfg.Fallback {
				codesOf = embed.FallbackModel
			}
			if req.Project == "" {
				return
			}
			if _, err := w.vectors.set(w.hookCtx, rd, vectorKey{req.Project, codesOf}); err != nil && w.hookCtx.Err() == nil {
				w.logf("read the vector codes of %s: %v", req.Project, err)
			}
		})
		return client.Response{OK: true, Model: name}
	case client.OpEmbed:
		if len(req.Texts) == 0 || len(req.Texts) > maxEmbedTexts {
			return refuse(client.CodeInvalid, "embed takes 1 to %d texts, got %d", maxEmbedTexts, len(req.Texts))
		}
		vecs, model, err := w.embedNow(ctx, req.Texts)
		if err != nil {
			return refusal(err)
		}
		return client.Response{OK: true, Model: model, Vectors: vecs}
	case client.OpKNN:
		if req.Project == "" || req.Text == "" {
			return refuse(client.CodeInvalid, "knn needs a project and a text")
		}
		k := req.K
		if k <= 0 {
			k = 10
		}
		if k > store.MaxKNN {
			return refuse(client.CodeInvalid, "knn k = %d; at most %d", k, store.MaxKNN)
		}
		vecs, model, err := w.embedNow(ctx, []string{req.Text})
		if err != nil {
			return refusal(err)
		}
		hits, err := w.vectors.knn(ctx, w.reader(), req.Project, vecs[0], k, model, req.Kinds)
		if err != nil {
			return refusal(err)
		}
		out := make([]client.Hit, len(hits))
		for i, h := range hits {
			out[i] = client.Hit{MemoryID: h.MemoryID, Distance: h.Distance}
		}
		return client.Response{OK: true, Model: model, Hits: out}
	}
	return refuse(client.CodeInvalid, "unknown op %q: use health, warm, embed, knn (hook events come as frames)", req.Op)
}

// query answers a request of the query service in-process, for the hooks
// this process runs (hookrun.Env.Query): what a socket client would get,
// without the dial and the JSON. The answer is worked out on a counted
// goroutine, so a caller whose deadline passes (a slow model) goes on at
// once, as a socket client does, and Close still waits for the work. A
// warm-up is answered on the caller's goroutine: it waits for no model
// (its work goes on on a counted goroutine of its own), and SessionStart
// asks for one every time.
func (w *Worker) query(ctx context.Context, req client.Request) (*client.Response, error) {
	if req.Op == client.OpWarm {
		return answered(w.answer(ctx, req))
	}
	return w.startQuery(ctx, req)()
}

// startQuery is query begun without waiting (hookrun.Env.StartQuery): the
// caller does other work, then waits.
func (w *Worker) startQuery(ctx context.Context, req client.Request) (wait func() (*client.Response, error)) {
	done := make(chan client.Response, 1)
	w.goHandler(func() { done <- w.answer(ctx, req) })
	return func() (*client.Response, error) {
		// An answer that came in time is taken even when the caller comes
		// for it after its deadline (a slow lexical search): a select with
		// both ready would pick either.
		select {
		case resp := <-done:
			return answered(resp)
		default:
		}
		select {
		case resp := <-done:
			return answered(resp)
		case <-ctx.Done():
			return nil, fmt.Errorf("%w: no reply to %s: %w", client.ErrUnavailable, req.Op, ctx.Err())
		}
	}
}

// answered is a query's answer as the caller gets it: a refusal is an
// error, as a socket client's is.
func answered(resp client.Response) (*client.Response, error) {
	if !resp.OK {
		return &resp, &client.Error{Code: resp.Code, Message: resp.Error}
	}
	return &resp, nil
}

// embedNow embeds texts for a caller who is waiting, ahead of the backlog.
// Without the current model it starts the lazy download and, when the
// fallback is on, answers with the fallback embedder (the returned model
// name says so). A single text (a recall query) is looked up in the query
// cache first.
func (w *Worker) embedNow(ctx context.Context, texts []string) ([][]float32, string, error) {
	w.queries.Add(1)
	defer w.queries.Add(-1)
	name, err := w.queryModel(ctx)
	if err != nil {
		return nil, "", err
	}
	emb, release, err := w.models.acquire(name, w.now())
	if errors.Is(err, errNoModel) {
		w.startPull(name)
		if w.cfg.Fallback {
			emb, release, err = embed.Fallback{}, func() {}, nil
		}
	}
	if err != nil {
		return nil, "", err
	}
	defer release()
	if len(texts) == 1 {
		if v, ok := w.qcache.get(emb, texts[0]); ok {
			return [][]float32{v}, emb.Model(), nil
		}
	}
	vecs, err := emb.Embed(ctx, texts)
	if err != nil {
		return nil, "", err
	}
	if len(texts) == 1 {
		w.qcache.put(emb, texts[0], vecs[0])
	}
	return vecs, emb.Model(), nil
}

func refuse(code, format string, args ...any) client.Response {
	return client.Response{Code: code, Error: fmt.Sprintf(format, args...)}
}

func refusal(err error) client.Response {
	switch {
	case errors.Is(err, errNoModel):
		return refuse(client.CodeNoModel, "%v", err)
	case fault.KindOf(err) == fault.Invalid:
		return refuse(client.CodeInvalid, "%v", err)
	case fault.KindOf(err) == fault.Unavailable:
		return refuse(client.CodeUnavailable, "%v", err)
	}
	return refuse(client.CodeInternal, "%v", err)
}

// Health is the worker's state now.
func (w *Worker) Health(ctx context.Context) client.Health {
	name, state, modelErr, loaded := w.models.status()
	if name == "" { // before the loop's first look at the database
		name, _ = w.currentModel(ctx)
		state = StateStarting
	}
	h := client.Health{
		PID: os.Getpid(), Version: buildinfo.Version, Model: name, Loaded: loaded, State: state,
		StartedAt: w.started.UnixMilli(),
	}
	if state == StateNoModel && w.cfg.Fallback {
		h.Fallback, h.State = true, StateFallback
	}
	if h.Pulling = w.pull.active.Load(); h.Pulling && h.Fallback {
		h.State = StatePulling
	}
	now := w.now()
	h.Throughput, h.EmbedRate = w.meter.rates(now)
	if mem, err := embed.ReadMemory(); err == nil {
		h.RSSBytes = mem.RSS
	}
	if name != "" {
		if c, err := w.reader().EmbedCounts(ctx, name, now); err == nil {
			h.Backlog, h.Waiting, h.Failed, h.Done = c.Backlog, c.Waiting, c.Failed, c.Done
		} else {
			h.LastError = "count queue: " + err.Error()
		}
	}
	w.errMu.Lock()
	if h.LastError == "" {
		h.LastError = w.lastErr
	}
	w.errMu.Unlock()
	if h.LastError == "" && h.Fallback {
		h.LastError = w.pull.err()
	}
	if modelErr != "" {
		h.LastError = modelErr
	}
	return h
}
