package worker

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	hookclient "github.com/vibe-science/vibe/internal/client"
	"io"
	"net"
	"strings"
	"time"

	"github.com/vibe-science/vibe/internal/buildinfo"
	"github.com/vibe-science/vibe/internal/embed"
	"github.com/vibe-science/vibe/internal/fault"
	"github.com/vibe-science/vibe/internal/handler"
	"github.com/vibe-science/vibe/internal/hookrun"
	"github.com/vibe-science/vibe/internal/store"
	"github.com/vibe-science/vibe/internal/worker/client"
	"github.com/vibe-science/vibe/internal/worker/proto"
)

// Limits on one request, so a confused client cannot make the worker hold
// gigabytes or embed for minutes.
const (
	maxLine        = 4 << 20
	maxEmbedTexts  = 256
	connIdle       = 30 * time.Second
	requestTimeout = 2 * time.Minute // a cold model load plus one embedding
)

func (w *Worker) serve() {
	for {
		conn, err := w.ln.Accept()
		if err != nil {
			if w.closing.Load() {
				return
			}
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				continue
			}
			w.fail("accept: %v", err)
			time.Sleep(50 * time.Millisecond)
			continue
		}
		w.conns.Add(1)
		go func() {
			defer w.conns.Done()
			w.handle(conn)
		}()
	}
}

// handle answers requests on one connection until it closes or idles.
// Socket deadlines are wall-clock by nature, so they use time.Now rather
// than the injected clock.
func (w *Worker) handle(conn net.Conn) {
	defer conn.Close()
	r := bufio.NewReaderSize(conn, 64<<10)
	conn.SetReadDeadline(time.Now().Add(connIdle))
	if first, err := r.Peek(1); err == nil && first[0] == proto.HookMagic[0] {
		w.handleHook(conn, r)
		return
	}
	enc := json.NewEncoder(conn)
	for !w.closing.Load() {
		conn.SetReadDeadline(time.Now().Add(connIdle))
		line, err := readLine(r)
		if err != nil {
			if errors.Is(err, errLineTooLong) {
				enc.Encode(client.Response{Code: client.CodeInvalid, Error: err.Error()})
			}
			return
		}
		var req client.Request
		var resp client.Response
		if err := json.Unmarshal(line, &req); err != nil {
			resp = client.Response{Code: client.CodeInvalid, Error: fmt.Sprintf("request is not JSON: %v", err)}
		} else {
			ctx, cancel := context.WithTimeout(context.Background(), requestTimeout)
			resp = w.answer(ctx, req)
			cancel()
		}
		conn.SetWriteDeadline(time.Now().Add(connIdle))
		if err := enc.Encode(resp); err != nil {
			return
		}
	}
}

var errLineTooLong = fmt.Errorf("request longer than %d bytes", maxLine)

func readLine(r *bufio.Reader) ([]byte, error) {
	var buf []byte
	for {
		chunk, err := r.ReadSlice('\n')
		buf = append(buf, chunk...)
		if len(buf) > maxLine {
			return nil, errLineTooLong
		}
		if err == nil {
			return buf, nil
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			return nil, err
		}
	}
}

func (w *Worker) answer(ctx context.Context, req client.Request) client.Response {
	switch req.Op {
	case client.OpHealth:
		h := w.Health(ctx)
		return client.Response{OK: true, Model: h.Model, Health: &h}
	case client.OpWarm:
		name, err := w.currentModel(ctx)
		if err != nil {
			return refusal(err)
		}
		go func() {
			if _, release, err := w.models.acquire(name, w.now()); err == nil {
				release()
			}
		}()
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
		hits, err := w.store().KNN(ctx, req.Project, vecs[0], k, model, req.Kinds)
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

// handleHook answers the one hook frame a hook binary sends.
func (w *Worker) handleHook(conn net.Conn, r io.Reader) {
	var reply proto.HookReply
	req, err := proto.ReadHookRequest(r, maxLine)
	if err != nil {
		reply = proto.HookReply{Code: client.CodeInvalid, Error: err.Error()}
	} else {
		reply = w.runHook(req)
	}
	conn.SetWriteDeadline(time.Now().Add(connIdle))
	conn.Write(proto.AppendHookReply(nil, reply))
}

// runHook runs a hook event in the worker, on the database it holds open,
// for a hook client of the same build (another build's handlers may decide
// differently, so its client runs them itself). The hook's own time budget
// and failure policy apply as in the hook binary.
func (w *Worker) runHook(req proto.HookRequest) proto.HookReply {
	if req.Version != buildinfo.Version {
		return proto.HookReply{Code: client.CodeVersion, Error: fmt.Sprintf(
			"the worker is build %s, the hook %s: the hook runs its handler itself", buildinfo.Version, req.Version)}
	}
	spec, err := handler.Lookup(req.Hook)
	if err != nil {
		return proto.HookReply{Code: client.CodeInvalid, Error: err.Error()}
	}
	vars := make(map[string]string, len(req.Env))
	for _, kv := range req.Env {
		if k, v, ok := strings.Cut(kv, "="); ok {
			vars[k] = v
		}
	}
	w.checkDatabase(context.Background())
	var stdout, stderr bytes.Buffer
	env := &hookrun.Env{Stdin: bytes.NewReader(req.Stdin), Stdout: &stdout, Stderr: &stderr, Now: w.now,
		Getenv: func(k string) string { return vars[k] }}
	env.UseStore(w.store())
	if n := w.notice.Swap(nil); n != nil {
		env.Note("%s", *n)
	}
	code := hookclient.Main(spec, env) // hookrun.Main, in the dialect the hook command names (--client)
	return proto.HookReply{Exit: code, Stdout: stdout.Bytes(), Stderr: stderr.Bytes()}
}

// embedNow embeds texts for a caller who is waiting, ahead of the backlog.
// Without the current model it starts the lazy download and, when the
// fallback is on, answers with the fallback embedder (the returned model
// name says so). A single text (a recall query) is looked up in the query
// cache first.
func (w *Worker) embedNow(ctx context.Context, texts []string) ([][]float32, string, error) {
	w.queries.Add(1)
	defer w.queries.Add(-1)
	name, err := w.currentModel(ctx)
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
