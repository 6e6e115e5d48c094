package client

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"time"

	"github.com/vibe-science/vibe/internal/wire"
)

// The wire types live in package wire (stdlib only), so the hook binaries
// can speak the protocol without this package's dependencies.
type (
	Request  = wire.Request
	Response = wire.Response
	Hit      = wire.Hit
	Health   = wire.Health
)

// Ops and error codes of the protocol.
const (
	OpHealth = wire.OpHealth
	OpEmbed  = wire.OpEmbed
	OpKNN    = wire.OpKNN
	OpWarm   = wire.OpWarm

	CodeNoModel     = wire.CodeNoModel
	CodeVersion     = wire.CodeVersion
	CodeInvalid     = wire.CodeInvalid
	CodeUnavailable = wire.CodeUnavailable
	CodeInternal    = wire.CodeInternal
)

// KNNRequest asks for the k memories of Project nearest to Text.
type KNNRequest struct {
	Project string
	Text    string
	K       int
	Kinds   []string
}

// ErrUnavailable wraps every failure to reach the worker (no socket, no
// listener, deadline passed): callers fall back to lexical recall.
var ErrUnavailable = errors.New("embed worker unavailable")

// Error is a refusal the worker sent back.
type Error struct {
	Code    string
	Message string
}

func (e *Error) Error() string { return e.Message }

// DefaultTimeout bounds a call whose context has no deadline.
const DefaultTimeout = 5 * time.Second

// Call sends one request and reads its reply. A missing socket fails at
// once (the dial does not wait), so a hook's deadline is spent only when a
// worker is actually there.
func Call(ctx context.Context, socket string, req Request) (*Response, error) {
	deadline, ok := ctx.Deadline()
	if !ok {
		deadline = time.Now().Add(DefaultTimeout)
	}
	var d net.Dialer
	d.Deadline = deadline
	conn, err := d.DialContext(ctx, "unix", socket)
	if err != nil {
		return nil, fmt.Errorf("%w: %v (start it with `vibe worker start`)", ErrUnavailable, err)
	}
	defer conn.Close()
	conn.SetDeadline(deadline)
	// A cancelled context unblocks the read at once.
	stop := context.AfterFunc(ctx, func() { conn.SetDeadline(time.Unix(1, 0)) })
	defer stop()
	line, err := json.Marshal(req)
	if err != nil {
		return nil, fmt.Errorf("encode %s request: %w", req.Op, err)
	}
	if _, err := conn.Write(append(line, '\n')); err != nil {
		return nil, fmt.Errorf("%w: send %s: %v", ErrUnavailable, req.Op, err)
	}
	r := bufio.NewReaderSize(conn, 64<<10)
	raw, err := r.ReadBytes('\n')
	if err != nil {
		var ne net.Error
		switch {
		case ctx.Err() != nil:
			err = ctx.Err()
		case errors.As(err, &ne) && ne.Timeout():
			err = context.DeadlineExceeded
		}
		return nil, fmt.Errorf("%w: no reply to %s: %v", ErrUnavailable, req.Op, err)
	}
	var resp Response
	if err := json.Unmarshal(raw, &resp); err != nil {
		return nil, fmt.Errorf("%w: reply to %s is not JSON: %v", ErrUnavailable, req.Op, err)
	}
	if !resp.OK {
		return &resp, &Error{Code: resp.Code, Message: resp.Error}
	}
	return &resp, nil
}

// KNN asks the worker to embed req.Text with its current model and return
// the nearest memories of req.Project, nearest first.
func KNN(ctx context.Context, socket string, req KNNRequest) ([]Hit, error) {
	hits, _, err := KNNModel(ctx, socket, req)
	return hits, err
}

// KNNModel is KNN that also returns the model whose vectors answered
// (embed.FallbackModel when the fallback embedder stood in).
func KNNModel(ctx context.Context, socket string, req KNNRequest) ([]Hit, string, error) {
	resp, err := Call(ctx, socket, Request{Op: OpKNN, Project: req.Project, Text: req.Text, K: req.K, Kinds: req.Kinds})
	if err != nil {
		return nil, "", fmt.Errorf("knn: %w", err)
	}
	return resp.Hits, resp.Model, nil
}

// Embed asks the worker for the vectors of texts and the model that made
// them.
func Embed(ctx context.Context, socket string, texts []string) (vectors [][]float32, model string, err error) {
	resp, err := Call(ctx, socket, Request{Op: OpEmbed, Texts: texts})
	if err != nil {
		return nil, "", fmt.Errorf("embed: %w", err)
	}
	if len(resp.Vectors) != len(texts) {
		return nil, "", fmt.Errorf("embed: worker returned %d vectors for %d texts", len(resp.Vectors), len(texts))
	}
	return resp.Vectors, resp.Model, nil
}

// Warm asks the worker to load its model now, in the background, and
// returns as soon as the worker has the request. Session start calls it so
// the first prompt's recall does not pay the model's load time (seconds on
// the Go backend) after the worker unloaded an idle model.
func Warm(ctx context.Context, socket string) error {
	if _, err := Call(ctx, socket, Request{Op: OpWarm}); err != nil {
		return fmt.Errorf("warm: %w", err)
	}
	return nil
}

// GetHealth asks the worker how it is.
func GetHealth(ctx context.Context, socket string) (Health, error) {
	resp, err := Call(ctx, socket, Request{Op: OpHealth})
	if err != nil {
		return Health{}, fmt.Errorf("health: %w", err)
	}
	if resp.Health == nil {
		return Health{}, errors.New("health: worker sent no health")
	}
	return *resp.Health, nil
}
