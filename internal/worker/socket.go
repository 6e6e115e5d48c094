package worker

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"time"

	"github.com/vibe-science/vibe/internal/wire"
	"github.com/vibe-science/vibe/internal/worker/client"
)

// The socket: accept connections and hand each to the hook host or the
// query service by its first byte (wire.FramingOf).

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
		w.inUse.Add(1)
		go func() {
			defer w.conns.Done()
			defer w.ended()
			w.handle(conn)
		}()
	}
}

// ended notes that a connection ended: the worker was active now, and the
// embed loop does a round of work soon (the hook may have queued memories,
// spooled records or written memories to check).
func (w *Worker) ended() {
	w.touch()
	w.inUse.Add(-1)
	w.kickLoop()
}

// handle answers requests on one connection until it closes or idles.
// Socket deadlines are wall-clock by nature, so they use time.Now rather
// than the injected clock.
func (w *Worker) handle(conn net.Conn) {
	growStack() // a hook's connection goes deep (hookhost.go)
	defer conn.Close()
	r := bufio.NewReaderSize(conn, 4<<10) // longer lines and frames are read in parts
	conn.SetReadDeadline(time.Now().Add(connIdle))
	if first, err := r.Peek(1); err == nil && wire.FramingOf(first[0]) == wire.Hook {
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
